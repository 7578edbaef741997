"""What a process needs to start: the migrated database open (:func:`database_ready`), and the
shape of the webhook delivery loop the API process may run (:data:`DeliveryLoop`)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

from prometheus_client import CollectorRegistry

from pixinfra.postgres.clock import ClockKeeper
from pixinfra.postgres.database import ensure_database, migrate, resolve_database_url
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings

__all__ = ["DeliveryLoop", "database_ready", "replica_ready"]

DeliveryLoop = Callable[
    [Settings, Database, asyncio.Event, CollectorRegistry, ClockKeeper], Coroutine[Any, Any, None]
]
"""Webhook delivery inside the API process, until the event is set: ``pixnotify.deliver_in_process``.
``pixweb`` does not import ``pixnotify``; whoever composes the process (``pixservice``) hands the
loop to :func:`pixweb.app.create_app`, with the process's settings, database, metrics registry and
service clock (its keeper: retries are due by the clock the sandbox moves)."""

# Piccolo finds its apps (and, while migrating, its engine) through this module (also for
# `piccolo` commands).
os.environ.setdefault("PICCOLO_CONF", "pixinfra.postgres.piccolo_conf")


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


@asynccontextmanager
async def replica_ready(
    settings: Settings, *, pool_size: int | None = None
) -> AsyncIterator[Database | None]:
    """The read replica's database (``PIX_DATABASE_READ_URL``), open for the block; None when
    none is configured. Its pool connects on first use: a replica that is down at start costs
    nothing until a read tries it."""
    if settings.database_read_url is None:
        yield None
        return
    replica = Database()
    await replica.open(settings.database_read_url, min_size=0, max_size=pool_size or settings.db_pool_size)
    try:
        yield replica
    finally:
        await replica.close()
