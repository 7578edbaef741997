"""The fake of the charges port."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from pixcore.amount_parts import DueAmount
from pixcore.charges.cob import Charge, ChargeKind, ChargeLine, ChargeStatus, NewCharge
from pixcore.charges.locations import Location, NewLocation, location_type_of
from pixcore.charges.parts import location_taken
from pixcore.errors import DuplicateCharge, DuplicateExternalId
from pixcore.queries.standard import ChargeQuery
from pixcore.testing._store import IntegrityError, Repository

__all__ = ["InMemoryCharges"]


class InMemoryCharges(Repository):
    """Charges by id. ``lock*`` lock the row for the unit of work (``lock_expired`` skips rows
    another open unit holds, as ``SKIP LOCKED``), but a ``lock`` of a row held elsewhere does not
    wait: the fakes run one writer at a time (the PostgreSQL tests race the real locks)."""

    def _visible(self) -> dict[int, Charge]:
        return {**self._committed.charges, **self._staged.charges}

    def _find(self, match: dict[str, object]) -> Charge | None:
        for charge in self._visible().values():
            if all(getattr(charge, name) == value for name, value in match.items()):
                return charge
        return None

    async def add(self, charge: NewCharge) -> Charge:
        self._require_account(charge.account_id)
        if self._find({"account_id": charge.account_id, "txid": charge.txid}):
            raise DuplicateCharge(f"a charge with txid {charge.txid} exists already")
        if charge.external_id and self._find(
            {"account_id": charge.account_id, "external_id": charge.external_id}
        ):
            raise DuplicateExternalId(f"a cash-in with externalId {charge.external_id} exists already")
        fields = {f.name: getattr(charge, f.name) for f in dataclasses.fields(charge)}
        if charge.loc_id is None:  # a new location for it, as the adapter's INSERT makes one
            if charge.location_id is None:
                raise IntegrityError("a new charge needs a location")
            fields["loc_id"] = await self._new_location(charge)
        else:
            self._check_location(charge, charge.loc_id, charge.location_id)
        stored = Charge(**fields, id=self._uow.store.next_id("charges"), updated_at=charge.created_at)
        self._staged.charges[stored.id] = stored
        self._keep(stored)
        return stored

    def _keep(self, charge: Charge) -> None:
        """Keep the charge as its revision is now: its fields and status, without payment."""
        kept = dataclasses.replace(
            charge, transaction_id=None, paid_end_to_end_id=None, paid_at=None, paid_parts=None
        )
        self._staged.charge_revisions[charge.id, charge.revision] = kept

    async def revision(self, charge_id: int, revision: int) -> Charge | None:
        key = (charge_id, revision)
        return self._staged.charge_revisions.get(key) or self._committed.charge_revisions.get(key)

    async def _new_location(self, charge: NewCharge) -> int:
        token = charge.location_id or ""
        if any(location.token == token for location in self._locations().values()):
            raise IntegrityError(f"location {token} is taken")
        location = await self._uow.locations.add(
            NewLocation(
                account_id=charge.account_id,
                token=token,
                type=location_type_of(charge.kind),
                created_at=charge.created_at,
            )
        )
        return location.id

    def _locations(self) -> dict[int, Location]:
        return {**self._committed.locations, **self._staged.locations}

    def _check_location(self, charge: NewCharge, loc_id: int, token: str | None) -> None:
        """The foreign key (id, token, account, type) and the unique ``loc_id`` of the adapter."""
        location = self._locations().get(loc_id)
        if (
            location is None
            or location.token != token
            or location.account_id != charge.account_id
            or location.type is not location_type_of(charge.kind)
        ):
            raise IntegrityError(f"location {loc_id} does not match the charge")
        for other in self._visible().values():
            if other.loc_id == loc_id and (other.account_id, other.txid) != (charge.account_id, charge.txid):
                raise location_taken()

    async def get(self, account_id: int, txid: str) -> Charge | None:
        return self._find({"account_id": account_id, "txid": txid})

    async def get_by_location(self, location_id: str) -> Charge | None:
        return self._find({"location_id": location_id}) if location_id else None

    async def recent(self, account_id: int, limit: int, *, amount: int | None = None) -> list[ChargeLine]:
        mine = [
            charge
            for charge in self._visible().values()
            if charge.account_id == account_id and amount in (None, charge.amount)
        ]
        return [charge.line for charge in sorted(mine, key=lambda charge: charge.id, reverse=True)[:limit]]

    async def search(
        self, account_id: int, query: ChargeQuery, now: datetime, *, due: bool = False
    ) -> tuple[int, list[Charge]]:
        document = query.cpf or query.cnpj
        found = [
            c
            for c in self._visible().values()
            if c.account_id == account_id
            and (c.kind is ChargeKind.COBV) == due
            and query.start <= c.created_at <= query.end
            and (document is None or (c.debtor is not None and c.debtor.document == document))
            and (query.location_present is None or c.located == query.location_present)
            and (query.batch is None or c.batch_id == query.batch)
            and (query.status is None or c.status_at(now) is query.status)
        ]
        found.sort(key=lambda c: (c.created_at, c.id))
        start = query.page.offset
        return len(found), found[start : start + query.page.size]

    async def revise(self, charge: Charge) -> None:
        self._staged.charges[charge.id] = charge
        self._keep(charge)

    async def get_by_external_id(self, account_id: int, external_id: str) -> Charge | None:
        return self._find({"account_id": account_id, "external_id": external_id})

    def _locked(self, charge: Charge | None) -> Charge | None:
        if charge is not None:
            self._uow.store.lock_row("charges", charge.id, self._uow)
        return charge

    async def lock(self, account_id: int, txid: str) -> Charge | None:
        return self._locked(await self.get(account_id, txid))

    async def lock_by_location(self, location_id: str) -> Charge | None:
        return self._locked(await self.get_by_location(location_id))

    async def lock_expired(self, now: datetime, limit: int) -> list[Charge]:
        expired = [
            c for c in self._visible().values() if c.status is ChargeStatus.ATIVA and c.expires_at <= now
        ]
        expired.sort(key=lambda c: c.expires_at)
        locked: list[Charge] = []
        for charge in expired:
            if len(locked) == limit:
                break
            if self._uow.store.lock_row("charges", charge.id, self._uow):  # others' rows are skipped
                locked.append(charge)
        return locked

    async def update(
        self,
        charge_id: int,
        *,
        status: ChargeStatus,
        revision: int,
        at: datetime,
        transaction_id: int | None = None,
        paid_end_to_end_id: str | None = None,
        paid_parts: DueAmount | None = None,
    ) -> None:
        charge = self._visible()[charge_id]
        if paid_parts is not None and not _keeps_parts(charge, status):
            raise IntegrityError("only a paid cobv, Saque or Troco keeps the parts of its amount")
        updated = self._staged.charges[charge_id] = dataclasses.replace(
            charge,
            status=status,
            revision=revision,
            updated_at=at,
            transaction_id=transaction_id or charge.transaction_id,
            paid_end_to_end_id=paid_end_to_end_id or charge.paid_end_to_end_id,
            paid_at=at if status is ChargeStatus.CONCLUIDA else charge.paid_at,
            paid_parts=paid_parts or charge.paid_parts,
        )
        if revision != charge.revision:
            self._keep(updated)

    async def locate(self, charge_id: int, location: Location | None, *, url: str, br_code: str) -> None:
        charge = self._visible()[charge_id]
        if location is None:
            self._staged.charges[charge_id] = dataclasses.replace(
                charge, loc_id=None, location_id=None, loc_created_at=None
            )
            return
        self._check_location(charge, location.id, location.token)
        self._staged.charges[charge_id] = dataclasses.replace(
            charge,
            loc_id=location.id,
            location_id=location.token,
            location=url,
            br_code=br_code,
            loc_created_at=None if location.created_at == charge.created_at else location.created_at,
        )


def _keeps_parts(charge: Charge, status: ChargeStatus) -> bool:
    """The table's CHECK on ``paid_parts``: a paid ``cobv``, or a paid ``cob`` with a withdrawal."""
    kept = charge.kind is ChargeKind.COBV or (charge.kind is ChargeKind.COB and charge.withdrawal is not None)
    return status is ChargeStatus.CONCLUIDA and kept
