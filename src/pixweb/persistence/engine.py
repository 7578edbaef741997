"""The one Piccolo engine of the process.

Tables are declared against ``DB`` at import time, but where the database is
(an external server or the embedded one) is known only at start-up, so the
engine is created unbound and :func:`bind` points it at a URL before the
first query.
"""

from __future__ import annotations

from piccolo.engine.postgres import PostgresEngine

__all__ = ["DB", "bind", "close_pool", "open_pool"]

DB = PostgresEngine(config={}, extensions=())


def bind(url: str) -> None:
    """Point the engine at ``url``. Only before the pool is opened."""
    if DB.pool is not None:
        raise RuntimeError("the engine is in use; close its pool before rebinding it")
    DB.config = {"dsn": url}


CONNECT_TIMEOUT = 10.0  # seconds; asyncpg's default (60) would hold a request that long


async def open_pool(*, min_size: int = 2, max_size: int = 20) -> None:
    """Open the pool. asyncpg replaces a connection found closed when it is next acquired, so
    the pool outlives a restart of the server: requests fail (503) while it is down, and the
    first ones after it is back reconnect."""
    await DB.start_connection_pool(min_size=min_size, max_size=max_size, timeout=CONNECT_TIMEOUT)


async def close_pool() -> None:
    if DB.pool is not None:
        await DB.close_connection_pool()
