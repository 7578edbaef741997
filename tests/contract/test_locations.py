"""The contract of ``LocationRepository`` and the location side of ``ChargeRepository``: a location
of an account, the charge it serves (a charge's ``loc_id``), linking and unlinking, and ``GET /loc``."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import timedelta

import pytest

from pixcore.charges.cob import ChargeKind
from pixcore.charges.locations import Location, LocationType, NewLocation
from pixcore.errors import LocationTaken
from pixcore.queries.standard import parse_location_query
from tests.contract.conftest import Backend
from tests.contract.rows import FAR, T0, add_account
from tests.contract.test_charges import _due_terms, _new_charge


def _new_location(account_id: int, *, minutes: int = 0, kind: LocationType = LocationType.COB) -> NewLocation:
    return NewLocation(
        account_id=account_id, token=uuid.uuid4().hex, type=kind, created_at=FAR + timedelta(minutes=minutes)
    )


async def test_a_location_reads_back_and_serves_no_charge(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        new = _new_location(account.id, kind=LocationType.COBV)
        location = await tx.locations.add(new)
        assert location == Location(**dataclasses.asdict(new), id=location.id)
        assert location.txid is None
        assert location.charge_id is None
        assert location.url("h/qr/v2/") == f"h/qr/v2/cobv/{new.token}"
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.locations.get(account.id, location.id) == location
        assert await tx.locations.lock(account.id, location.id) == location
        assert await tx.locations.get(other.id, location.id) is None  # another account's
        assert await tx.locations.lock(other.id, location.id) is None
        assert await tx.locations.get(account.id, location.id + 10**9) is None


async def test_a_new_charge_gets_a_location_of_its_own(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        charge = await tx.charges.add(_new_charge(account.id))
        assert charge.loc_id is not None
        assert charge.located
        location = await tx.locations.get(account.id, charge.loc_id)
        assert location is not None
        assert (location.token, location.type, location.created_at) == (
            charge.location_id,
            LocationType.COB,
            charge.created_at,
        )
        assert (location.txid, location.charge_id) == (charge.txid, charge.id)
        terms = _due_terms(T0)
        due = await tx.charges.add(
            _new_charge(account.id, created_at=T0, kind=ChargeKind.COBV, due=terms, amount=terms.original)
        )
        assert due.loc_id is not None
        due_location = await tx.locations.get(account.id, due.loc_id)
        assert due_location is not None
        assert due_location.type is LocationType.COBV


async def test_link_unlink_and_relink(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        location = await tx.locations.add(_new_location(account.id))
        new = _new_charge(account.id, location_id=location.token, loc_id=location.id)
        charge = await tx.charges.add(new)
        assert (charge.loc_id, charge.location_id) == (location.id, location.token)
        served = await tx.locations.get(account.id, location.id)
        assert served is not None
        assert served.txid == charge.txid
        # A second charge at the same location is refused: a location serves one charge.
        with pytest.raises(LocationTaken):
            await tx.charges.add(_new_charge(account.id, location_id=location.token, loc_id=location.id))
        await tx.commit()

    async with backend.uow() as tx:
        await tx.charges.locate(charge.id, None, url=charge.location, br_code=charge.br_code)
        unlinked = await tx.charges.get(account.id, charge.txid)
        assert unlinked is not None
        assert (unlinked.loc_id, unlinked.location_id, unlinked.located) == (None, None, False)
        assert await tx.charges.get_by_location(location.token) is None
        assert await tx.charges.lock_by_location(location.token) is None
        free = await tx.locations.get(account.id, location.id)
        assert free is not None
        assert free.txid is None
        # Another charge may take the location now; the first one moves to a new location.
        other = await tx.charges.add(_new_charge(account.id, location_id=location.token, loc_id=location.id))
        assert await tx.charges.get_by_location(location.token) == other
        fresh = await tx.locations.add(_new_location(account.id, minutes=1))
        await tx.charges.locate(charge.id, fresh, url="h/qr/v2/" + fresh.token, br_code="code")
        moved = await tx.charges.get(account.id, charge.txid)
        assert moved is not None
        assert (moved.loc_id, moved.location_id, moved.location, moved.br_code) == (
            fresh.id,
            fresh.token,
            "h/qr/v2/" + fresh.token,
            "code",
        )
        assert moved.loc_created_at == fresh.created_at
        taken = await tx.locations.get(account.id, location.id)
        assert taken is not None
        with pytest.raises(LocationTaken):  # the location of `other`
            await tx.charges.locate(charge.id, taken, url="u", br_code="c")


async def test_search_by_window_type_and_charge(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        free = await tx.locations.add(_new_location(account.id, minutes=1))
        due = await tx.locations.add(_new_location(account.id, minutes=2, kind=LocationType.COBV))
        serving = await tx.locations.add(_new_location(account.id, minutes=3))
        await tx.charges.add(_new_charge(account.id, location_id=serving.token, loc_id=serving.id))
        await tx.locations.add(_new_location(other.id, minutes=2))
        await tx.locations.add(_new_location(account.id, minutes=60))  # outside the window

        async def ids(**filters: str) -> tuple[int, list[int]]:
            start = (FAR).isoformat()
            end = (FAR + timedelta(minutes=30)).isoformat()
            query = parse_location_query(inicio=start, fim=end, **filters)
            total, found = await tx.locations.search(account.id, query)
            return total, [location.id for location in found]

        assert await ids() == (3, [free.id, due.id, serving.id])
        assert await ids(location_type="cobv") == (1, [due.id])
        assert await ids(txid_present="true") == (1, [serving.id])
        assert await ids(txid_present="false", location_type="cob") == (1, [free.id])
        assert await ids(size="2", page="1") == (3, [serving.id])
        assert await ids(size="2", page="5") == (3, [])
        query = parse_location_query(inicio=FAR.isoformat(), fim=(FAR + timedelta(hours=1)).isoformat())
        _, found = await tx.locations.search(account.id, query)
        assert found[2].txid is not None
