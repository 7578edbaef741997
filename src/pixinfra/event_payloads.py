"""The JSON of notifications: each typed event of :mod:`pixcore.events` as the spec's Events table
draws it, and the test notification's PING.

* :func:`payload` writes the envelope ``{type, data}`` that the outbox stores
  (``pixinfra.persistence.outbox``) and the notifier sends as it is stored: documents masked,
  amounts formatted, keys in the order the spec lists them.
* A PIX event's ``data`` is the body the central bank's standard POSTs to a key's webhook,
  ``{"pix": [<Pix>]}``: :func:`standard_pix_item` and :func:`standard_refund_item` write its items
  with the keys ``GET /pix/{e2eid}`` shows (``pixweb.charges.mapping.pix_out``: a unit test holds the
  two equal).
* A REC or COBR event's ``data`` is the body the standard POSTs to ``/webhookrec``'s and
  ``/webhookcobr``'s callbacks, ``{"recs": [<RecNotification>]}`` and ``{"cobsr":
  [<CobRNotification>]}``: :func:`standard_rec_item` and :func:`standard_cobr_item` write the items.
* :func:`ping_payload` writes the PING that ``POST /api/webhooks/{id}/test`` sends
  (``pixnotify.probe``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from pixcore.amount_parts import DueAmount, whole_amount
from pixcore.clock import format_timestamp
from pixcore.documents import mask_document
from pixcore.events import (
    Event,
    KeyPixEvent,
    MedEvent,
    ReceiveEvent,
    RecurrenceEvent,
    RecurringChargeEvent,
    RefundEvent,
    TransferEvent,
)
from pixcore.money import cents_to_decimal, format_amount_string
from pixcore.recurrences import Attempt, Closing, ClosingKind, Recurrence, RecurringCharge, StatusChange
from pixcore.refunds.rules import Refund, RefundStatus
from pixcore.webhooks.ports import Ping

__all__ = [
    "CURRENCY",
    "PING",
    "end_to_end_id_of",
    "payload",
    "ping_payload",
    "standard_cobr_item",
    "standard_components",
    "standard_pix_item",
    "standard_rec_item",
    "standard_refund_item",
]

CURRENCY = "BRL"
"""The currency of every amount a notification carries."""
PING = "PING"
"""The notification type of a test event."""


def _payment(amount: int) -> dict[str, Any]:
    return {"amount": format_amount_string(amount), "currency": CURRENCY}


def standard_components(parts: DueAmount) -> dict[str, Any]:
    """The standard's ``componentesValor`` of a PIX made of ``parts``: ``original`` always, the
    cash of a Pix Saque (``saque``) or Troco (``troco``), each other part when not zero (as
    ``pixweb.charges.mapping.components_out`` writes it)."""
    components: dict[str, Any] = {"original": {"valor": format_amount_string(parts.original)}}
    if parts.cash is not None:
        components[parts.cash.kind] = {
            "valor": format_amount_string(parts.cash.amount),
            "modalidadeAgente": parts.cash.agent,
            "prestadorDoServicoDeSaque": parts.cash.facilitator,
        }
    for name, cents in (
        ("multa", parts.fine),
        ("juros", parts.interest),
        ("abatimento", parts.rebate),
        ("desconto", parts.discount),
    ):
        if cents:
            components[name] = {"valor": format_amount_string(cents)}
    return components


def standard_pix_item(event: KeyPixEvent) -> dict[str, Any]:
    """The standard's ``Pix`` of a PIX just received, keys as ``GET /pix/{e2eid}`` writes them."""
    parts = whole_amount(event.amount) if event.amount_parts is None else event.amount_parts
    item: dict[str, Any] = {
        "endToEndId": event.end_to_end_id,
        "valor": format_amount_string(event.amount),
        "componentesValor": standard_components(parts),
        "horario": format_timestamp(event.received_at),
        "devolucoes": [standard_refund_item(refund) for refund in event.refunds],
    }
    if event.tx_id is not None:
        item["txid"] = event.tx_id
    item["chave"] = event.pix_key
    return item


