"""The idempotency fingerprint covers every field of a transfer request, priority included.

Two requests that differ in one field only, whichever it is, have different fingerprints, and the
same idempotency key sent with the second one is ``IdempotencyKeyReused`` (never a replay of the
first, which would answer a request for another transfer with a transfer it did not ask for).
The fields are enumerated from the dataclass itself: a field added to ``TransferRequest`` without a
strategy here fails the test, so a new field cannot be left out of the fingerprint unnoticed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.clock import ManualClock
from pixcore.errors import IdempotencyKeyReused
from pixcore.keys import parse_pix_key
from pixcore.money import MAX_CENTS
from pixcore.testing import InMemoryStore, PlainHasher
from pixcore.transfers.rules import MAX_EXPIRATION, Priority, TransferRequest
from pixcore.transfers.transfer_service import create_transfer, request_fingerprint
from tests.unit.transfer_world import FUNDS, NORM_DELAY, SHOP, make_world
from tests.unit.usecase_helpers import HOLDER_CPF, ISPB, OTHER_CNPJ

FIELDS = [field.name for field in dataclasses.fields(TransferRequest)]

ISPBS = st.from_regex(r"[0-9]{8}", fullmatch=True)
TEXT = st.one_of(st.none(), st.text(max_size=20))

# Any value a field may take, to draw the one field that differs.
ANY_VALUE: dict[str, st.SearchStrategy[Any]] = {
    "pix_key": st.from_regex(r"[a-z]{1,12}@example\.com", fullmatch=True).map(parse_pix_key),
    "amount": st.integers(min_value=1, max_value=MAX_CENTS),
    "priority": st.sampled_from(Priority),
    "expiration": st.integers(min_value=1, max_value=MAX_EXPIRATION),
    "creditor_document": st.sampled_from([None, HOLDER_CPF, OTHER_CNPJ, SHOP.document]),
    "description": TEXT,
    "ispb_deny": st.frozensets(ISPBS, max_size=3),
    "payment_flow": TEXT,
}

# A request that the transfer world accepts: to the shop's key, within the funds.
ACCEPTED: st.SearchStrategy[TransferRequest] = st.builds(
    TransferRequest,
    pix_key=st.just(SHOP.key),
    amount=st.integers(min_value=1, max_value=FUNDS),
    priority=st.sampled_from(Priority),
    expiration=ANY_VALUE["expiration"],
    creditor_document=st.sampled_from([None, SHOP.document]),
    description=TEXT,
    ispb_deny=st.frozensets(ISPBS.filter(lambda ispb: ispb != SHOP.ispb), max_size=3),
    payment_flow=TEXT,
)


def test_every_field_of_a_request_has_a_strategy() -> None:
    assert sorted(ANY_VALUE) == sorted(FIELDS)


def _one_field_changed(data: st.DataObject, request: TransferRequest) -> TransferRequest:
    name = data.draw(st.sampled_from(FIELDS), label="field")
    value = data.draw(ANY_VALUE[name].filter(lambda v: v != getattr(request, name)), label="value")
    return dataclasses.replace(request, **{name: value})


@given(request=ACCEPTED, data=st.data())
def test_requests_differing_in_one_field_have_different_fingerprints(
    request: TransferRequest, data: st.DataObject
) -> None:
    other = _one_field_changed(data, request)

    assert request_fingerprint(other) != request_fingerprint(request)
    assert request_fingerprint(dataclasses.replace(request)) == request_fingerprint(request)


@pytest.mark.parametrize("name", FIELDS)
def test_each_field_alone_changes_the_fingerprint(name: str) -> None:
    """The example-based twin of the property: every field, each on its own, without luck."""
    request = TransferRequest(SHOP.key, 10_00, Priority.NORM, 600, HOLDER_CPF, "rent", frozenset(), "INSTANT")
    changed = {
        "pix_key": parse_pix_key("other@example.com"),
        "amount": 10_01,
        "priority": Priority.HIGH,
        "expiration": 601,
        "creditor_document": OTHER_CNPJ,
        "description": "rent!",
        "ispb_deny": frozenset({"12345678"}),
        "payment_flow": "APP",
    }

    assert request_fingerprint(dataclasses.replace(request, **{name: changed[name]})) != request_fingerprint(
        request
    )


def test_the_digest_of_a_request_is_the_one_stored_idempotency_records_hold() -> None:
    """Digests are stored with the idempotency keys: the same request must give the same digest
    across versions, or its retry after an upgrade is refused. These are digests of earlier versions."""
    plain = TransferRequest(parse_pix_key("shop@example.com"), 10_00, Priority.NORM, 600)
    full = TransferRequest(
        parse_pix_key("+5511987654321"),
        123_45,
        Priority.HIGH,
        3600,
        "12345678909",
        "Aluguel de março ✓",
        frozenset({"87654321", "12345678"}),
        "INSTANT",
    )

    assert request_fingerprint(plain) == "4eacd81155902821084ba8072da85d3b76b83b9f8f096a5011648418fc6ebe80"
    assert request_fingerprint(full) == "6c58cf35ce41b8863534bb0d9ae3cf4c78ae07d017bf919d624b8a8416f25d9c"


async def _send_twice(first: TransferRequest, second: TransferRequest) -> None:
    clock = ManualClock()
    store = InMemoryStore(clock=clock)
    world = await make_world(store, clock, PlainHasher())
    key = uuid.uuid4()
    for request in (first, second):
        await create_transfer(
            store.unit_of_work,
            world.directory,
            clock,
            account_id=world.sender.id,
            idempotency_key=key,
            request=request,
            ispb=ISPB,
            norm_delay=NORM_DELAY,
        )


@given(request=ACCEPTED, data=st.data())
def test_the_same_key_with_a_request_differing_in_one_field_is_refused(
    request: TransferRequest, data: st.DataObject
) -> None:
    other = _one_field_changed(data, request)

    asyncio.run(_send_twice(request, request))  # the same request again is a replay
    with pytest.raises(IdempotencyKeyReused):
        asyncio.run(_send_twice(request, other))
