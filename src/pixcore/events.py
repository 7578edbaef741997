"""Notifications as typed values: what the use cases tell the outbox when money moves.

The use cases build an event at the moment money moves and hand it to the outbox port
(``OutboxRepository.add``) in the same unit of work; the outbox adapter stores the event's
:attr:`~TransferEvent.type` and :attr:`~TransferEvent.webhook_type` beside its JSON, which the
adapter writes (``pixinfra.event_payloads``). The notifier routes by the stored ``webhook_type``
and sends the stored JSON: it never parses it.

* :class:`TransferEvent` (TRANSFER), :class:`ReceiveEvent` (RECEIVE), :class:`RefundEvent` (REFUND)
  and :class:`MedEvent` (MED), each knowing its :class:`NotificationType` (``type``) and the
  registration type it is delivered to (``webhook_type``).
* :class:`KeyPixEvent` (PIX) is the standard's notification of a PIX received on a key with a
  webhook (``PUT /webhook/{chave}``), and of a refund of it reaching its final status: what the
  standard POSTs is the PIX as ``GET /pix/{e2eid}`` shows it (docs/decisions/key-webhooks.md).
* :class:`RecurrenceEvent` (REC) and :class:`RecurringChargeEvent` (COBR) are Pix Automático's: a
  recurrence's, or a recurring charge's (or its attempt's), change of status, carrying the record
  as it is after the change. They go to registrations of their own types (:class:`RecurringRoute`:
  ``rec``, ``cobr``, which ``PUT /webhookrec`` and ``PUT /webhookcobr`` make, not ``/api/webhooks``);
  their JSON is the standard's callback body (``{"recs": [...]}``, ``{"cobsr": [...]}``).
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from pixcore.amount_parts import DueAmount
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.refunds.rules import Refund
from pixcore.transfers.rules import SpiError
from pixcore.webhooks.rules import EventType

if TYPE_CHECKING:  # annotations only: the recurrences' package imports its use cases, which import this
    from pixcore.recurrences.records import Recurrence, RecurringCharge

__all__ = [
    "Event",
    "Holder",
    "KeyPixEvent",
    "MedEvent",
    "NotificationType",
    "ReceiveEvent",
    "RecurrenceEvent",
    "RecurringChargeEvent",
    "RecurringNotification",
    "RecurringRoute",
    "RefundDirection",
    "RefundEvent",
    "Refunded",
    "TransferEvent",
]


class NotificationType(enum.StrEnum):
    """The envelope's ``type``: what the outbox stores as the event's type."""

    TRANSFER = "TRANSFER"
    RECEIVE = "RECEIVE"
    REFUND = "REFUND"
    MED = "MED"
    PIX = "PIX"
    """The standard's notification to a key's webhook: the body sent is the PIX alone, without the
    envelope."""


class RefundDirection(enum.StrEnum):
    """Which way a REFUND's money went: DEBIT for a refund the account sent, CREDIT for one it received."""

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
    NAO_REALIZADO). Sent as ``GET /pix/{e2eid}`` shows the PIX at that moment (on receipt, no
    refund yet; on a refund, each of its refunds)."""

    type: ClassVar[NotificationType] = NotificationType.PIX
    webhook_type: ClassVar[EventType] = EventType.PIX

    pix_key: str
    end_to_end_id: str
    amount: int
    received_at: datetime
    tx_id: str | None = None
    refunds: tuple[Refund, ...] = ()
    """The PIX's refunds to its payer, oldest first, as they are at the event."""
    amount_parts: DueAmount | None = None
    """What a payment of a ``cobv`` was made of (its ``componentesValor``); None: its amount whole."""


class RecurringNotification(enum.StrEnum):
    """The envelope's ``type`` of Pix Automático's events, as the outbox stores it."""

    REC = "REC"
    COBR = "COBR"


class RecurringRoute(enum.StrEnum):
    """The registration type Pix Automático's events go to (the outbox's ``webhook_type``)."""

    REC = "rec"
    COBR = "cobr"


@dataclass(frozen=True, slots=True)
class RecurrenceEvent:
    """REC: a recurrence took a new status (``recurrence`` as it is then)."""

    type: ClassVar[RecurringNotification] = RecurringNotification.REC
    webhook_type: ClassVar[RecurringRoute] = RecurringRoute.REC

    recurrence: Recurrence


@dataclass(frozen=True, slots=True)
class RecurringChargeEvent:
    """COBR: a recurring charge, or one of its attempts, took a new status (``charge`` as it is then)."""

    type: ClassVar[RecurringNotification] = RecurringNotification.COBR
    webhook_type: ClassVar[RecurringRoute] = RecurringRoute.COBR

    charge: RecurringCharge


Event = (
    TransferEvent
    | ReceiveEvent
    | RefundEvent
    | MedEvent
    | KeyPixEvent
    | RecurrenceEvent
    | RecurringChargeEvent
)
