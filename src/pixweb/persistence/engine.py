"""The one Piccolo engine of the process.

Tables are declared against ``DB`` at import time, but where the database is
(an external server or the embedded one) is known only at start-up, so the
engine is created unbound and :func:`bind` points it at a URL before the
first query.
"""

from __future__ import annotations

from typing import Any

from piccolo.engine.postgres import PostgresEngine

__all__ = ["DB", "bind", "close_pool", "open_pool"]

DB = PostgresEngine(config={}, extensions=())


def bind(url: str) -> None:
    """Point the engine at ``url``. Only before the pool is opened."""
    if DB.pool is not None:
        raise RuntimeError("the engine is in use; close its pool before rebinding it")
    DB.config = {"dsn": url}


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


async def open_pool(*, min_size: int = 2, max_size: int = 20) -> None:
    """Open the pool. asyncpg replaces a connection found closed when it is next acquired, so
    the pool outlives a restart of the server: requests fail (503) while it is down, and the
    first ones after it is back reconnect."""
    await DB.start_connection_pool(
        min_size=min_size, max_size=max_size, timeout=CONNECT_TIMEOUT, reset=keep_session
    )


async def close_pool() -> None:
    if DB.pool is not None:
        await DB.close_connection_pool()
