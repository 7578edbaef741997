"""Payload locations, the standard's ``/loc``: create, list, read, unlink, and their BR Code.

A location serves at most one charge (:mod:`pixcore.charges.locations`). Unlinking writes only the
charge's side (its ``loc_id`` and token cleared, under the locks of the location and the charge),
so a payment of the old BR Code, which finds its charge by the token under the charge's lock,
either came first or finds no charge.
"""

from __future__ import annotations

from dataclasses import dataclass

from pixcore.charges.cob import dynamic_code, new_location_id
from pixcore.charges.cob_service import load_account
from pixcore.charges.locations import Location, LocationType, NewLocation, parse_location_id
from pixcore.clock import Clock
from pixcore.errors import LocationNotFound
from pixcore.queries.standard import LocationQuery
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = [
    "LocationCode",
    "LocationListing",
    "create_location",
    "location_code",
    "read_location",
    "search_locations",
    "unlink_location",
]


async def create_location(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, location_type: LocationType
) -> Location:
    """``POST /loc``: a new location of the account, serving no charge yet."""
    async with uow() as tx:
        await load_account(tx, account_id)
        location = await tx.locations.add(
            NewLocation(
                account_id=account_id, token=new_location_id(), type=location_type, created_at=clock.now()
            )
        )
        await tx.commit()
    return location


@dataclass(frozen=True, slots=True)
class LocationListing:
    """A page of ``GET /loc``: ``total`` matches in all."""

    total: int
    locations: tuple[Location, ...]


async def search_locations(
    uow: UnitOfWorkFactory, *, account_id: int, query: LocationQuery
) -> LocationListing:
    """``GET /loc``: the account's locations created in the window, oldest first."""
    async with uow() as tx:
        total, locations = await tx.locations.search(account_id, query)
    return LocationListing(total, tuple(locations))


async def read_location(uow: UnitOfWorkFactory, *, account_id: int, location_id: str) -> Location:
    """``GET /loc/{id}``: the account's location with the txid of its charge, if any; another
    account's, or a text that is no id, is not found."""
    wanted = parse_location_id(location_id)
    async with uow() as tx:
        location = await tx.locations.get(account_id, wanted)
    if location is None:
        raise LocationNotFound()
    return location


async def unlink_location(uow: UnitOfWorkFactory, *, account_id: int, location_id: str) -> Location:
    """``DELETE /loc/{id}/txid``: the location no longer serves its charge (if it served one); the
    charge keeps its status but has no location: no ``loc``, no BR Code, its payload URL gone."""
    wanted = parse_location_id(location_id)
    async with uow() as tx:
        location = await tx.locations.lock(account_id, wanted)
        if location is None:
            raise LocationNotFound()
        if location.txid is not None:
            charge = await tx.charges.lock(account_id, location.txid)
            if charge is not None and charge.loc_id == location.id:
                await tx.charges.locate(charge.id, None, url=charge.location, br_code=charge.br_code)
        await tx.commit()
    return Location(
        account_id=location.account_id,
        token=location.token,
        type=location.type,
        created_at=location.created_at,
        id=location.id,
    )


@dataclass(frozen=True, slots=True)
class LocationCode:
    """``GET /loc/{id}/qrcode``: the location and the BR Code that points at it."""

    location: Location
    br_code: str


async def location_code(
    uow: UnitOfWorkFactory, *, account_id: int, location_id: str, location_prefix: str
) -> LocationCode:
    """The BR Code of the account's location: its charge's (with the amount of a ``cob``), or,
    serving none, one with the location's URL and the account's name and city, no amount (a
    payer's PSP reading it before a charge is linked finds no payload)."""
    wanted = parse_location_id(location_id)
    async with uow() as tx:
        location = await tx.locations.get(account_id, wanted)
        if location is None:
            raise LocationNotFound()
        charge = None if location.txid is None else await tx.charges.get(account_id, location.txid)
        account = await load_account(tx, account_id)
    if charge is not None and charge.loc_id == location.id:
        return LocationCode(location, charge.br_code)
    code = dynamic_code(
        location=location.url(location_prefix),
        merchant_name=account.name,
        merchant_city=account.city,
        amount=0,
    )
    return LocationCode(location, code)
