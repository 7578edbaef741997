"""Notification payloads: exactly the fields of the spec's Events table."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.events import receive_event, transfer_event
from pixcore.money import MAX_CENTS
from tests.unit.usecase_helpers import HOLDER_CNPJ, HOLDER_CPF, OTHER_CNPJ

TRANSFER_FIELDS = {
    "id",
    "txId",
    "pixKey",
    "status",
    "payment",
    "endToEndId",
    "creditDebitType",
    "idempotencyKey",
    "creditorAccount",
    "remittanceInformation",
}
RECEIVE_FIELDS = {"id", "txId", "status", "payment", "endToEndId", "debtorAccount"}
E2E = "E99999999202601011200abcdefghijk"
KEY = "6f1c2a4e-8b3d-4c5e-9f7a-0b1c2d3e4f5a"
AMOUNT_STRING = re.compile(r"[0-9]+\.[0-9]{2}")


def a_transfer_event(**changes: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "transaction_id": 7,
        "pix_key": "pix@example.com",
        "liquidated": True,
        "amount": 1050,
        "end_to_end_id": E2E,
        "idempotency_key": KEY,
        "creditor_name": "Loja Exemplo",
        "creditor_document": HOLDER_CNPJ,
        "creditor_ispb": "12345678",
        "description": "rent",
    }
    return transfer_event(**{**arguments, **changes})


def a_receive_event(**changes: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "transaction_id": 9,
        "tx_id": "abcdefghijklmnopqrstuvwxyz123",
        "amount": 1050,
        "end_to_end_id": E2E,
        "debtor_name": "Maria da Silva",
        "debtor_document": HOLDER_CPF,
    }
    return receive_event(**{**arguments, **changes})


def test_a_liquidated_transfer_event_has_exactly_the_spec_fields() -> None:
    event = a_transfer_event()

    assert set(event) == {"type", "data"}
    assert event["type"] == "TRANSFER"
    data = event["data"]
    assert set(data) == TRANSFER_FIELDS
    assert data == {
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
    }


def test_a_failed_transfer_event_is_error_and_carries_the_spi_code() -> None:
    data = a_transfer_event(liquidated=False, error_code="AB03")["data"]

    assert set(data) == TRANSFER_FIELDS | {"errorCode"}
    assert data["status"] == "ERROR"
    assert data["errorCode"] == "AB03"


def test_only_an_error_carries_an_error_code() -> None:
    assert "errorCode" not in a_transfer_event(liquidated=True)["data"]
    assert "errorCode" not in a_transfer_event(liquidated=False)["data"]


def test_a_transfer_without_description_has_empty_remittance_information() -> None:
    assert a_transfer_event(description=None)["data"]["remittanceInformation"] == ""


@pytest.mark.parametrize(
    ("document", "masked"),
    [
        (HOLDER_CPF, "***.982.247-**"),
        (HOLDER_CNPJ, "**.222.333/0001-**"),
        (OTHER_CNPJ, "**.ABC.345/01DE-**"),
    ],
)
def test_documents_are_masked(document: str, masked: str) -> None:
    assert a_transfer_event(creditor_document=document)["data"]["creditorAccount"]["document"] == masked
    assert a_receive_event(debtor_document=document)["data"]["debtorAccount"]["document"] == masked
    assert document not in json.dumps(a_transfer_event(creditor_document=document))
    assert document not in json.dumps(a_receive_event(debtor_document=document))


def test_a_receive_event_has_exactly_the_spec_fields() -> None:
    event = a_receive_event()

    assert event == {
        "type": "RECEIVE",
        "data": {
            "id": 9,
            "txId": "abcdefghijklmnopqrstuvwxyz123",
            "status": "LIQUIDATED",
            "payment": {"amount": "10.50", "currency": "BRL"},
            "endToEndId": E2E,
            "debtorAccount": {"name": "Maria da Silva", "document": "***.982.247-**"},
        },
    }
    assert set(event["data"]) == RECEIVE_FIELDS


def test_a_receipt_without_a_charge_has_a_null_tx_id() -> None:
    assert a_receive_event(tx_id=None)["data"]["txId"] is None


@pytest.mark.parametrize(("cents", "text"), [(1, "0.01"), (10, "0.10"), (100, "1.00"), (123456, "1234.56")])
def test_amounts_are_strings_with_two_decimals(cents: int, text: str) -> None:
    assert a_transfer_event(amount=cents)["data"]["payment"]["amount"] == text
    assert a_receive_event(amount=cents)["data"]["payment"]["amount"] == text


@given(st.integers(1, MAX_CENTS))
def test_every_amount_reads_back_as_its_centavos(cents: int) -> None:
    for event in (a_transfer_event(amount=cents), a_receive_event(amount=cents)):
        amount = event["data"]["payment"]["amount"]
        assert AMOUNT_STRING.fullmatch(amount)
        assert int(amount.replace(".", "")) == cents


def test_events_survive_a_json_round_trip() -> None:
    for event in (a_transfer_event(liquidated=False, error_code="AC06"), a_receive_event()):
        assert json.loads(json.dumps(event)) == event
