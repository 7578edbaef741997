"""Notifications: typed events, and ``pixinfra.event_payloads.payload`` writing exactly the fields of
the spec's Events table.

The expected payloads are written out literally, key by key in the order the builders that
came before the typed events (``transfer_event``, ``receive_event``, ``refund_event``,
``med_event``) produced for the same inputs: the bytes a webhook receives must not change.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.accounts.accounts_service import open_account
from pixcore.events import (
    Event,
    Holder,
    MedEvent,
    NotificationType,
    ReceiveEvent,
    RefundDirection,
    Refunded,
    RefundEvent,
    TransferEvent,
)
from pixcore.money import MAX_CENTS
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.testing import InMemoryStore, PlainHasher
from pixcore.transfers.rules import SpiError
from pixcore.webhooks.rules import EventType
from pixinfra.event_payloads import payload
from tests.unit.usecase_helpers import HOLDER_CNPJ, HOLDER_CPF, OTHER_CNPJ

E2E = "E99999999202601011200abcdefghijk"
RETURN_ID = "D12345678202601020304abcdefghijk"
KEY = "6f1c2a4e-8b3d-4c5e-9f7a-0b1c2d3e4f5a"
TXID = "abcdefghijklmnopqrstuvwxyz123"
REFUNDED_AT = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
AMOUNT_STRING = re.compile(r"[0-9]+\.[0-9]{2}")

TRANSFER = TransferEvent(
    transaction_id=7,
    pix_key="pix@example.com",
    amount=1050,
    end_to_end_id=E2E,
    idempotency_key=uuid.UUID(KEY),
    creditor=Holder("Loja Exemplo", HOLDER_CNPJ),
    creditor_ispb="12345678",
    description="rent",
)
RECEIVE = ReceiveEvent(
    transaction_id=9, tx_id=TXID, amount=1050, end_to_end_id=E2E, debtor=Holder("Maria da Silva", HOLDER_CPF)
)
REFUND_SENT = RefundEvent(
    transaction_id=11,
    tx_id=TXID,
    amount=1050,
    end_to_end_id=E2E,
    refund=Refunded(500, RETURN_ID, REFUNDED_AT, "troca"),
    direction=RefundDirection.DEBIT,
)
REFUND_RECEIVED = RefundEvent(
    transaction_id=12,
    tx_id=None,
    amount=1050,
    end_to_end_id=E2E,
    refund=Refunded(1050, RETURN_ID, REFUNDED_AT, None),
    direction=RefundDirection.CREDIT,
)
MED = MedEvent(
    case_id=3, end_to_end_id=E2E, status=MedStatus.ACCEPTED, reason=MedReason.MED_FRAUDE, amount=1050
)

TRANSFER_PAYLOAD = {
    "type": "TRANSFER",
    "data": {
        "id": 7,
        "txId": None,
        "pixKey": "pix@example.com",
        "status": "LIQUIDATED",
        "payment": {"amount": "10.50", "currency": "BRL"},
        "endToEndId": E2E,
        "creditDebitType": "DEBIT",
        "idempotencyKey": KEY,
        "creditorAccount": {"name": "Loja Exemplo", "document": "**.222.333/0001-**", "ispb": "12345678"},
        "remittanceInformation": "rent",
    },
}
FAILED_TRANSFER_PAYLOAD = {
    "type": "TRANSFER",
    "data": {
        "id": 7,
        "txId": None,
        "pixKey": "pix@example.com",
        "status": "ERROR",
        "payment": {"amount": "10.50", "currency": "BRL"},
        "endToEndId": E2E,
        "creditDebitType": "DEBIT",
        "idempotencyKey": KEY,
        "creditorAccount": {"name": "Loja Exemplo", "document": "**.222.333/0001-**", "ispb": "12345678"},
        "remittanceInformation": "rent",
        "errorCode": "AB03",
    },
}
RECEIVE_PAYLOAD = {
    "type": "RECEIVE",
    "data": {
        "id": 9,
        "txId": TXID,
        "status": "LIQUIDATED",
        "payment": {"amount": "10.50", "currency": "BRL"},
        "endToEndId": E2E,
        "debtorAccount": {"name": "Maria da Silva", "document": "***.982.247-**"},
    },
}
REFUND_SENT_PAYLOAD = {
    "type": "REFUND",
    "data": {
        "id": 11,
        "txId": TXID,
        "status": "REFUNDED",
        "payment": {"amount": "10.50", "currency": "BRL"},
        "refunds": [
            {
                "status": "LIQUIDATED",
                "payment": {"amount": Decimal("5.00"), "currency": "BRL"},
                "endToEndId": RETURN_ID,
                "eventDate": "2026-01-02T03:04:05.678Z",
                "information": "troca",
            }
        ],
        "endToEndId": E2E,
        "creditDebitType": "DEBIT",
    },
}
REFUND_RECEIVED_PAYLOAD = {
    "type": "REFUND",
    "data": {
        "id": 12,
        "txId": None,
        "status": "REFUNDED",
        "payment": {"amount": "10.50", "currency": "BRL"},
        "refunds": [
            {
                "status": "LIQUIDATED",
                "payment": {"amount": Decimal("10.50"), "currency": "BRL"},
                "endToEndId": RETURN_ID,
                "eventDate": "2026-01-02T03:04:05.678Z",
                "information": "",
            }
        ],
        "endToEndId": E2E,
        "creditDebitType": "CREDIT",
    },
}
MED_PAYLOAD = {
    "type": "MED",
    "data": {
        "id": 3,
        "endToEndId": E2E,
        "status": "ACCEPTED",
        "reason": "MED_FRAUDE",
        "payment": {"amount": "10.50", "currency": "BRL"},
    },
}

EXAMPLES: dict[str, tuple[Event, dict[str, Any]]] = {
    "transfer": (TRANSFER, TRANSFER_PAYLOAD),
    "failed transfer": (replace(TRANSFER, error=SpiError.TIMEOUT), FAILED_TRANSFER_PAYLOAD),
    "receive": (RECEIVE, RECEIVE_PAYLOAD),
    "refund sent": (REFUND_SENT, REFUND_SENT_PAYLOAD),
    "refund received": (REFUND_RECEIVED, REFUND_RECEIVED_PAYLOAD),
    "med": (MED, MED_PAYLOAD),
}
EVERY_EVENT: list[Event] = [
    *(event for event, _ in EXAMPLES.values()),
    *(replace(TRANSFER, error=code) for code in SpiError),
    replace(RECEIVE, tx_id=None),
    *(replace(MED, status=status, reason=reason) for status in MedStatus for reason in MedReason),
]


def ordered(value: object) -> object:
    """``value`` with every mapping as its list of items, so that comparing also compares key order."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


