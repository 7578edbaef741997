"""The fakes of Pix Automático's ports: recurrences, their requests, recurring charges with their
attempts, recurrence locations, and the payer's bank of the sandbox.

Their rows live in :class:`RecurrenceTables` (a store's committed ones, a unit of work's staged
ones). The unique indexes of the adapter are checked on each write against what the unit sees,
and again at commit against what others committed meanwhile (``RecurrenceTables.conflict``); the
payer's bank stages its debits as changes, re-applied at commit to the committed balances, so two
units that both fit commit both and one that no longer fits fails, as the adapter's guarded
``UPDATE`` makes the second writer wait and then fail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import date
from typing import TypeVar

from pixcore.queries.standard import Page
from pixcore.recurrences.lifecycles import (
    AttemptStatus,
    RecurrenceStatus,
    RecurringChargeStatus,
    RequestStatus,
)
from pixcore.recurrences.queries import ChargeListQuery, LocationListQuery, RecurrenceListQuery
from pixcore.recurrences.records import (
    NewRecurrence,
    NewRecurrenceLocation,
    NewRecurrenceRequest,
    NewRecurringCharge,
    Payer,
    Recurrence,
    RecurrenceLocation,
    RecurrenceRequest,
    RecurringCharge,
)
from pixcore.recurrences.terms import RETRY_WINDOW, RetryPolicy, StatusChange
from pixcore.testing._recurrence_data import (
    PayerKey,
    RecurrenceTables,
    charge_conflict,
    recurrence_conflict,
    request_conflict,
)
from pixcore.testing._store import IntegrityError, Repository

__all__ = [
    "InMemoryPayerBank",
    "InMemoryRecurrenceLocations",
    "InMemoryRecurrenceRequests",
    "InMemoryRecurrences",
    "InMemoryRecurringCharges",
    "RecurrenceTables",
]

T = TypeVar("T")


def _key(payer: Payer) -> PayerKey:
    return (payer.ispb, payer.document)


def _page(rows: list[T], page: Page, order: Callable[[T], tuple[object, ...]]) -> tuple[int, list[T]]:
    ordered = sorted(rows, key=order)
    return len(ordered), ordered[page.offset : page.offset + page.size]


class _RecurrenceRows(Repository):
    @property
    def _staged_rows(self) -> RecurrenceTables:
        return self._staged.recurring

    @property
    def _committed_rows(self) -> RecurrenceTables:
        return self._committed.recurring

    def _all_recurrences(self) -> dict[int, Recurrence]:
        return {**self._committed_rows.recurrences, **self._staged_rows.recurrences}

    def _all_requests(self) -> dict[int, RecurrenceRequest]:
        return {**self._committed_rows.requests, **self._staged_rows.requests}

    def _all_charges(self) -> dict[int, RecurringCharge]:
        return {**self._committed_rows.charges, **self._staged_rows.charges}

    def _all_locations(self) -> dict[int, RecurrenceLocation]:
        return {**self._committed_rows.locations, **self._staged_rows.locations}

    def _recurrence_of(self, rec_id: str) -> Recurrence | None:
        return next((r for r in self._all_recurrences().values() if r.rec_id == rec_id), None)

    def _lock(self, table: str, row_id: int) -> bool:
        return self._uow.store.lock_row(table, row_id, self._uow)


class InMemoryRecurrences(_RecurrenceRows):
    async def add(self, recurrence: NewRecurrence) -> Recurrence:
        self._require_account(recurrence.account_id)
        if recurrence.loc_id is not None:
            self._check_location(recurrence.account_id, recurrence.loc_id)
        stored = Recurrence(
            **{f.name: getattr(recurrence, f.name) for f in dataclasses.fields(recurrence)},
            id=self._uow.store.next_id("recurrences"),
            history=(StatusChange(RecurrenceStatus.CRIADA, recurrence.created_at),),
            updated_at=recurrence.created_at,
        )
        self._write(stored)
        return stored

    def _check_location(self, account_id: int, loc_id: int) -> None:
        location = self._all_locations().get(loc_id)
        if location is None or location.account_id != account_id:
            raise IntegrityError(f"location {loc_id} is not the account's")

    def _write(self, recurrence: Recurrence) -> None:
        others = [r for i, r in self._all_recurrences().items() if i != recurrence.id]
        if (conflict := recurrence_conflict([*others, recurrence])) is not None:
            raise conflict
        self._staged_rows.recurrences[recurrence.id] = recurrence

    async def get(self, account_id: int, rec_id: str) -> Recurrence | None:
        found = self._recurrence_of(rec_id)
        return found if found is not None and found.account_id == account_id else None

    async def lock(self, account_id: int, rec_id: str) -> Recurrence | None:
        found = await self.get(account_id, rec_id)
        if found is not None:
            self._lock("recurrences", found.id)
        return found

    async def lock_any(self, rec_id: str) -> Recurrence | None:
        found = self._recurrence_of(rec_id)
        if found is not None:
            self._lock("recurrences", found.id)
        return found

    async def get_by_location(self, token: str) -> Recurrence | None:
        location = next((found for found in self._all_locations().values() if found.token == token), None)
        if location is None:
            return None
        return next((r for r in self._all_recurrences().values() if r.loc_id == location.id), None)

    async def save(self, recurrence: Recurrence) -> None:
        if recurrence.id not in self._all_recurrences():
            raise IntegrityError(f"recurrence {recurrence.id} does not exist")
        if recurrence.loc_id is not None:
            self._check_location(recurrence.account_id, recurrence.loc_id)
        self._write(recurrence)

    async def search(self, account_id: int, query: RecurrenceListQuery) -> tuple[int, list[Recurrence]]:
        def matches(r: Recurrence) -> bool:
            return (
                r.account_id == account_id
                and query.start <= r.created_at <= query.end
                and (query.cpf is None or r.debtor.document == query.cpf)
                and (query.cnpj is None or r.debtor.document == query.cnpj)
                and (query.location_present is None or (r.loc_id is not None) == query.location_present)
                and (query.status is None or r.status is query.status)
                and (query.agreement is None or r.agreement == query.agreement)
            )

        rows = [r for r in self._all_recurrences().values() if matches(r)]
        return _page(rows, query.page, lambda r: (r.created_at, r.id))


class InMemoryRecurrenceRequests(_RecurrenceRows):
    async def add(self, request: NewRecurrenceRequest) -> RecurrenceRequest:
        self._require_account(request.account_id)
        if request.recurrence_id not in self._all_recurrences():
            raise IntegrityError(f"recurrence {request.recurrence_id} does not exist")
        stored = RecurrenceRequest(
            **{f.name: getattr(request, f.name) for f in dataclasses.fields(request)},
            id=self._uow.store.next_id("recurrence_requests"),
            history=(StatusChange(RequestStatus.CRIADA, request.created_at),),
            updated_at=request.created_at,
        )
        self._write(stored)
        return stored

    def _write(self, request: RecurrenceRequest) -> None:
        others = [r for i, r in self._all_requests().items() if i != request.id]
        if (conflict := request_conflict([*others, request])) is not None:
            raise conflict
        self._staged_rows.requests[request.id] = request

    def _find(self, request_id: str) -> RecurrenceRequest | None:
        return next((r for r in self._all_requests().values() if r.request_id == request_id), None)

    async def get(self, account_id: int, request_id: str) -> RecurrenceRequest | None:
        found = self._find(request_id)
        return found if found is not None and found.account_id == account_id else None

    async def lock(self, account_id: int, request_id: str) -> RecurrenceRequest | None:
        found = await self.get(account_id, request_id)
        if found is not None:
            self._lock("recurrence_requests", found.id)
        return found

    async def lock_any(self, request_id: str) -> RecurrenceRequest | None:
        found = self._find(request_id)
        if found is not None:
            self._lock("recurrence_requests", found.id)
        return found

    async def of_recurrence(self, recurrence_id: int) -> list[RecurrenceRequest]:
        rows = [r for r in self._all_requests().values() if r.recurrence_id == recurrence_id]
        return sorted(rows, key=lambda r: (r.created_at, r.id))

    async def save(self, request: RecurrenceRequest) -> None:
        if request.id not in self._all_requests():
            raise IntegrityError(f"request {request.id} does not exist")
        self._write(request)


def _due(charge: RecurringCharge, day: date) -> bool:
    """The adapter's ``lock_due`` condition, in Python."""
    if not charge.status.live:
        return False
    pending = charge.pending
    if pending is not None:
        return pending.status is AttemptStatus.SOLICITADA or pending.settles_on <= day
    return charge.status is RecurringChargeStatus.ATIVA and (
        charge.retry_policy is RetryPolicy.NAO_PERMITE
        or len(charge.attempts) > 3
        or charge.first_date + RETRY_WINDOW <= day
    )


