"""The fake unit of work: staged changes, visible to others only after ``commit()``; and
``InMemoryStore``, the committed state that opens units of work."""

from __future__ import annotations

from functools import partial
from types import TracebackType
from typing import Self

from pixcore.testing._accounts import (
    InMemoryAccounts,
    InMemoryBalances,
    InMemoryCertificates,
    InMemoryCredentials,
    InMemoryPixKeys,
)
from pixcore.testing._batches import InMemoryDueBatches
from pixcore.testing._charges import InMemoryCharges
from pixcore.testing._locations import InMemoryLocations
from pixcore.testing._money import (
    InMemoryIdempotency,
    InMemoryLedger,
    InMemoryOutbox,
    InMemoryTransactions,
    InMemoryTransfers,
)
from pixcore.testing._network import InMemoryNetwork
from pixcore.testing._recurrences import (
    InMemoryPayerBank,
    InMemoryRecurrenceLocations,
    InMemoryRecurrenceRequests,
    InMemoryRecurrences,
    InMemoryRecurringCharges,
)
from pixcore.testing._refunds import InMemoryMed, InMemoryRefunds
from pixcore.testing._sessions import InMemoryConsoleSessions
from pixcore.testing._store import StoreState, Tables
from pixcore.testing._webhooks import InMemoryWebhooks
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["InMemoryStore", "InMemoryUnitOfWork"]


class ReadOnlyWrite(RuntimeError):
    """A read-only unit of work wrote."""

    def __init__(self) -> None:
        super().__init__(self.__doc__)


class InMemoryUnitOfWork:
    """One transaction on an :class:`InMemoryStore`. Leaving the block without ``commit()`` discards it.

    The repositories work only inside the block and until ``commit()`` or
    ``rollback()``: after either, the unit of work is finished, as a
    PostgreSQL transaction is, and the transfers it locked are free again.
    ``committed`` tells whether it committed. ``readonly``: a read-only transaction, which ends
    with ``ReadOnlyWrite`` if it staged any change (PostgreSQL refuses the write itself).
    """

    def __init__(self, store: StoreState, *, readonly: bool = False) -> None:
        self.store = store
        self.readonly = readonly
        self.accounts = InMemoryAccounts(self)
        self.balances = InMemoryBalances(self)
        self.keys = InMemoryPixKeys(self)
        self.credentials = InMemoryCredentials(self)
        self.certificates = InMemoryCertificates(self)
        self.sessions = InMemoryConsoleSessions(self)
        self.transactions = InMemoryTransactions(self)
        self.charges = InMemoryCharges(self)
        self.locations = InMemoryLocations(self)
        self.batches = InMemoryDueBatches(self)
        self.refunds = InMemoryRefunds(self)
        self.med = InMemoryMed(self)
        self.ledger = InMemoryLedger(self)
        self.transfers = InMemoryTransfers(self)
        self.idempotency = InMemoryIdempotency(self)
        self.outbox = InMemoryOutbox(self)
        self.webhooks = InMemoryWebhooks(self)
        self.recurrences = InMemoryRecurrences(self)
        self.recurrence_requests = InMemoryRecurrenceRequests(self)
        self.recurring_charges = InMemoryRecurringCharges(self)
        self.recurrence_locations = InMemoryRecurrenceLocations(self)
        self.payer_bank = InMemoryPayerBank(self)
        self.network = InMemoryNetwork(self)
        self.committed = False
        self._entered = False
        self._open = False
        self._changes = Tables()

    async def __aenter__(self) -> Self:
        if self._entered:
            raise RuntimeError("a unit of work is entered once")
        self._entered = self._open = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._open:
            await self.rollback()

    async def commit(self) -> None:
        changes = self._finish()
        self.store.apply(changes)  # on a conflict, nothing is applied and the changes are gone
        self.committed = True

    async def rollback(self) -> None:
        self._finish()

    def _finish(self) -> Tables:
        changes = self.active_changes()
        self._open = False
        self._changes = Tables()
        self.store.release_locks(self)
        if self.readonly and changes != Tables():
            raise ReadOnlyWrite()
        return changes

    def active_changes(self) -> Tables:
        """The rows this unit staged (its repositories write here); raises once it is finished."""
        if not self._open:
            state = "finished" if self._entered else "not open"
            raise RuntimeError(f"the unit of work is {state}")
        return self._changes


class InMemoryStore(StoreState):
    """The committed data (see :class:`~pixcore.testing._store.StoreState`), and its units of work."""

    def unit_of_work(self) -> InMemoryUnitOfWork:
        """A new unit of work on this store: the ``UnitOfWorkFactory``."""
        return InMemoryUnitOfWork(self)

    def reads(self) -> InMemoryReads:
        """The query endpoints' units of work on this store (``ReadUnitsOfWork``): read-only."""
        return InMemoryReads(self)


class InMemoryReads:
    """``ReadUnitsOfWork`` on a store, which has no replica: read-only units of work on it."""

    def __init__(self, store: InMemoryStore) -> None:
        self.store = store

    def uow(self, account_id: int) -> UnitOfWorkFactory:  # noqa: ARG002 - one store holds every account
        return partial(InMemoryUnitOfWork, self.store, readonly=True)