@pytest.mark.parametrize(("event", "expected"), EXAMPLES.values(), ids=EXAMPLES.keys())
def test_each_payload_is_the_one_the_builders_wrote(event: Event, expected: dict[str, Any]) -> None:
    written = payload(event)

    assert written == expected
    assert ordered(written) == ordered(expected)  # the same keys in the same order, nested ones too


def test_the_comparison_sees_the_order_of_keys() -> None:
    assert ordered({"type": "MED", "data": {}}) != ordered({"data": {}, "type": "MED"})


@pytest.mark.parametrize("event", EVERY_EVENT)
def test_the_type_stored_is_the_payloads_type(event: Event) -> None:
    assert payload(event)["type"] == event.type
    assert isinstance(event.type, NotificationType)


def test_the_registration_types_follow_decisions_9() -> None:
    assert TRANSFER.webhook_type is EventType.CASH_OUT
    assert RECEIVE.webhook_type is EventType.CASH_IN
    assert REFUND_SENT.webhook_type is EventType.REFUND_IN
    assert REFUND_RECEIVED.webhook_type is EventType.REFUND_OUT
    assert [replace(MED, status=status).webhook_type for status in MedStatus] == [
        EventType.MED_CREATED,
        EventType.MED_ACCEPTED,
        EventType.MED_REJECTED,
    ]


