"""The rules of a transfer request, its idempotency key, its lifecycle and its fingerprint."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.errors import InvalidTransition, PixError, RuleViolation, ValidationError
from pixcore.keys import PixKeyType
from pixcore.money import MAX_CENTS, cents_to_decimal
from pixcore.transfers.rules import (
    DEFAULT_EXPIRATION,
    MAX_EXPIRATION,
    MAX_PAYMENT_FLOW,
    DirectoryEntry,
    Priority,
    TransferLifecycle,
    TransferRequest,
    TransferState,
    parse_idempotency_key,
)
from pixcore.transfers.transfer_service import request_fingerprint
from tests.unit.usecase_helpers import HOLDER_CPF, OTHER_CNPJ
from tests.unit.wire_rendering import wire_details, wire_message, wire_raises

VALID: dict[str, Any] = {
    "pix_key": "pix@example.com",
    "amount": Decimal("10.50"),
    "currency": "BRL",
    "priority": None,
    "expiration": None,
    "creditor_document": None,
    "description": None,
    "ispb_deny": None,
    "payment_flow": None,
}


def parse(**changes: Any) -> TransferRequest:
    return TransferRequest.parse(**{**VALID, **changes})


def problems_of(**changes: Any) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        parse(**changes)
    assert wire_message(caught.value).startswith("Invalid transfer: ")
    return wire_details(caught.value)


# -- TransferRequest.parse ---------------------------------------------------------------


def test_a_minimal_request_takes_the_defaults() -> None:
    request = parse()

    assert request.pix_key.type is PixKeyType.EMAIL
    assert request.pix_key.value == "pix@example.com"
    assert request.amount == 1050
    assert request.priority is Priority.NORM
    assert request.expiration == DEFAULT_EXPIRATION == 600
    assert request.creditor_document is None
    assert request.description is None
    assert request.ispb_deny == frozenset()


def test_a_full_request_keeps_every_field() -> None:
    request = parse(
        pix_key=HOLDER_CPF,
        amount=7,
        priority="HIGH",
        expiration=30,
        creditor_document=OTHER_CNPJ,
        description="x" * 140,
        ispb_deny=["12345678", "87654321"],
        payment_flow="INSTANT",
    )

    assert request.pix_key.type is PixKeyType.CPF
    assert request.amount == 700
    assert request.priority is Priority.HIGH
    assert request.expiration == 30
    assert request.creditor_document == OTHER_CNPJ
    assert request.description == "x" * 140
    assert request.ispb_deny == frozenset({"12345678", "87654321"})
    assert request.payment_flow == "INSTANT"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"pix_key": "not a key"}, "pixKey"),
        ({"pix_key": ""}, "pixKey"),
        ({"pix_key": "12345678900"}, "pixKey"),  # 11 digits: a CPF, with wrong check digits
        ({"amount": Decimal("10.123")}, "payment.amount"),
        ({"amount": 10.123}, "payment.amount"),
        ({"amount": 0}, "payment.amount"),
        ({"amount": Decimal("0.00")}, "payment.amount"),
        ({"amount": -1}, "payment.amount"),
        ({"amount": Decimal("-0.01")}, "payment.amount"),
        ({"amount": True}, "payment.amount"),
        ({"amount": float("nan")}, "payment.amount"),
        ({"amount": Decimal("NaN")}, "payment.amount"),
        ({"amount": float("inf")}, "payment.amount"),
        ({"currency": "USD"}, "payment.currency"),
        ({"currency": "brl"}, "payment.currency"),
        ({"priority": "URGENT"}, "priority"),
        ({"priority": "HIGH"}, "creditorDocument"),  # HIGH without creditorDocument
        ({"creditor_document": "12345678900"}, "creditorDocument"),
        ({"creditor_document": "529.982.247-25"}, "creditorDocument"),  # bare form only
        ({"priority": "HIGH", "creditor_document": ""}, "creditorDocument"),
        ({"expiration": 0}, "expiration"),
        ({"expiration": -1}, "expiration"),
        ({"expiration": MAX_EXPIRATION + 1}, "expiration"),
        ({"expiration": True}, "expiration"),
        ({"expiration": False}, "expiration"),
        ({"description": "x" * 141}, "description"),
        ({"ispb_deny": ["1234567"]}, "ispbDeny"),
        ({"ispb_deny": ["12345678", "ABCDEFGH"]}, "ispbDeny"),
    ],
)
def test_each_rule_of_the_request_is_a_400(changes: dict[str, Any], field: str) -> None:
    problems = problems_of(**changes)

    assert len(problems) == 1
    assert problems[0].startswith(f"{field}: ")


def test_every_broken_rule_is_reported_at_once() -> None:
    problems = problems_of(pix_key="?", amount=0, currency="EUR", expiration=0, description="x" * 141)

    assert [problem.split(":")[0] for problem in problems] == [
        "pixKey",
        "payment.amount",
        "payment.currency",
        "expiration",
        "description",
    ]


@pytest.mark.parametrize("seconds", [1, 2, DEFAULT_EXPIRATION, MAX_EXPIRATION - 1, MAX_EXPIRATION])
def test_expiration_bounds_are_inclusive(seconds: int) -> None:
    assert parse(expiration=seconds).expiration == seconds


def test_high_priority_with_a_valid_creditor_document_is_accepted() -> None:
    request = parse(priority="HIGH", creditor_document=HOLDER_CPF)

    assert request.priority is Priority.HIGH
    assert request.creditor_document == HOLDER_CPF


@given(st.integers(1, MAX_CENTS))
def test_any_amount_with_two_decimals_parses_to_its_centavos(cents: int) -> None:
    assert parse(amount=cents_to_decimal(cents)).amount == cents
    assert parse(amount=float(cents_to_decimal(cents))).amount == cents


@given(st.integers(-(10**6), 10**6))
def test_expiration_is_accepted_exactly_within_its_range(seconds: int) -> None:
    if 1 <= seconds <= MAX_EXPIRATION:
        assert parse(expiration=seconds).expiration == seconds
    else:
        assert problems_of(expiration=seconds) == [f"expiration: must be 1 to {MAX_EXPIRATION} seconds"]


# -- x-idempotency-key -------------------------------------------------------------------

V4 = uuid.UUID("6f1c2a4e-8b3d-4c5e-9f7a-0b1c2d3e4f5a")


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "garbage",
        "6f1c2a4e-8b3d-4c5e-9f7a",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",  # version 1 (fixed: xdist workers collect alike)
        str(uuid.uuid3(uuid.NAMESPACE_DNS, "example.com")),
        str(uuid.uuid5(uuid.NAMESPACE_DNS, "example.com")),
        "6f1c2a4e-8b3d-4c5e-0f7a-0b1c2d3e4f5a",  # version 4, but not the RFC 4122 variant
        "00000000-0000-0000-0000-000000000000",
    ],
)
def test_an_idempotency_key_other_than_a_uuid_v4_is_a_400(raw: str | None) -> None:
    with wire_raises(ValidationError, match="x-idempotency-key"):
        parse_idempotency_key(raw)


@pytest.mark.parametrize("raw", [str(V4), str(V4).upper()])
def test_a_uuid_v4_idempotency_key_is_accepted_in_either_case(raw: str) -> None:
    assert parse_idempotency_key(raw) == V4


@given(st.uuids(version=4))
def test_every_uuid_v4_is_accepted(key: uuid.UUID) -> None:
    assert parse_idempotency_key(str(key)) == key


# -- the lifecycle -----------------------------------------------------------------------


def test_a_transfer_starts_pending() -> None:
    assert TransferLifecycle().state is TransferState.PENDING


def test_a_pending_transfer_settles_to_completed() -> None:
    lifecycle = TransferLifecycle()

    assert lifecycle.settle() is TransferState.COMPLETED
    assert lifecycle.state is TransferState.COMPLETED


def test_a_pending_transfer_is_rejected_to_error() -> None:
    lifecycle = TransferLifecycle(TransferState.PENDING)

    assert lifecycle.reject() is TransferState.ERROR
    assert lifecycle.state is TransferState.ERROR


@pytest.mark.parametrize("state", [TransferState.COMPLETED, TransferState.ERROR])
@pytest.mark.parametrize("trigger", ["settle", "reject"])
def test_a_finished_transfer_refuses_every_trigger(state: TransferState, trigger: str) -> None:
    lifecycle = TransferLifecycle(state)

    with pytest.raises(InvalidTransition) as caught:
        getattr(lifecycle, trigger)()

    assert isinstance(caught.value, RuleViolation)
    assert isinstance(caught.value, PixError)
    assert state.value in caught.value.message
    assert lifecycle.state is state


def test_the_lifecycle_has_no_automatic_transitions() -> None:
    lifecycle = TransferLifecycle()

    assert not hasattr(lifecycle, "to_COMPLETED")
    assert not hasattr(lifecycle, "to_ERROR")


# -- request_fingerprint -----------------------------------------------------------------


def test_equal_requests_have_equal_fingerprints() -> None:
    assert request_fingerprint(parse()) == request_fingerprint(parse())
    # The same request, written differently, is the same request.
    same = parse(pix_key="PIX@Example.com", amount=10.5, expiration=DEFAULT_EXPIRATION, priority="NORM")
    assert request_fingerprint(same) == request_fingerprint(parse())
    assert request_fingerprint(parse(ispb_deny=["12345678", "87654321"])) == request_fingerprint(
        parse(ispb_deny=["87654321", "12345678"])
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"pix_key": "other@example.com"},
        {"amount": Decimal("10.51")},
        {"priority": "HIGH", "creditor_document": HOLDER_CPF},
        {"expiration": 601},
        {"creditor_document": HOLDER_CPF},
        {"description": "rent"},
        {"description": ""},
        {"ispb_deny": ["12345678"]},
        {"payment_flow": "INSTANT"},
    ],
)
def test_a_request_that_differs_in_any_field_has_another_fingerprint(changes: dict[str, Any]) -> None:
    assert request_fingerprint(parse(**changes)) != request_fingerprint(parse())


def test_a_fingerprint_is_a_sha256_hex_digest() -> None:
    fingerprint = request_fingerprint(parse())

    assert len(fingerprint) == 64
    assert set(fingerprint) <= set("0123456789abcdef")


@pytest.mark.parametrize(
    "text",
    [
        "{12345678-1234-4234-8234-123456789abc}",
        "urn:uuid:12345678-1234-4234-8234-123456789abc",
        "12345678123442348234123456789abc",
        " 12345678-1234-4234-8234-123456789abc",
        "12345678-1234-4234-c234-123456789abc",
    ],
)
def test_only_the_canonical_uuid4_form_is_an_idempotency_key(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_idempotency_key(text)


def test_a_directory_entry_reports_every_broken_rule_at_once() -> None:
    with pytest.raises(ValidationError) as caught:
        DirectoryEntry.parse(
            pix_key="not a key",
            ispb="123",
            name=" ",
            document="12345678900",
            bank_name="",
            branch="01",
            account_number="12a",
            behavior="maybe",
        )
    fields = {detail.split(":")[0] for detail in wire_details(caught.value)}
    assert fields == {"pixKey", "ispb", "name", "document", "bankName", "branch", "accountNumber", "behavior"}


def test_a_valid_directory_entry_is_canonical() -> None:
    entry = DirectoryEntry.parse(
        pix_key="Ana@Example.com",
        ispb="12345678",
        name=" Ana ",
        document="52998224725",
        bank_name="OTHER BANK",
        branch="0001",
        account_number="42",
        behavior="reject",
    )
    assert entry.key.value == "ana@example.com"
    assert entry.name == "Ana"
    assert entry.behavior == "reject"
    assert entry.account_id is None


def test_a_payment_flow_of_its_maximum_length_is_taken_and_one_more_refused() -> None:
    longest = "F" * MAX_PAYMENT_FLOW
    assert parse(payment_flow=longest).payment_flow == longest
    assert problems_of(payment_flow=longest + "F") == [f"paymentFlow: at most {MAX_PAYMENT_FLOW} characters"]