class InMemoryRecurringCharges(_RecurrenceRows):
    async def add(self, charge: NewRecurringCharge) -> RecurringCharge:
        self._require_account(charge.account_id)
        if charge.recurrence_id not in self._all_recurrences():
            raise IntegrityError(f"recurrence {charge.recurrence_id} does not exist")
        stored = RecurringCharge(
            **{f.name: getattr(charge, f.name) for f in dataclasses.fields(charge)},
            id=self._uow.store.next_id("recurring_charges"),
            history=(StatusChange(RecurringChargeStatus.CRIADA, charge.created_at),),
            attempts=(charge.first_attempt,),
            updated_at=charge.created_at,
        )
        self._write(stored)
        return stored

    def _write(self, charge: RecurringCharge) -> None:
        others = [c for i, c in self._all_charges().items() if i != charge.id]
        if (conflict := charge_conflict([*others, charge])) is not None:
            raise conflict
        numbers = [a.number for a in charge.attempts]
        if numbers != list(range(len(numbers))) or sum(a.status.pending for a in charge.attempts) > 1:
            raise IntegrityError("attempts are numbered from 0, at most one of them pending")
        self._staged_rows.charges[charge.id] = charge

    def _find(self, account_id: int, txid: str) -> RecurringCharge | None:
        return next(
            (c for c in self._all_charges().values() if c.account_id == account_id and c.txid == txid), None
        )

    async def get(self, account_id: int, txid: str) -> RecurringCharge | None:
        return self._find(account_id, txid)

    async def lock(self, account_id: int, txid: str) -> RecurringCharge | None:
        found = self._find(account_id, txid)
        if found is not None:
            self._lock("recurring_charges", found.id)
        return found

    async def lock_live(self, recurrence_id: int) -> list[RecurringCharge]:
        rows = [c for c in self._all_charges().values() if c.recurrence_id == recurrence_id and c.status.live]
        for charge in rows:
            self._lock("recurring_charges", charge.id)
        return sorted(rows, key=lambda c: (c.created_at, c.id))

    async def lock_due(self, day: date, limit: int) -> list[RecurringCharge]:
        due = sorted(
            (c for c in self._all_charges().values() if _due(c, day)),
            key=lambda c: (c.pending.settles_on if c.pending else c.first_date, c.id),
        )
        return [c for c in due if self._lock("recurring_charges", c.id)][:limit]

    async def save(self, charge: RecurringCharge) -> None:
        if charge.id not in self._all_charges():
            raise IntegrityError(f"recurring charge {charge.id} does not exist")
        self._write(charge)

    async def search(self, account_id: int, query: ChargeListQuery) -> tuple[int, list[RecurringCharge]]:
        recurrences = self._all_recurrences()

        def matches(c: RecurringCharge) -> bool:
            recurrence = recurrences[c.recurrence_id]
            return (
                c.account_id == account_id
                and query.start <= c.created_at <= query.end
                and (query.rec_id is None or c.rec_id == query.rec_id)
                and (query.cpf is None or recurrence.debtor.document == query.cpf)
                and (query.cnpj is None or recurrence.debtor.document == query.cnpj)
                and (query.status is None or c.status is query.status)
                and (query.agreement is None or recurrence.agreement == query.agreement)
            )

        rows = [c for c in self._all_charges().values() if matches(c)]
        return _page(rows, query.page, lambda c: (c.created_at, c.id))


