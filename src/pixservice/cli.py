"""The ``pixweb`` command: the API's commands, with webhook delivery handed to ``pixweb serve``.

The notifier (:mod:`pixnotify`, with its HTTP client) is imported only by what uses it: the API
process that delivers and probes. An operator command never pays for it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pixweb.cli import Composition, compose_worker_app
from pixweb.cli import main as commands

if TYPE_CHECKING:
    from litestar import Litestar
    from prometheus_client import CollectorRegistry

    from pixcore.webhooks.ports import WebhookProbe
    from pixinfra.postgres.clock import ClockKeeper
    from pixinfra.postgres.pool import Database
    from pixinfra.settings import Settings

__all__ = ["COMPOSITION", "pixweb", "worker_app"]


async def deliver(
    settings: Settings,
    database: Database,
    stop: asyncio.Event,
    registry: CollectorRegistry,
    keeper: ClockKeeper,
) -> None:
    """:func:`pixnotify.deliver_in_process`, imported when the API process starts delivering."""
    from pixnotify import deliver_in_process

    await deliver_in_process(settings, database, stop, registry, keeper)


def probe(settings: Settings) -> WebhookProbe:
    """:func:`pixnotify.probe_for`, imported when the API is built."""
    from pixnotify import probe_for

    return probe_for(settings)


COMPOSITION = Composition(delivery=deliver, probe=probe, worker_app="pixservice.cli:worker_app")


def pixweb() -> None:
    """``pixweb``: :mod:`pixweb.cli`'s commands; ``serve`` delivers webhooks in its process too,
    and sends test events."""
    commands(obj=COMPOSITION)


def worker_app() -> Litestar:
    """One process of ``pixweb serve --workers N``: the same composed app, from the environment."""
    return compose_worker_app(COMPOSITION)