def standard_refund_item(refund: Refund) -> dict[str, Any]:
    """The standard's ``Devolucao`` of a refund, keys as ``GET /pix/{e2eid}`` writes them
    (``pixweb.refunds.refunds.refund_out``)."""
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
    that the outbox writes as an exact JSON number.
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
        case RecurrenceEvent():
            data = {"recs": [standard_rec_item(event.recurrence)]}
        case RecurringChargeEvent():
            data = {"cobsr": [standard_cobr_item(event.charge)]}
        case _:
            assert_never(event)
    return {"type": event.type.value, "data": data}


def _history(lines: tuple[StatusChange[Any], ...]) -> list[dict[str, str]]:
    return [{"status": line.status.value, "data": format_timestamp(line.at)} for line in lines]


_CLOSING_KEYS = {ClosingKind.REJEICAO: "rejeicao", ClosingKind.CANCELAMENTO: "cancelamento"}
"""The standard's member of ``encerramento`` for each kind of closing."""


def _closing(closing: Closing) -> dict[str, Any]:
    """``encerramento``: ``{"rejeicao": {...}}`` or ``{"cancelamento": {"solicitante", ...}}``."""
    detail: dict[str, Any] = {}
    if closing.requester is not None:
        detail["solicitante"] = closing.requester.value
    detail |= {"codigo": closing.code, "descricao": closing.description}
    return {_CLOSING_KEYS[closing.kind]: detail}


def standard_rec_item(recurrence: Recurrence) -> dict[str, Any]:
    """The standard's ``RecNotification`` of a recurrence as it is: its id, status, history, why
    it ended (if it did) and how it was authorized."""
    item: dict[str, Any] = {
        "idRec": recurrence.rec_id,
        "status": recurrence.status.value,
        "atualizacao": _history(recurrence.history),
    }
    if recurrence.closing is not None:
        item["encerramento"] = _closing(recurrence.closing)
    activation: dict[str, Any] = {"tipoJornada": recurrence.journey.value}
    if recurrence.journey_txid is not None:
        activation["dadosJornada"] = {"txid": recurrence.journey_txid}
    item["ativacao"] = activation
    return item


def _attempt(attempt: Attempt) -> dict[str, Any]:
    item: dict[str, Any] = {
        "dataLiquidacao": attempt.settles_on.isoformat(),
        "tipo": attempt.type.value,
        "status": attempt.status.value,
        "endToEndId": attempt.end_to_end_id,
        "atualizacao": _history(attempt.history),
    }
    if attempt.rejection is not None:
        item["rejeicao"] = {"codigo": attempt.rejection.code, "descricao": attempt.rejection.description}
    return item


def standard_cobr_item(charge: RecurringCharge) -> dict[str, Any]:
    """The standard's ``CobRNotification`` of a recurring charge as it is: its ids, status,
    history, attempts and, once paid, the PIX that paid it."""
    item: dict[str, Any] = {
        "idRec": charge.rec_id,
        "txid": charge.txid,
        "status": charge.status.value,
        "atualizacao": _history(charge.history),
    }
    if charge.closing is not None:
        item["encerramento"] = _closing(charge.closing)
    item["tentativas"] = [_attempt(attempt) for attempt in charge.attempts]
    paid = charge.paid_by
    if paid is not None and charge.paid_at is not None:
        item["pix"] = [
            {
                "endToEndId": paid.end_to_end_id,
                "txid": charge.txid,
                "valor": format_amount_string(charge.amount),
                "horario": format_timestamp(charge.paid_at),
            }
        ]
    return item


def ping_payload(ping: Ping) -> dict[str, Any]:
    """The test event as it is sent: ``{"type": "PING", "data": {webhookId, sentAt}}``."""
    return {"type": PING, "data": {"webhookId": ping.webhook_id, "sentAt": format_timestamp(ping.sent_at)}}


def end_to_end_id_of(payload: Mapping[str, Any] | None) -> str | None:
    """The PIX a notification is about: its ``data.endToEndId``, or its ``pix`` item's (a key's
    webhook); None for one about no PIX (a test event)."""
    data = (payload or {}).get("data")
    if not isinstance(data, Mapping):
        return None
    items = data.get("pix")
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], Mapping) else data
    found = first.get("endToEndId")
    return found if isinstance(found, str) else None