class InMemoryRecurrenceLocations(_RecurrenceRows):
    async def add(self, location: NewRecurrenceLocation) -> RecurrenceLocation:
        self._require_account(location.account_id)
        if any(found.token == location.token for found in self._all_locations().values()):
            raise IntegrityError(f"location {location.token} is taken")
        stored = RecurrenceLocation(
            **{f.name: getattr(location, f.name) for f in dataclasses.fields(location)},
            id=self._uow.store.next_id("recurrence_locations"),
        )
        self._staged_rows.locations[stored.id] = stored
        return stored

    def _with_recurrence(self, location: RecurrenceLocation) -> RecurrenceLocation:
        at = next((r for r in self._all_recurrences().values() if r.loc_id == location.id), None)
        return dataclasses.replace(location, rec_id=None if at is None else at.rec_id)

    async def get(self, account_id: int, location_id: int) -> RecurrenceLocation | None:
        location = self._all_locations().get(location_id)
        if location is None or location.account_id != account_id:
            return None
        return self._with_recurrence(location)

    async def lock(self, account_id: int, location_id: int) -> RecurrenceLocation | None:
        found = await self.get(account_id, location_id)
        if found is not None:
            self._lock("recurrence_locations", found.id)
        return found

    async def search(self, account_id: int, query: LocationListQuery) -> tuple[int, list[RecurrenceLocation]]:
        recurrences = {r.loc_id: r for r in self._all_recurrences().values() if r.loc_id is not None}

        def matches(location: RecurrenceLocation) -> bool:
            at = recurrences.get(location.id)
            return (
                location.account_id == account_id
                and query.start <= location.created_at <= query.end
                and (query.rec_present is None or (at is not None) == query.rec_present)
                and (query.agreement is None or (at is not None and at.agreement == query.agreement))
            )

        rows = [self._with_recurrence(found) for found in self._all_locations().values() if matches(found)]
        return _page(rows, query.page, lambda found: (found.created_at, found.id))


class InMemoryPayerBank(_RecurrenceRows):
    def _visible(self, key: PayerKey) -> int:
        staged = self._staged_rows
        base = staged.balances.get(key, self._committed_rows.balances.get(key, 0))
        return base - staged.debits.get(key, 0)

    async def set_balance(self, payer: Payer, amount: int) -> None:
        if amount < 0:
            raise IntegrityError("a payer's balance is never below zero")
        key = _key(payer)
        self._staged_rows.balances[key] = amount
        self._staged_rows.debits.pop(key, None)

    async def balance(self, payer: Payer) -> int:
        return self._visible(_key(payer))

    async def balances(self, payers: Sequence[Payer]) -> list[int]:
        return [self._visible(_key(payer)) for payer in payers]

    async def debit(self, payer: Payer, amount: int) -> bool:
        if amount <= 0:
            raise IntegrityError("a debit moves a positive amount")
        key = _key(payer)
        if self._visible(key) < amount:
            return False
        self._staged_rows.debits[key] = self._staged_rows.debits.get(key, 0) + amount
        return True
