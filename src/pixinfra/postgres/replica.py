"""Where a read goes: the replica at ``PIX_DATABASE_READ_URL`` when it has every write of the
account read, the primary otherwise.

Read-your-writes: after a client's request that may have written (any method but GET, HEAD and
OPTIONS), :meth:`ReadRouter.mark` records the primary's WAL position for that account, in the
``read_marks`` table on the primary (the one place every API process sees) and in this process's
memory (kept if the table could not be written). A read of that account on the replica first
waits, at most ``PIX_READ_WAIT_MS``, until the replica has replayed that position; past the bound
it reads the primary. A replica that does not answer (refused, timed out) sends every read to the
primary, with one log line, and is tried again after :data:`RETRY_AFTER` seconds.

Positions are integers: bytes since ``0/0`` (``pg_lsn - '0/0'``), compared in Python.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import TypeVar

from asyncpg import exceptions as pg

from pixinfra.postgres.availability import ReplicaReadCut, database_unavailable
from pixinfra.postgres.pool import Database

T = TypeVar("T")

__all__ = ["RETRY_AFTER", "ReadRouter", "Route", "recovery_conflict", "replica_lost"]

log = logging.getLogger(__name__)

RETRY_AFTER = 5.0
"""Seconds a lost replica is left alone before a read tries it again."""

CHECK_TIMEOUT = 1.0
"""Seconds a replica has to answer the position query (a connection included) before it counts
as lost: a dropped network would otherwise hold the read for the pool's connect timeout."""

UNMARKED_FOR = 60.0
"""Seconds an account whose mark could not be stored is read from the primary by this process."""

POLL = 0.005
"""Seconds between two looks at a lagging replica's position."""

MARK = """
INSERT INTO read_marks (account_id, lsn) VALUES ($1, (pg_current_wal_lsn() - '0/0')::bigint)
ON CONFLICT (account_id) DO UPDATE SET lsn = greatest(read_marks.lsn, EXCLUDED.lsn)
RETURNING lsn
"""
MARK_OF = "SELECT lsn FROM read_marks WHERE account_id = $1"
REPLAYED = """
SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END
        - '0/0')::bigint
"""
"""What the replica has replayed (a server that is no standby has everything it holds)."""


class Route(Enum):
    """Where a read went, and why (the metric's labels)."""

    REPLICA = ("replica", "caught_up")
    PRIMARY_LAG = ("primary", "lag")
    """The replica had not replayed the account's last write within the bound."""
    PRIMARY_UNAVAILABLE = ("primary", "replica_unavailable")
    """The replica did not answer, now or a moment ago."""
    PRIMARY_NO_MARK = ("primary", "mark_unknown")
    """The account's mark could not be stored or read on the primary."""
    PRIMARY_CONFLICT = ("primary", "recovery_conflict")
    """The replica cancelled the read for the WAL it had to replay (a recovery conflict)."""


def replica_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the replica is out of reach (rather than a mistake in a query)."""
    return isinstance(exc, TimeoutError) or database_unavailable(exc)


def recovery_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` is a standby cancelling a query for the WAL it must replay ("canceling
    statement due to conflict with recovery": SQLSTATE 40001, or 40P01 for a buffer-pin
    deadlock), past ``max_standby_streaming_delay``. The replica is well; the read is not."""
    return isinstance(exc, pg.SerializationError | pg.DeadlockDetectedError)


