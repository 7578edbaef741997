"""Notifications as typed values, and the one function that writes them as the spec's Events table
draws them.

The use cases build an event at the moment money moves and hand it to the outbox port
(``OutboxRepository.add``) in the same unit of work; the outbox stores the event's
:attr:`~TransferEvent.type` and :attr:`~TransferEvent.webhook_type` beside its :func:`payload`. The
notifier routes by the stored ``webhook_type`` and sends the stored payload: it never parses it.

* :class:`TransferEvent` (TRANSFER), :class:`ReceiveEvent` (RECEIVE), :class:`RefundEvent` (REFUND)
  and :class:`MedEvent` (MED), each knowing its :class:`NotificationType` (``type``) and the
  registration type it is delivered to (``webhook_type``).
* :class:`KeyPixEvent` (PIX) is the standard's notification of a PIX received on a key with a
  webhook (``PUT /webhook/{chave}``), and of a refund of it reaching its final status: its
  payload's ``data`` is the body the standard POSTs, ``{"pix": [<Pix>]}`` (docs/decisions/key-webhooks.md).
* :func:`payload` is the only place where an event becomes the envelope ``{type, data}`` with the
  wire's keys: documents masked, amounts formatted, keys in the order the spec lists them.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, assert_never

from pixcore.clock import format_timestamp
from pixcore.documents import mask_document
from pixcore.money import cents_to_decimal, format_amount_string
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.refunds.rules import Refund, RefundStatus
from pixcore.transfers.rules import SpiError
from pixcore.webhooks.rules import EventType

__all__ = [
    "CURRENCY",
    "Event",
    "Holder",
    "KeyPixEvent",
    "MedEvent",
    "NotificationType",
    "ReceiveEvent",
    "RefundDirection",
    "RefundEvent",
    "Refunded",
    "TransferEvent",
    "payload",
    "standard_pix_item",
    "standard_refund_item",
]

CURRENCY = "BRL"


class NotificationType(enum.StrEnum):
    """The envelope's ``type``: what the outbox stores as the event's type."""

    TRANSFER = "TRANSFER"
    RECEIVE = "RECEIVE"
    REFUND = "REFUND"
    MED = "MED"
    PIX = "PIX"
    """The standard's notification to a key's webhook: the body sent is the payload's ``data``."""


class RefundDirection(enum.StrEnum):
    """A REFUND's ``creditDebitType``: DEBIT for a refund the account sent, CREDIT for one it received."""

    DEBIT = "DEBIT"
    CREDIT = "CREDIT"


@dataclass(frozen=True, slots=True)
class Holder:
    """The other side's account holder; the document is masked when the event is written."""

    name: str
    document: str


@dataclass(frozen=True, slots=True)
class Refunded:
    """The refund a REFUND event tells of: how much went back, under which return id, when."""

    amount: int
    return_id: str
    refunded_at: datetime
    information: str | None = None


@dataclass(frozen=True, slots=True)
class TransferEvent:
    """TRANSFER: a transfer made by ``POST /dict/pix`` settled (LIQUIDATED), or failed (ERROR) with
    an SPI code."""

    type: ClassVar[NotificationType] = NotificationType.TRANSFER
    webhook_type: ClassVar[EventType] = EventType.CASH_OUT

    transaction_id: int
    pix_key: str
    amount: int
    end_to_end_id: str
    idempotency_key: uuid.UUID
    creditor: Holder
    creditor_ispb: str
    description: str | None
    error: SpiError | None = None
    """None when the transfer settled."""


@dataclass(frozen=True, slots=True)
class ReceiveEvent:
    """RECEIVE: a payment to the account was confirmed (of a charge when ``tx_id`` is set)."""

    type: ClassVar[NotificationType] = NotificationType.RECEIVE
    webhook_type: ClassVar[EventType] = EventType.CASH_IN

    transaction_id: int
    tx_id: str | None
    amount: int
    end_to_end_id: str
    debtor: Holder


@dataclass(frozen=True, slots=True)
class RefundEvent:
    """REFUND: a refund of a transaction was processed. The transaction's own id, charge, amount
    and end-to-end id, and the refund that was made of it."""

    type: ClassVar[NotificationType] = NotificationType.REFUND

    transaction_id: int
    tx_id: str | None
    amount: int
    end_to_end_id: str
    refund: Refunded
    direction: RefundDirection

    @property
    def webhook_type(self) -> EventType:
        """``refund_in`` for a refund the account sent, ``refund_out`` for one it received."""
        return EventType.REFUND_IN if self.direction is RefundDirection.DEBIT else EventType.REFUND_OUT


_MED_TYPES = {
    MedStatus.CREATED: EventType.MED_CREATED,
    MedStatus.ACCEPTED: EventType.MED_ACCEPTED,
    MedStatus.REJECTED: EventType.MED_REJECTED,
}


@dataclass(frozen=True, slots=True)
class MedEvent:
    """MED: a special return case was opened (CREATED), ACCEPTED or REJECTED."""

    type: ClassVar[NotificationType] = NotificationType.MED

    case_id: int
    end_to_end_id: str
    status: MedStatus
    reason: MedReason
    amount: int

    @property
    def webhook_type(self) -> EventType:
        return _MED_TYPES[self.status]


