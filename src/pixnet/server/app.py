"""The network's application: the DICT (``pixnet.server.directory``) and the SPI
(``pixnet.server.settlement``) over mutual TLS, every answer signed (``pixnet.server.common``),
and the SPI's clock: a payment its payee has not answered in time is rejected."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from aiohttp import web

from pixnet.directory.claims import ClaimPeriods
from pixnet.directory.policies import Buckets
from pixnet.server import claims, directory, med, settlement
from pixnet.server.common import NETWORK, Identity, Network, problems
from pixnet.settlement.spi import Spi
from pixnet.store.claims import PostgresDirectory
from pixnet.store.med import PostgresMed
from pixwire.xml import MAX_BODY

__all__ = ["Identity", "make_app"]

log = logging.getLogger(__name__)

DEFAULT_PERIODS = ClaimPeriods()
EXPIRY_INTERVAL = 0.5
"""Seconds between two looks for payments past their deadline."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


async def _expire_late_payments(spi: Spi) -> None:
    while True:
        try:
            await spi.expire()
        except Exception:  # a database hiccup: logged, and the next round tries again
            log.exception("the SPI could not expire late payments")
        await asyncio.sleep(EXPIRY_INTERVAL)


def make_app(
    pool: asyncpg.Pool[Any],
    identity: Identity,
    *,
    now: Callable[[], datetime] = _utc_now,
    payee_timeout: timedelta = timedelta(seconds=10),
    claim_periods: ClaimPeriods = DEFAULT_PERIODS,
) -> web.Application:
    """The network's application on ``pool`` (a migrated network database), signing with
    ``identity``; a payee has ``payee_timeout`` to answer a payment; a claim's periods are
    ``claim_periods``."""
    app = web.Application(middlewares=[problems], client_max_size=MAX_BODY)
    spi = Spi(pool, now, payee_timeout)
    app[NETWORK] = Network(
        pool, PostgresDirectory(pool), spi, identity, now, Buckets(now), claim_periods, PostgresMed(pool)
    )
    directory.add_routes(app)
    claims.add_routes(app)
    med.add_routes(app)
    settlement.add_routes(app)

    async def expiry(_: web.Application) -> AsyncIterator[None]:
        task = asyncio.create_task(_expire_late_payments(spi), name="pixnet-expiry")
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    app.cleanup_ctx.append(expiry)
    return app
