"""Locations in pixcore, on the in-memory fakes: the rules of ``loc.id``, of ``/loc/{id}``, of
``GET /loc``'s query, and the use cases (create, link, move, unlink, the BR Code of a location)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore import brcode
from pixcore.accounts.rules import OpenedAccount
from pixcore.charges.cob import MAX_LOC_ID, ChargeRequest, RevisionFields, judge_loc_id
from pixcore.charges.cob_service import create_charge, get_charge, pay_charge, revise_charge
from pixcore.charges.location_service import (
    create_location,
    location_code,
    read_location,
    search_locations,
    unlink_location,
)
from pixcore.charges.locations import LocationType, parse_location_id, parse_location_type
from pixcore.clock import ManualClock
from pixcore.errors import ChargeNotFound, InvalidQuery, LocationNotFound, LocationTaken, ValidationError
from pixcore.problems import Problem
from pixcore.queries.standard import parse_location_query
from pixcore.testing import InMemoryStore, PlainHasher
from pixinfra.due_terms import whole
from pixweb.field_paths import wire_path
from tests.unit.charges.test_usecases_charges import PAYER, PREFIX, request
from tests.unit.usecase_helpers import open_test_account
from tests.unit.wire_rendering import wire_details


@pytest.fixture
async def holder(store: InMemoryStore, hasher: PlainHasher) -> OpenedAccount:
    return await open_test_account(store, hasher, keys=("holder@example.com",))


def _at(loc_id: int) -> ChargeRequest:
    """A ``cob`` body naming the location ``loc_id``."""
    return dataclasses.replace(request(), loc_id=loc_id)


@given(st.integers(min_value=1, max_value=MAX_LOC_ID))
def test_a_location_id_in_a_body_or_a_path_is_a_positive_int64(value: int) -> None:
    problems: list[str] = []
    assert judge_loc_id(problems, value) == value
    assert problems == []
    assert parse_location_id(str(value)) == value


@pytest.mark.parametrize("value", [0, -1, MAX_LOC_ID + 1, "1", 1.0, True, ""])
def test_anything_else_in_a_body_is_a_loc_id_rule(value: object) -> None:
    problems: list[Problem] = []
    assert judge_loc_id(problems, whole(value)) is None  # its type judged as the edge judges it
    assert [wire_path(field) for p in problems for field in p.fields] == ["loc.id"]


@pytest.mark.parametrize(
    "text", ["0", "-1", "+1", " 1", "1.0", "abc", "1" * 20, "9" * 19, "\u0661"]
)  # the last: an Arabic-Indic one
def test_anything_else_in_a_path_names_no_location(text: str) -> None:
    with pytest.raises(LocationNotFound):
        parse_location_id(text)


def test_the_location_types() -> None:
    assert parse_location_type("cob") is LocationType.COB
    assert parse_location_type("cobv") is LocationType.COBV
    for bad in ("COB", "pix", None, 1, ["cob"]):
        with pytest.raises(ValidationError) as refused:
            parse_location_type(bad)
        assert wire_details(refused.value) == ["tipoCob: must be cob or cobv"]


def test_the_list_query_names_every_broken_parameter() -> None:
    with pytest.raises(InvalidQuery) as refused:
        parse_location_query(
            inicio="2026-03-02T00:00:00Z", fim="2026-03-01T00:00:00Z", txid_present="1", location_type="x"
        )
    assert [d.split(":")[0] for d in wire_details(refused.value)] == ["fim", "txIdPresente", "tipoCob"]
    query = parse_location_query(
        inicio="2026-03-01T00:00:00Z", fim="2026-03-02T00:00:00Z", txid_present="false", location_type=""
    )
    assert (query.txid_present, query.type) == (False, None)


def test_a_revision_may_name_only_a_location() -> None:
    assert RevisionFields(loc_id=5).revises
    assert not RevisionFields(loc_id=5).cancels()
    with pytest.raises(ValidationError):
        RevisionFields(loc_id=5, status="REMOVIDA_PELO_USUARIO_RECEBEDOR").cancels()


async def test_link_move_unlink_and_the_code(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    uow, account_id = store.unit_of_work, holder.account.id
    location = await create_location(uow, clock, account_id=account_id, location_type=LocationType.COB)
    assert location.txid is None
    clock.advance(60)
    charge = await create_charge(
        uow, clock, account_id=account_id, txid="A" * 30, request=_at(location.id), location_prefix=PREFIX
    )
    assert (charge.loc_id, charge.location_id) == (location.id, location.token)
    assert charge.loc_created_at == location.created_at
    assert charge.location == PREFIX + location.token
    assert brcode.decode(charge.br_code).location == charge.location
    assert (await read_location(uow, account_id=account_id, location_id=str(location.id))).txid == charge.txid
    code = await location_code(
        uow, account_id=account_id, location_id=str(location.id), location_prefix=PREFIX
    )
    assert code.br_code == charge.br_code

    with pytest.raises(LocationTaken):  # a location serves one charge
        await create_charge(
            uow, clock, account_id=account_id, txid="B" * 30, request=_at(location.id), location_prefix=PREFIX
        )

    unlinked = await unlink_location(uow, account_id=account_id, location_id=str(location.id))
    assert unlinked.txid is None
    after = await get_charge(uow, account_id=account_id, txid=charge.txid)
    assert (after.loc_id, after.location_id, after.located) == (None, None, False)
    assert after.status is charge.status
    with pytest.raises(ChargeNotFound):  # its BR Code pays nothing now
        await pay_charge(uow, clock, location_id=location.token, payer=PAYER)
    free_code = await location_code(
        uow, account_id=account_id, location_id=str(location.id), location_prefix=PREFIX
    )
    decoded = brcode.decode(free_code.br_code)
    assert (decoded.location, decoded.amount) == (PREFIX + location.token, None)

    fresh = await create_location(uow, clock, account_id=account_id, location_type=LocationType.COB)
    moved = await revise_charge(
        uow,
        clock,
        account_id=account_id,
        txid=charge.txid,
        fields=RevisionFields(loc_id=fresh.id),
        location_prefix=PREFIX,
    )
    assert (moved.loc_id, moved.location_id, moved.revision) == (fresh.id, fresh.token, 1)
    assert await get_charge(uow, account_id=account_id, txid=charge.txid) == moved
    paid = await pay_charge(uow, clock, location_id=fresh.token, payer=PAYER)
    assert paid.charge.txid == charge.txid


async def test_a_location_of_another_account_or_type_is_refused(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, hasher: PlainHasher
) -> None:
    uow, account_id = store.unit_of_work, holder.account.id
    other = await open_test_account(store, hasher, keys=("other@example.com",))
    theirs = await create_location(uow, clock, account_id=other.account.id, location_type=LocationType.COB)
    due = await create_location(uow, clock, account_id=account_id, location_type=LocationType.COBV)
    for loc_id, words in [(theirs.id, "no location of your account"), (due.id, "tipoCob cobv, not cob")]:
        with pytest.raises(ValidationError) as refused:
            await create_charge(
                uow, clock, account_id=account_id, txid="C" * 30, request=_at(loc_id), location_prefix=PREFIX
            )
        assert words in wire_details(refused.value)[0]
    for use in (read_location, unlink_location):
        with pytest.raises(LocationNotFound):
            await use(uow, account_id=account_id, location_id=str(theirs.id))
    query = parse_location_query(inicio="2000-01-01T00:00:00Z", fim="2100-01-01T00:00:00Z")
    listing = await search_locations(uow, account_id=account_id, query=query)
    assert [location.id for location in listing.locations] == [due.id]