@dataclass(frozen=True, slots=True)
class KeyPixEvent:
    """PIX: a PIX was received on ``pix_key``, which has a webhook of the standard (a payment of the
    key, or of a charge of it), or a refund of it reached its final status (DEVOLVIDO or
    NAO_REALIZADO). Sent as ``{"pix": [<Pix>]}``: the item ``GET /pix/{e2eid}`` shows of it at
    that moment (on receipt, no refund yet; on a refund, each of its ``devolucoes``)."""

    type: ClassVar[NotificationType] = NotificationType.PIX
    webhook_type: ClassVar[EventType] = EventType.PIX

    pix_key: str
    end_to_end_id: str
    amount: int
    received_at: datetime
    tx_id: str | None = None
    refunds: tuple[Refund, ...] = ()
    """The PIX's refunds to its payer, oldest first, as they are at the event."""


Event = TransferEvent | ReceiveEvent | RefundEvent | MedEvent | KeyPixEvent


def _payment(amount: int) -> dict[str, Any]:
    return {"amount": format_amount_string(amount), "currency": CURRENCY}


def standard_pix_item(event: KeyPixEvent) -> dict[str, Any]:
    """The standard's ``Pix`` of a PIX just received, keys as ``GET /pix/{e2eid}`` writes them
    (``pixweb.charges.cob.pix_out``: a unit test holds the two equal)."""
    item: dict[str, Any] = {
        "endToEndId": event.end_to_end_id,
        "valor": format_amount_string(event.amount),
        "horario": format_timestamp(event.received_at),
        "devolucoes": [standard_refund_item(refund) for refund in event.refunds],
    }
    if event.tx_id is not None:
        item["txid"] = event.tx_id
    item["chave"] = event.pix_key
    return item


def standard_refund_item(refund: Refund) -> dict[str, Any]:
    """The standard's ``Devolucao`` of a refund, keys as ``GET /pix/{e2eid}`` writes them
    (``pixweb.refunds.refunds.refund_out``: a unit test holds the two equal)."""
    times = {"solicitacao": format_timestamp(refund.requested_at)}
    if refund.status is RefundStatus.DEVOLVIDO and refund.finished_at is not None:
        times["liquidacao"] = format_timestamp(refund.finished_at)
    item: dict[str, Any] = {
        "id": refund.refund_id,
        "rtrId": refund.rtr_id,
        "valor": format_amount_string(refund.amount),
        "natureza": refund.nature.value,
        "horario": times,
        "status": refund.status.value,
    }
    if refund.description is not None:
        item["descricao"] = refund.description
    if refund.reason is not None:
        item["motivo"] = refund.reason
    return item


def payload(event: Event) -> dict[str, Any]:
    """The event as it is stored and sent: ``{type, data}`` with the spec's keys, in its order.

    Amounts are strings with two decimals, except ``refunds[].payment.amount``, a ``Decimal``
    that the outbox writes as an exact JSON number. Nothing else in ``pixcore`` writes these keys.
    """
    data: dict[str, Any]
    match event:
        case TransferEvent():
            data = {
                "id": event.transaction_id,
                "txId": None,
                "pixKey": event.pix_key,
                "status": "LIQUIDATED" if event.error is None else "ERROR",
                "payment": _payment(event.amount),
                "endToEndId": event.end_to_end_id,
                "creditDebitType": "DEBIT",
                "idempotencyKey": str(event.idempotency_key),
                "creditorAccount": {
                    "name": event.creditor.name,
                    "document": mask_document(event.creditor.document),
                    "ispb": event.creditor_ispb,
                },
                "remittanceInformation": event.description or "",
            }
            if event.error is not None:
                data["errorCode"] = event.error.value
        case ReceiveEvent():
            data = {
                "id": event.transaction_id,
                "txId": event.tx_id,
                "status": "LIQUIDATED",
                "payment": _payment(event.amount),
                "endToEndId": event.end_to_end_id,
                "debtorAccount": {
                    "name": event.debtor.name,
                    "document": mask_document(event.debtor.document),
                },
            }
        case RefundEvent():
            refund = event.refund
            data = {
                "id": event.transaction_id,
                "txId": event.tx_id,
                "status": "REFUNDED",
                "payment": _payment(event.amount),
                "refunds": [
                    {
                        "status": "LIQUIDATED",
                        "payment": {"amount": cents_to_decimal(refund.amount), "currency": CURRENCY},
                        "endToEndId": refund.return_id,
                        "eventDate": format_timestamp(refund.refunded_at),
                        "information": refund.information or "",
                    }
                ],
                "endToEndId": event.end_to_end_id,
                "creditDebitType": event.direction.value,
            }
        case MedEvent():
            data = {
                "id": event.case_id,
                "endToEndId": event.end_to_end_id,
                "status": event.status.value,
                "reason": event.reason.value,
                "payment": _payment(event.amount),
            }
        case KeyPixEvent():
            data = {"pix": [standard_pix_item(event)]}
        case _:
            assert_never(event)
    return {"type": event.type.value, "data": data}