class ReadRouter:
    """Chooses the database of each read of an account; counts each choice with ``observe``."""

    def __init__(
        self,
        primary: Database,
        replica: Database | None = None,
        *,
        wait: float = 0.2,
        observe: Callable[[Route], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.primary = primary
        self.replica = replica
        self.wait = wait
        self._observe = observe or (lambda _route: None)
        self._clock = clock
        self._marks: dict[int, int] = {}
        self._unmarked: dict[int, float] = {}  # account -> until when its mark is unknown
        self._replayed = 0  # the highest position the replica was seen to have replayed
        self._lost_until: float | None = None

    @property
    def routes_reads(self) -> bool:
        return self.replica is not None

    async def mark(self, account_id: int) -> None:
        """Remember that ``account_id``'s client may just have written (a read of it waits for
        the replica to have replayed this far). Nothing without a replica."""
        if self.replica is None:
            return
        try:
            position = await self.primary.pool.fetchval(MARK, account_id)
        except Exception as exc:  # noqa: BLE001 - the write is done: its answer is not withheld
            # The position is unknown: this process reads the account from the primary for a
            # while. The others read it from the primary too while the primary (which the
            # failure says is out of reach) cannot tell them its mark.
            log.warning("the read mark of account %d was not stored: %r", account_id, exc)
            self._unmarked[account_id] = self._clock() + UNMARKED_FOR
            return
        self._unmarked.pop(account_id, None)
        self._marks[account_id] = max(self._marks.get(account_id, 0), int(position))

    async def database_for(self, account_id: int) -> tuple[Database, Route | None]:
        """The database to read ``account_id``'s data from, and the route taken (None: no replica
        configured, the primary as always). Never raises for the replica's sake."""
        replica = self.replica
        if replica is None:
            return self.primary, None
        if self._lost_until is not None and self._clock() < self._lost_until:
            return self._route(Route.PRIMARY_UNAVAILABLE)
        if (until := self._unmarked.get(account_id)) is not None:
            if self._clock() < until:
                return self._route(Route.PRIMARY_NO_MARK)
            del self._unmarked[account_id]
        try:
            stored = await self.primary.pool.fetchval(MARK_OF, account_id)
        except Exception:  # noqa: BLE001 - the primary answers the read itself, or the error
            return self._route(Route.PRIMARY_NO_MARK)
        mark = max(int(stored or 0), self._marks.get(account_id, 0))
        return self._route(Route.REPLICA if mark <= self._replayed else await self._wait_for(replica, mark))

    async def _wait_for(self, replica: Database, mark: int) -> Route:
        """Where a read goes that needs the replica to have replayed ``mark``: the replica once it
        has, the primary if it has not within the bound or does not answer."""
        deadline = self._clock() + self.wait
        try:
            while True:
                async with asyncio.timeout(CHECK_TIMEOUT):
                    replayed = int(await replica.pool.fetchval(REPLAYED))
                self._replayed = max(self._replayed, replayed)
                if replayed >= mark:
                    return Route.REPLICA
                left = deadline - self._clock()
                if left <= 0:
                    return Route.PRIMARY_LAG
                await asyncio.sleep(min(POLL, left))
        except Exception as exc:
            if not replica_lost(exc):
                raise
            self.lost(exc)
            return Route.PRIMARY_UNAVAILABLE

    def lost(self, exc: BaseException) -> None:
        """The replica did not answer: reads go to the primary for :data:`RETRY_AFTER` seconds.
        One log line per loss."""
        if self._lost_until is None:
            log.warning("the read replica is out of reach, reads go to the primary: %r", exc)
        self._lost_until = self._clock() + RETRY_AFTER

    def failed(self, exc: BaseException) -> None:
        """A read sent to the replica failed as it started: it goes to the primary (counted
        there), and so do the next ones for a while."""
        self.lost(exc)
        self._observe(Route.PRIMARY_UNAVAILABLE)

    def served(self) -> None:
        """A read sent to the replica has started there (counted once it has: one that fails as
        it starts is the primary's, :meth:`failed`)."""
        if self._lost_until is not None:
            log.info("the read replica answers again, reads go to it")
            self._lost_until = None
        self._observe(Route.REPLICA)

    async def first_on_replica(
        self, on_replica: Callable[[], Awaitable[T]], on_primary: Callable[[], Awaitable[T]]
    ) -> T:
        """``on_replica``'s result, or ``on_primary``'s when the replica is lost as it starts
        (:meth:`failed`) or cancels the read for a recovery conflict (:meth:`conflicted`); any
        other error is the read's own."""
        try:
            found = await on_replica()
        except Exception as exc:
            if recovery_conflict(exc):
                self.conflicted(exc)
            elif replica_lost(exc):
                self.failed(exc)
            else:
                raise
        else:
            self.served()
            return found
        return await on_primary()

    def conflicted(self, exc: BaseException) -> None:
        """A read on the replica was cancelled by a recovery conflict: that read goes to the
        primary (counted there); the replica keeps the next ones."""
        log.info("a read on the replica was cancelled by recovery, it goes to the primary: %r", exc)
        self._observe(Route.PRIMARY_CONFLICT)

    def cut(self, exc: BaseException) -> ReplicaReadCut:
        """What a read unit of work cut halfway by a recovery conflict raises: an outage of that
        read (503; its retry may read the primary or the replica again), counted and logged."""
        self.conflicted(exc)
        return ReplicaReadCut("a read on the replica was cancelled by recovery; try again")

    def _route(self, route: Route) -> tuple[Database, Route]:
        if route is Route.REPLICA and self.replica is not None:
            return self.replica, route
        self._observe(route)
        return self.primary, route