async def test_the_fake_outbox_stores_the_event_and_where_it_goes() -> None:
    store = InMemoryStore()
    opened = await open_account(
        store.unit_of_work, PlainHasher(), ispb="99999999", name="Ana", document=HOLDER_CPF, city="RECIFE"
    )
    async with store.unit_of_work() as tx:
        for event in EVERY_EVENT:
            await tx.outbox.add(opened.account.id, event, REFUNDED_AT)
        await tx.commit()

    assert [item.event for item in store.outbox] == list(EVERY_EVENT)
    assert [payload(item.event) for item in store.outbox] == [payload(event) for event in EVERY_EVENT]
    assert [payload(item.event)["type"] for item in store.outbox] == [event.type for event in EVERY_EVENT]
    # The route is stored with the event: the notifier never reads it from the payload.
    assert [item.webhook_type for item in store.outbox] == [event.webhook_type for event in EVERY_EVENT]


def test_only_a_failed_transfer_carries_an_error_code() -> None:
    assert "errorCode" not in payload(TRANSFER)["data"]
    for code in SpiError:
        data = payload(replace(TRANSFER, error=code))["data"]
        assert (data["status"], data["errorCode"]) == ("ERROR", code.value)


def test_a_transfer_without_description_has_empty_remittance_information() -> None:
    assert payload(replace(TRANSFER, description=None))["data"]["remittanceInformation"] == ""


@pytest.mark.parametrize(
    ("document", "masked"),
    [
        (HOLDER_CPF, "***.982.247-**"),
        (HOLDER_CNPJ, "**.222.333/0001-**"),
        (OTHER_CNPJ, "**.ABC.345/01DE-**"),
    ],
)
def test_documents_are_masked(document: str, masked: str) -> None:
    transfer = payload(replace(TRANSFER, creditor=Holder("Loja", document)))
    receive = payload(replace(RECEIVE, debtor=Holder("Maria", document)))

    assert transfer["data"]["creditorAccount"]["document"] == masked
    assert receive["data"]["debtorAccount"]["document"] == masked
    assert document not in json.dumps(transfer)
    assert document not in json.dumps(receive)


def test_a_receipt_without_a_charge_has_a_null_tx_id() -> None:
    assert payload(replace(RECEIVE, tx_id=None))["data"]["txId"] is None


@pytest.mark.parametrize(("cents", "text"), [(1, "0.01"), (10, "0.10"), (100, "1.00"), (123456, "1234.56")])
def test_amounts_are_strings_with_two_decimals(cents: int, text: str) -> None:
    for event in (
        replace(TRANSFER, amount=cents),
        replace(RECEIVE, amount=cents),
        replace(MED, amount=cents),
    ):
        assert payload(event)["data"]["payment"]["amount"] == text


@given(st.integers(1, MAX_CENTS))
def test_every_amount_reads_back_as_its_centavos(cents: int) -> None:
    events: list[Event] = [
        replace(TRANSFER, amount=cents),
        replace(RECEIVE, amount=cents),
        replace(REFUND_SENT, amount=cents),
        replace(MED, amount=cents),
    ]
    for event in events:
        amount = payload(event)["data"]["payment"]["amount"]
        assert AMOUNT_STRING.fullmatch(amount)
        assert int(amount.replace(".", "")) == cents


@given(st.integers(1, MAX_CENTS))
def test_a_refunds_amount_is_an_exact_number_of_its_centavos(cents: int) -> None:
    event = replace(REFUND_SENT, refund=replace(REFUND_SENT.refund, amount=cents))
    amount = payload(event)["data"]["refunds"][0]["payment"]["amount"]

    assert isinstance(amount, Decimal)
    assert amount.as_tuple().exponent == -2
    assert amount * 100 == cents


def test_events_are_values() -> None:
    assert replace(REFUND_SENT) == REFUND_SENT
    assert len({REFUND_SENT, replace(REFUND_SENT), REFUND_RECEIVED}) == 2
    with pytest.raises(AttributeError):
        TRANSFER.amount = 1  # type: ignore[misc]
