"""Reads that may run on the replica (``pixinfra.postgres.replica``): a read-only unit of work of
one account, and the transaction queries, each on the database the router chose for the account.

A replica that fails as the read starts (its connection refused or cut) hands the read to the
primary, and so does one that cancels a statement for a recovery conflict; the client sees no
error for the replica's sake. A read unit of work cancelled halfway is not replayed: 503.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import date
from functools import partial
from types import TracebackType
from typing import Self, TypeVar

from pixcore.queries.rules import DayFlow, Identifier, ListQuery, TransactionPage, TransactionView
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.queries import PostgresTransactionQueries
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.replica import ReadRouter, Route, recovery_conflict

__all__ = ["ReadUnitOfWork", "Reads", "RoutedTransactionQueries"]

T = TypeVar("T")


class ReadUnitOfWork(PostgresUnitOfWork):
    """A read-only transaction on the database ``router`` chooses for ``account_id``: the
    server refuses any write in it, wherever it runs."""

    def __init__(self, router: ReadRouter, account_id: int) -> None:
        super().__init__(router.primary, readonly=True)
        self.router = router
        self.account_id = account_id

    async def __aenter__(self) -> Self:
        self.database, route = await self.router.database_for(self.account_id)
        if route is not Route.REPLICA:
            return await super().__aenter__()
        return await self.router.first_on_replica(super().__aenter__, self._on_primary)

    async def _on_primary(self) -> Self:
        self.database = self.router.primary
        return await super().__aenter__()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await super().__aexit__(exc_type, exc, tb)
        if exc is not None and self.database is self.router.replica and recovery_conflict(exc):
            raise self.router.cut(exc) from exc


class RoutedTransactionQueries:
    """``TransactionQueries`` whose every read runs where the router sends its account's."""

    def __init__(self, router: ReadRouter) -> None:
        self.router = router
        self._primary = PostgresTransactionQueries(router.primary)
        self._replica = PostgresTransactionQueries(router.replica) if router.replica else self._primary

    async def _read(self, account_id: int, read: Callable[[PostgresTransactionQueries], Awaitable[T]]) -> T:
        _, route = await self.router.database_for(account_id)
        if route is not Route.REPLICA:
            return await read(self._primary)
        return await self.router.first_on_replica(partial(read, self._replica), partial(read, self._primary))

    async def list(self, account_id: int, query: ListQuery, *, cap: int | None = None) -> TransactionPage:
        return await self._read(account_id, lambda queries: queries.list(account_id, query, cap=cap))

    async def find(
        self, account_id: int, identifier: Identifier, *, pix_key: str | None = None
    ) -> TransactionView | None:
        return await self._read(
            account_id, lambda queries: queries.find(account_id, identifier, pix_key=pix_key)
        )

    async def daily_flows(self, account_id: int, first: date, last: date) -> Sequence[DayFlow]:
        return await self._read(account_id, lambda queries: queries.daily_flows(account_id, first, last))


class Reads:
    """What a read handler asks for: the read-only unit of work of the account it shows."""

    def __init__(self, router: ReadRouter) -> None:
        self.router = router

    def uow(self, account_id: int) -> UnitOfWorkFactory:
        """A factory of read-only units of work reading ``account_id``'s data, replica first."""
        return partial(ReadUnitOfWork, self.router, account_id)
