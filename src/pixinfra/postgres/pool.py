"""The process's PostgreSQL: one asyncpg pool, its transactions and its health.

A process creates one :class:`Database` where it starts (the app's lifespan, ``pixnotify run``,
each ``pixweb admin`` command, the test fixtures), opens it on a URL, and hands it to every
adapter that talks to PostgreSQL. Nothing in the code reaches a pool any other way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from pixinfra.postgres.availability import database_unavailable
from pixinfra.postgres.url import parse_database_url

__all__ = ["CONNECT_TIMEOUT", "Database", "HostList", "connect", "host_list", "keep_session"]

CONNECT_TIMEOUT = 10.0  # seconds; asyncpg's default (60) would hold a request that long

SESSION_SETTINGS = {"plan_cache_mode": "force_generic_plan"}
"""Every pooled connection plans a prepared statement once, for any values.

asyncpg prepares each statement once per connection; PostgreSQL then chooses, on each execution,
between a plan for the values given (planned anew every time) and the generic plan kept with the
statement. On a table partitioned by month its estimate of the generic plan counts every month, so
it keeps choosing the plan for the values: a transaction list over 27 months was planned anew on
every request (1.5 ms of planning for 0.6 ms of execution). The generic plan leaves the months the
values rule out at the executor's start (run-time pruning), and every statement's generic plan is
index-driven (the query-plan tests check both modes)."""


class HostList:
    """The pool's ``connect`` for a URL naming several servers: each server is tried with a
    timeout of its own, starting from the one that was chosen last.

    asyncpg alone tries the servers in the URL's order within one timeout for them all: a first
    server whose packets are dropped (its machine is gone) would take the whole timeout of every
    new connection, and the next server would never be reached. Here a server that is down or of
    the wrong kind (``target_session_attrs``) costs at most one timeout, once: after a failover
    the new primary is tried first. Any other error (a refused password, an unknown database)
    is raised at once, as asyncpg raises it.
    """

    def __init__(self, url: str) -> None:
        self.addresses = parse_database_url(url).addresses
        self.first = 0  # index in addresses of the server tried first

    def chosen(self) -> dict[str, Any]:
        """``host`` and ``port`` of the server chosen last, for a client that connects by itself
        (Piccolo's engine); nothing with one server, whose URL says it all."""
        if len(self.addresses) < 2:
            return {}
        host, port = self.addresses[self.first]
        return {"host": host, "port": port}

    async def connect(self, dsn: str | None = None, **options: Any) -> asyncpg.Connection[asyncpg.Record]:
        count = len(self.addresses)
        if count < 2:
            return await asyncpg.connect(dsn, **options)
        failures: list[Exception] = []
        for step in range(count):
            index = (self.first + step) % count
            host, port = self.addresses[index]
            try:
                connection: asyncpg.Connection[asyncpg.Record] = await asyncpg.connect(
                    dsn, host=host, port=port, **options
                )
            except Exception as exc:
                if not database_unavailable(exc):
                    raise
                failures.append(exc)
                continue
            self.first = index
            return connection
        raise failures[-1]


@cache
def host_list(url: str) -> HostList:
    """The one :class:`HostList` of ``url`` in this process: what one connection learnt (which
    server to try first) the next one uses, the pool's and the others alike."""
    return HostList(url)


async def connect(url: str) -> asyncpg.Connection[asyncpg.Record]:
    """One connection outside the pool (creating the database, the migration lock), to the
    server of ``url`` that matches, as the pool chooses it."""
    return await host_list(url).connect(url, timeout=CONNECT_TIMEOUT)


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
    back reconnect. With several servers in the URL (:class:`HostList`), a failover is the same:
    connections to the old primary fail, new ones go to the server that is the primary now.
    """

    def __init__(self) -> None:
        self._pool: asyncpg.Pool[asyncpg.Record] | None = None
        self.url: str | None = None

    async def open(self, url: str, *, min_size: int = 2, max_size: int = 20) -> None:
        """Open the pool on ``url``: at most ``max_size`` connections."""
        if self._pool is not None:
            raise RuntimeError("the database is open already; close it before opening it again")
        self._pool = await asyncpg.create_pool(
            dsn=url,
            min_size=min_size,
            max_size=max_size,
            timeout=CONNECT_TIMEOUT,
            reset=keep_session,
            connect=host_list(url).connect,
            server_settings=SESSION_SETTINGS,
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
