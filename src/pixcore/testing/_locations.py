"""The fake of the locations port."""

from __future__ import annotations

import dataclasses

from pixcore.charges.locations import Location, NewLocation
from pixcore.queries.standard import LocationQuery
from pixcore.testing._store import Repository

__all__ = ["InMemoryLocations"]


class InMemoryLocations(Repository):
    """Locations by id; the charge a location serves is read from the charges (their ``loc_id``)."""

    def _visible(self) -> dict[int, Location]:
        return {**self._committed.locations, **self._staged.locations}

    def _served(self, location: Location) -> Location:
        charges = {**self._committed.charges, **self._staged.charges}
        for charge in charges.values():
            if charge.loc_id == location.id:
                return dataclasses.replace(location, txid=charge.txid, charge_id=charge.id)
        return location

    async def add(self, location: NewLocation) -> Location:
        self._require_account(location.account_id)
        fields = {f.name: getattr(location, f.name) for f in dataclasses.fields(location)}
        stored = Location(**fields, id=self._uow.store.next_id("locations"))
        self._staged.locations[stored.id] = stored
        return stored

    async def get(self, account_id: int, location_id: int) -> Location | None:
        location = self._visible().get(location_id)
        if location is None or location.account_id != account_id:
            return None
        return self._served(location)

    async def lock(self, account_id: int, location_id: int) -> Location | None:
        location = await self.get(account_id, location_id)
        if location is not None:
            self._uow.store.lock_row("locations", location.id, self._uow)
        return location

    async def search(self, account_id: int, query: LocationQuery) -> tuple[int, list[Location]]:
        found: list[Location] = []
        for location in self._visible().values():
            served = self._served(location)
            if (
                location.account_id == account_id
                and query.start <= location.created_at <= query.end
                and (query.type is None or location.type is query.type)
                and (query.txid_present is None or (served.txid is not None) == query.txid_present)
            ):
                found.append(served)
        found.sort(key=lambda location: (location.created_at, location.id))
        start = query.page.offset
        return len(found), found[start : start + query.page.size]
