"""Bringing the database up for a process: resolve, create, migrate, bind, pool."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pixweb.persistence import engine
from pixweb.persistence.database import ensure_database, migrate, resolve_database_url
from pixweb.settings import Settings

__all__ = ["database_ready"]

# Piccolo finds its engine and apps through this module (also for `piccolo` commands).
os.environ.setdefault("PICCOLO_CONF", "pixweb.persistence.piccolo_conf")


@asynccontextmanager
async def database_ready(settings: Settings, *, pool_size: int | None = None) -> AsyncIterator[str]:
    """The migrated database, with the engine's pool open for the duration of the block.

    The pool holds at most ``pool_size`` connections (default: ``settings.db_pool_size``).

    If the pool is open on the same database already (a test that holds it
    while it runs an app), the block shares it and leaves it open.
    """
    url = resolve_database_url(settings)
    if engine.DB.pool is not None and engine.DB.config.get("dsn") == url:
        yield url
        return
    await ensure_database(url)
    engine.bind(url)
    await migrate(url)
    size = pool_size or settings.db_pool_size
    await engine.open_pool(min_size=min(2, size), max_size=size)
    try:
        yield url
    finally:
        await engine.close_pool()
