"""``pixnotify``: webhook delivery as a process of its own (decisions §12).

It uses the service's database exactly as ``pixweb`` does: the ``PIX_DATABASE_URL`` server, or
the embedded PostgreSQL under the data folder (``PIX_DATA_DIR``), migrated on start. Any number
of notifiers (and ``pixweb serve`` processes running the same loop) may work on one database.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
import warnings
from collections.abc import Coroutine
from typing import Any, NoReturn

import asyncpg
import click

from pixcore.clock import SystemClock
from pixweb.persistence.database import stop_embedded
from pixweb.runtime import database_ready
from pixweb.settings import Settings, get_settings

__all__ = ["main"]

log = logging.getLogger("pixnotify")


def _fail(kind: str, message: str, code: int = 2) -> NoReturn:
    click.echo(json.dumps({"error": kind, "message": message}), err=True)
    sys.exit(code)


def _settings() -> Settings:
    try:
        return get_settings()
    except ValueError as exc:
        _fail("InvalidSetting", str(exc))


def _run_fast(work: Coroutine[Any, Any, None]) -> None:
    """Run on uvloop where it is installed (the web extra brings it, as for uvicorn), else asyncio."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(work)
    else:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(work)


@click.group()
def main() -> None:
    """PIX webhook notifier: delivers the outbox's events to the registered URLs."""
    warnings.filterwarnings("ignore", module="platformdirs")


def _positive(_: click.Context, param: click.Parameter, value: float) -> float:
    if value <= 0:
        raise click.BadParameter("must be more than 0", param=param)
    return value


@main.command()
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    envvar="PIX_NOTIFY_CONCURRENCY",
    show_envvar=True,
    help="Deliveries in flight at most (HTTP connections).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    envvar="PIX_NOTIFY_BATCH_SIZE",
    show_envvar=True,
    help="Outbox events fanned out per transaction; deliveries claimed per round at most.",
)
@click.option(
    "--poll-interval",
    type=float,
    default=0.1,
    show_default=True,
    callback=_positive,
    envvar="PIX_NOTIFY_POLL_INTERVAL",
    show_envvar=True,
    help="Seconds to wait when there was nothing to do.",
)
@click.option(
    "--grace-period",
    type=click.FloatRange(min=0),
    default=10.0,
    show_default=True,
    envvar="PIX_NOTIFY_GRACE_PERIOD",
    show_envvar=True,
    help="On SIGTERM/SIGINT, seconds deliveries in flight get to finish; the rest are given back.",
)
@click.option(
    "--timeout",
    type=float,
    default=15.0,
    show_default=True,
    callback=_positive,
    envvar="PIX_NOTIFY_TIMEOUT",
    show_envvar=True,
    help="Seconds one delivery attempt may take, connection included.",
)
@click.option(
    "--lease",
    type=float,
    default=60.0,
    show_default=True,
    callback=_positive,
    envvar="PIX_NOTIFY_LEASE",
    show_envvar=True,
    help="Seconds a claimed delivery stays with this process; if it dies, others retry it after that. "
    "More than twice --timeout.",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    envvar="PIX_NOTIFY_METRICS_PORT",
    show_envvar=True,
    help="Serve Prometheus metrics at http://HOST:PORT/metrics; 0: off.",
)
@click.option(
    "--metrics-host",
    default="127.0.0.1",
    show_default=True,
    envvar="PIX_NOTIFY_METRICS_HOST",
    show_envvar=True,
    help="Address the metrics server listens on (0.0.0.0 for a scraper on another host).",
)
def run(
    *,
    concurrency: int,
    batch_size: int,
    poll_interval: float,
    grace_period: float,
    timeout: float,
    lease: float,
    metrics_port: int,
    metrics_host: str,
) -> None:
    """Deliver webhooks until SIGTERM or SIGINT.

    \b
    Also read from the environment, as pixweb reads them:
      PIX_DATABASE_URL           PostgreSQL URL; unset: the embedded server under PIX_DATA_DIR
      PIX_DATA_DIR               data folder (default ./.pixdata)
      PIX_WEBHOOK_ALLOW_PRIVATE  send to loopback/private addresses too (default off)
      PIX_LOG_LEVEL              log level (default INFO: one line per attempt)
      PIX_LOG_FORMAT             json (default: one JSON object per line) or text
    """
    from pixnotify.metrics import DeliveryMetrics, serve_metrics
    from pixnotify.worker import Notifier, NotifierConfig
    from pixweb.observability import configure_logging
    from pixweb.persistence.supervisor import supervising

    settings = _settings()
    configure_logging(settings.log_level, settings.log_format)
    try:
        config = NotifierConfig(
            concurrency=concurrency,
            batch_size=batch_size,
            poll_interval=poll_interval,
            grace_period=grace_period,
            timeout=timeout,
            lease=lease,
            allow_private=settings.webhook_allow_private,
        )
    except ValueError as exc:
        _fail("InvalidSetting", str(exc))
    metrics: DeliveryMetrics | None = None
    server = None
    if metrics_port:
        try:
            metrics, server, _ = serve_metrics(metrics_port, metrics_host)
        except OSError as exc:
            _fail("MetricsUnavailable", f"cannot serve metrics on {metrics_host}:{metrics_port}: {exc}")
        log.info("metrics at http://%s:%d/metrics", metrics_host, metrics_port)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        async with (
            database_ready(settings, pool_size=min(concurrency, 8) + 2) as database,
            supervising(metrics.registry if metrics is not None else None),  # an embedded server
            Notifier(database.pool, config, metrics=metrics) as notifier,
        ):
            await notifier.run(stop)

    try:
        _run_fast(serve())
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        _fail("DatabaseUnavailable", f"cannot use the database: {exc}")
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
        stop_embedded()


@main.command()
def status() -> None:
    """Print the delivery queue as JSON: undispatched events, pending deliveries, due now, failed,
    and the age in seconds of the oldest pending delivery."""
    from pixnotify.store import queue_status

    settings = _settings()

    async def read() -> dict[str, Any]:
        async with database_ready(settings, pool_size=2) as database:
            return (await queue_status(database.pool, SystemClock().now())).as_json()

    try:
        result = asyncio.run(read())
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        _fail("DatabaseUnavailable", f"cannot use the database: {exc}")
    finally:
        stop_embedded()
    click.echo(json.dumps(result))
