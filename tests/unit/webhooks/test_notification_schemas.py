"""The document's ``webhooks`` section describes the bodies ``pixinfra.event_payloads.payload`` writes.

Each payload (of every event kind, settled and failed, with and without a charge, every MED
status) is validated against the served document's schemas (JSON Schema 2020-12, the dialect of
OpenAPI 3.1) and decoded by the structs the schemas come from; the mapping from registration
``eventType`` to notification type is checked against the events' own ``webhook_type``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import jsonschema
import msgspec
import pytest
from jsonschema.protocols import Validator

from pixcore.amount_parts import CashPart, DueAmount
from pixcore.charges.cob_service import ReceivedPix
from pixcore.clock import format_timestamp
from pixcore.events import Event, KeyPixEvent, NotificationType
from pixcore.money import format_amount_string
from pixcore.refunds.med import MedStatus
from pixcore.refunds.rules import Refund, RefundKind, RefundNature, RefundStatus
from pixcore.transfers.rules import SpiError
from pixcore.webhooks.delivery import encode_body
from pixcore.webhooks.rules import REGISTRABLE, EventType
from pixinfra.event_payloads import payload
from pixweb.app import create_app
from pixweb.charges.mapping import pix_out
from pixweb.webhooks.notifications import NOTIFICATIONS, NOTIFIED_BY, PING
from tests.support.json_schema import ExactValidator
from tests.unit.webhooks.test_events import MED, RECEIVE, REFUND_RECEIVED, REFUND_SENT, TRANSFER

EVENTS: list[Event] = [
    TRANSFER,
    replace(TRANSFER, error=SpiError.TIMEOUT, description=None),
    RECEIVE,
    replace(RECEIVE, tx_id=None),
    REFUND_SENT,
    REFUND_RECEIVED,
    *(replace(MED, status=status) for status in MedStatus),
]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    document: dict[str, Any] = create_app().openapi_schema.to_schema()
    return json.loads(json.dumps(document, default=str))  # as served: plain JSON


def notification_validator(document: dict[str, Any], kind: str) -> Validator:
    """The validator of the body of the ``kind`` webhook, its ``$ref``s resolved in the document."""
    body = document["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schema = {**body, "components": document["components"]}
    return ExactValidator(schema, format_checker=jsonschema.FormatChecker())


def as_sent(body: dict[str, Any]) -> bytes:
    """The bytes a receiver gets: the outbox writes ``Decimal`` amounts as exact JSON numbers
    (``pixinfra.persistence.outbox``)."""
    return msgspec.json.Encoder(decimal_format="number").encode(body)


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: f"{e.type}-{e.webhook_type}")
def test_every_payload_is_valid_against_its_webhook_schema(document: dict[str, Any], event: Event) -> None:
    sent = json.loads(as_sent(payload(event)))
    notification_validator(document, sent["type"]).validate(sent)
    decoded = msgspec.json.decode(as_sent(payload(event)), type=NOTIFICATIONS[sent["type"]], strict=True)
    assert msgspec.to_builtins(decoded)["type"] == event.type


def test_a_payload_with_a_key_the_schema_does_not_know_is_refused(document: dict[str, Any]) -> None:
    sent = json.loads(as_sent(payload(RECEIVE)))
    sent["data"]["surprise"] = 1
    assert not notification_validator(document, "RECEIVE").is_valid(sent)
    wrong_type = json.loads(as_sent(payload(RECEIVE))) | {"type": "TRANSFER"}
    assert not notification_validator(document, "RECEIVE").is_valid(wrong_type)


def test_the_ping_body_of_decisions_13_is_valid(document: dict[str, Any]) -> None:
    ping = {"type": "PING", "data": {"webhookId": 12, "sentAt": format_timestamp(datetime.now(UTC))}}
    notification_validator(document, PING).validate(ping)
    assert not notification_validator(document, PING).is_valid({"type": "PING", "data": {"webhookId": 12}})


def test_the_section_has_every_notification_with_its_signature_headers(document: dict[str, Any]) -> None:
    webhooks = document["webhooks"]
    assert set(webhooks) == {*NotificationType, PING}
    for kind, item in webhooks.items():
        operation = item["post"]
        headers = {p["name"]: p for p in operation["parameters"] if p["in"] == "header"}
        assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature"}, kind
        assert all(header["required"] for header in headers.values())
        assert operation["requestBody"]["required"] is True
        assert set(operation["x-event-types"]) == {e.value for e in NOTIFIED_BY[kind]}


def test_every_event_type_is_mapped_to_the_notification_its_events_carry() -> None:
    for event in EVENTS:
        assert event.webhook_type in NOTIFIED_BY[event.type], event
    seen = [event for kind in NotificationType for event in NOTIFIED_BY[kind]]
    # REC and COBR (Pix Automático) are routed to /webhookrec's and /webhookcobr's registrations by
    # pixcore.events.RecurringRoute, apart from the notifications of /api/webhooks.
    recurring = {EventType.REC, EventType.COBR}
    assert sorted(seen) == sorted(set(EventType) - recurring), "each eventType receives one notification type"
    assert set(NOTIFIED_BY[PING]) == set(REGISTRABLE)  # a key's webhook gets no test event


def test_the_registration_event_type_is_the_enum_of_the_mapping(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert schemas["WebhookIn"]["properties"]["eventType"]["enum"] == [e.value for e in REGISTRABLE]
    webhook_out_type = schemas["WebhookOut"]["properties"]["type"]
    reference = webhook_out_type.get("$ref") or webhook_out_type["allOf"][0]["$ref"]  # described: allOf
    assert schemas[reference.rsplit("/", 1)[1]]["enum"] == [e.value for e in EventType]


@pytest.mark.parametrize("tx_id", [None, "a" * 26])
def test_a_key_webhook_gets_the_pix_as_get_pix_shows_it(document: dict[str, Any], tx_id: str | None) -> None:
    at = datetime(2026, 3, 15, 14, 40, 51, 310000, tzinfo=UTC)
    event = KeyPixEvent("maria@example.com", "E98765432202603151440xY7wV5uT3sR", 3750, at, tx_id)
    sent = json.loads(encode_body(json.loads(as_sent(payload(event)))))
    notification_validator(document, NotificationType.PIX).validate(sent)
    shown = pix_out(ReceivedPix("E98765432202603151440xY7wV5uT3sR", tx_id, 3750, at, (), "maria@example.com"))
    assert sent == {"pix": [msgspec.to_builtins(shown)]}
    assert sent["pix"][0]["valor"] == "37.50"
    assert not notification_validator(document, NotificationType.PIX).is_valid({"pix": [{"valor": "1.00"}]})


def test_a_key_webhook_gets_the_parts_of_a_cobvs_payment_as_get_pix_shows_them(
    document: dict[str, Any],
) -> None:
    at = datetime(2026, 3, 15, 14, 40, 51, 310000, tzinfo=UTC)
    parts = DueAmount(original=200_00, rebate=10_00, discount=0, fine=4_00, interest=4_00)
    e2e, key = "E98765432202603151440xY7wV5uT3sR", "maria@example.com"
    event = KeyPixEvent(key, e2e, parts.final, at, "a" * 26, amount_parts=parts)
    sent = json.loads(encode_body(json.loads(as_sent(payload(event)))))
    notification_validator(document, NotificationType.PIX).validate(sent)
    shown = pix_out(ReceivedPix(e2e, "a" * 26, parts.final, at, (), key, parts))
    assert sent == {"pix": [msgspec.to_builtins(shown)]}
    assert sent["pix"][0]["componentesValor"] == {
        "original": {"valor": "200.00"},
        "multa": {"valor": "4.00"},
        "juros": {"valor": "4.00"},
        "abatimento": {"valor": "10.00"},
    }
    unknown = sent["pix"][0] | {
        "componentesValor": {"original": {"valor": "1.00"}, "saque": {"valor": "1.00"}}
    }
    assert not notification_validator(document, NotificationType.PIX).is_valid({"pix": [unknown]})


@pytest.mark.parametrize("kind", ["saque", "troco"])
def test_a_key_webhook_gets_a_pix_saques_or_trocos_cash_as_get_pix_shows_it(
    document: dict[str, Any], kind: str
) -> None:
    at = datetime(2026, 3, 15, 14, 40, 51, 310000, tzinfo=UTC)
    cash = CashPart(kind=kind, amount=20_00, agent="AGTEC", facilitator="12345678")
    purchase = 0 if kind == "saque" else 80_00
    parts = DueAmount(original=purchase, rebate=0, discount=0, fine=0, interest=0, cash=cash)
    e2e, key = "E98765432202603151440xY7wV5uT3sR", "maria@example.com"
    event = KeyPixEvent(key, e2e, parts.final, at, "a" * 26, amount_parts=parts)
    sent = json.loads(encode_body(json.loads(as_sent(payload(event)))))
    notification_validator(document, NotificationType.PIX).validate(sent)
    shown = pix_out(ReceivedPix(e2e, "a" * 26, parts.final, at, (), key, parts))
    assert sent == {"pix": [msgspec.to_builtins(shown)]}
    assert sent["pix"][0]["valor"] == format_amount_string(purchase + 20_00)
    assert sent["pix"][0]["componentesValor"] == {
        "original": {"valor": format_amount_string(purchase)},
        kind: {"valor": "20.00", "modalidadeAgente": "AGTEC", "prestadorDoServicoDeSaque": "12345678"},
    }


def _refund(refund_id: str, status: RefundStatus, at: datetime, **changes: Any) -> Refund:
    return Refund(
        kind=RefundKind.SENT,
        account_id=1,
        original_transaction_id=2,
        refund_id=refund_id,
        rtr_id="D12345678202603151502kL9mN8bV7cX",
        amount=12_00,
        nature=RefundNature.ORIGINAL,
        requested_at=at,
        process_after=at,
        transaction_id=3,
        reserved=status is not RefundStatus.NAO_REALIZADO,
        id=4,
        status=status,
        finished_at=at + timedelta(seconds=5),
        **changes,
    )


def test_a_refund_at_its_final_status_posts_the_pix_with_its_devolucoes_as_get_pix_shows_them(
    document: dict[str, Any],
) -> None:
    at = datetime(2026, 3, 15, 14, 40, 51, 310000, tzinfo=UTC)
    refunds = (
        _refund("made", RefundStatus.DEVOLVIDO, at, description="Sorry"),
        _refund("short", RefundStatus.NAO_REALIZADO, at, reason="Saldo insuficiente"),
    )
    event = KeyPixEvent("maria@example.com", "E98765432202603151440xY7wV5uT3sR", 37_50, at, "a" * 26, refunds)
    sent = json.loads(encode_body(json.loads(as_sent(payload(event)))))
    notification_validator(document, NotificationType.PIX).validate(sent)
    received = ReceivedPix(
        "E98765432202603151440xY7wV5uT3sR", "a" * 26, 37_50, at, refunds, "maria@example.com"
    )
    assert sent == {"pix": [msgspec.to_builtins(pix_out(received))]}
    made, short = sent["pix"][0]["devolucoes"]
    assert (made["status"], made["descricao"], made["horario"]["liquidacao"]) == (
        "DEVOLVIDO",
        "Sorry",
        "2026-03-15T14:40:56.310Z",
    )
    assert (short["status"], short["motivo"], set(short["horario"])) == (
        "NAO_REALIZADO",
        "Saldo insuficiente",
        {"solicitacao"},
    )
