"""Telling "the database is unreachable" apart from every other failure.

A PostgreSQL server that is down, restarting, shutting down or out of connection
slots shows itself in several ways: asyncpg's connection errors (SQLSTATE class
08), the operator-intervention ones (57P01-57P03), ``TooManyConnectionsError``,
an ``InterfaceError`` about a closed connection, an ``InternalClientError`` (a
connection cut mid-protocol), or a plain ``OSError`` (refused,
reset, a missing Unix socket) or ``TimeoutError`` raised while asyncpg connects.
None of these says anything about the request: the API answers them with 503 and
``Retry-After`` (``pixweb.errors``), and the background loops retry them.

An ``OSError`` or ``TimeoutError`` counts only when it was raised inside asyncpg,
so that a failing file read or a webhook timeout is not mistaken for an outage.
"""

from __future__ import annotations

import logging

import asyncpg
from asyncpg import exceptions as pg

__all__ = ["FailureStreak", "ReplicaReadCut", "database_unavailable"]


class ReplicaReadCut(Exception):
    """A read-only unit of work on the replica was cancelled halfway by a recovery conflict
    (``pixinfra.postgres.replica``): not replayed (a use case may have acted on what it read),
    answered as an outage, 503 with ``Retry-After``."""


_OUTAGES: tuple[type[BaseException], ...] = (
    pg.PostgresConnectionError,  # 08xxx: the connection does not exist, failed, was rejected
    pg.AdminShutdownError,  # 57P01: the server is shutting down (fast or immediate mode)
    pg.CrashShutdownError,  # 57P02
    pg.CannotConnectNowError,  # 57P03: starting up, shutting down, in recovery
    pg.TooManyConnectionsError,  # 53300: no connection slot left
    # The protocol lost its footing: seen on a pooled connection the server had just cut (a fast
    # shutdown) before asyncpg noticed; asyncpg closes it when it goes back to the pool.
    pg.InternalClientError,
    ReplicaReadCut,
)


def _from_asyncpg(exc: BaseException) -> bool:
    traceback = exc.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_globals.get("__name__", "").startswith("asyncpg"):
            return True
        traceback = traceback.tb_next
    return False


def _one(exc: BaseException) -> bool:
    if isinstance(exc, _OUTAGES):
        return True
    if isinstance(exc, asyncpg.InterfaceError):
        return "closed" in str(exc)  # "connection is closed", "pool is closed"; not misuse
    if isinstance(exc, OSError | TimeoutError):
        return _from_asyncpg(exc)
    return False


def database_unavailable(exc: BaseException) -> bool:
    """True if ``exc``, or an error it was raised from or while handling, means the database
    cannot be reached right now (so the same request may succeed later)."""
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if _one(current):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False


class FailureStreak:
    """Rounds of a background loop failed in a row: how long to wait, and what to log.

    An unexpected error is logged with its traceback every time; an outage once when it starts
    and once when it ends. The wait before the next round doubles from ``base`` up to ``most``
    seconds while rounds fail, and is ``base`` again after a round that succeeds.
    """

    def __init__(self, log: logging.Logger, what: str, *, most: float = 2.0) -> None:
        self.log, self.what, self.most = log, what, most
        self.count = 0

    def failed(self, exc: Exception) -> None:
        self.count += 1
        if not database_unavailable(exc):
            self.log.error("%s round failed; retrying", self.what, exc_info=exc)
        elif self.count == 1:
            self.log.warning("%s paused: the database is unavailable (%r); retrying", self.what, exc)

    def succeeded(self) -> None:
        if self.count:
            self.log.warning("%s resumed after %d failed rounds", self.what, self.count)
        self.count = 0

    def pause(self, base: float) -> float:
        return min(base * 2 ** min(self.count, 16), max(base, self.most)) if self.count else base
