"""The process's PostgreSQL: one asyncpg pool, its transactions and its health.

A process creates one :class:`Database` where it starts (the app's lifespan, ``pixnotify run``,
each ``pixweb admin`` command, the test fixtures), opens it on a URL, and hands it to every
adapter that talks to PostgreSQL. Nothing in the code reaches a pool any other way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

__all__ = ["CONNECT_TIMEOUT", "Database", "keep_session"]

CONNECT_TIMEOUT = 10.0  # seconds; asyncpg's default (60) would hold a request that long


async def keep_session(connection: Any) -> None:
    """What a connection goes through on its way back to the pool, after asyncpg has rolled
    back a transaction left open (a cancelled request): nothing more.

    asyncpg's default also sends ``SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *;
    RESET ALL`` to the server: one more round trip on every request, about a third of a
    look-up's time. Pooled connections never hold session state (no session advisory locks,
    cursors, LISTEN or SET; the migration lock has a connection of its own), so there is
    nothing for it to undo.
    """


class Database:
    """One asyncpg pool, opened by :meth:`open` and closed by :meth:`close`.

    asyncpg replaces a connection found closed when it is next acquired, so the pool outlives a
    restart of the server: requests fail (503) while it is down, and the first ones after it is
    back reconnect.
    """

    def __init__(self) -> None:
        self._pool: asyncpg.Pool[asyncpg.Record] | None = None
        self.url: str | None = None

    async def open(self, url: str, *, min_size: int = 2, max_size: int = 20) -> None:
        """Open the pool on ``url``: at most ``max_size`` connections."""
        if self._pool is not None:
            raise RuntimeError("the database is open already; close it before opening it again")
        self._pool = await asyncpg.create_pool(
            dsn=url, min_size=min_size, max_size=max_size, timeout=CONNECT_TIMEOUT, reset=keep_session
        )
        self.url = url

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @property
    def is_open(self) -> bool:
        return self._pool is not None

    @property
    def pool(self) -> asyncpg.Pool[asyncpg.Record]:
        """The open pool (for statements outside a transaction); an error before :meth:`open`."""
        if self._pool is None:
            raise RuntimeError("the database is not open")
        return self._pool

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[PoolConnectionProxy[asyncpg.Record]]:
        """A connection of the pool for the block, given back afterwards."""
        async with self.pool.acquire() as connection:
            yield connection

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PoolConnectionProxy[asyncpg.Record]]:
        """A connection in a transaction: committed if the block ends normally, rolled back if it
        raises; the connection goes back to the pool either way."""
        async with self.pool.acquire() as connection, connection.transaction():
            yield connection
