"""Bringing the database up for a process: resolve, create, migrate, open a :class:`Database`."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pixweb.persistence.database import ensure_database, migrate, resolve_database_url
from pixweb.persistence.pool import Database
from pixweb.settings import Settings

__all__ = ["database_ready"]

# Piccolo finds its apps (and, while migrating, its engine) through this module (also for
# `piccolo` commands).
os.environ.setdefault("PICCOLO_CONF", "pixweb.persistence.piccolo_conf")


@asynccontextmanager
async def database_ready(
    settings: Settings, *, pool_size: int | None = None, database: Database | None = None
) -> AsyncIterator[Database]:
    """The migrated database, open for the duration of the block.

    The pool holds at most ``pool_size`` connections (default: ``settings.db_pool_size``).

    ``database``: the object to open (the app's, which its readiness probe holds); one open
    already (a test's, shared with the app it runs) is used as it is and left open.
    """
    if database is not None and database.is_open:
        yield database
        return
    url = resolve_database_url(settings)
    await ensure_database(url)
    await migrate(url)
    size = pool_size or settings.db_pool_size
    opened = database or Database()
    await opened.open(url, min_size=min(2, size), max_size=size)
    try:
        yield opened
    finally:
        await opened.close()
