"""``pixnotify``: webhook delivery as a process of its own.

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
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, NoReturn, TypeVar
from urllib.parse import urlsplit

import asyncpg
import click

from pixcore.clock import SystemClock
from pixcore.errors import PixError
from pixcore.webhooks.rules import REGISTRABLE, EventType
from pixinfra.logs import configure_logging
from pixinfra.postgres.clock import ClockKeeper
from pixinfra.postgres.database import NoDatabase, require_existing_database, stop_embedded
from pixinfra.postgres.pool import Database
from pixinfra.runtime import database_ready
from pixinfra.settings import NotifierSettings, Settings, get_settings

__all__ = ["main"]

log = logging.getLogger("pixnotify")

Fn = TypeVar("Fn", bound=Callable[..., Any])


def _fail(kind: str, message: str, code: int = 2) -> NoReturn:
    click.echo(json.dumps({"error": kind, "message": message}), err=True)
    sys.exit(code)


def _settings() -> Settings:
    """The settings, with logging on stderr set up, once the database is known to exist (the
    notifier never creates an embedded one: ``pixweb serve`` or ``pixweb migrate`` does)."""
    try:
        settings = get_settings()
    except ValueError as exc:
        _fail("InvalidSetting", str(exc))
    configure_logging(settings.log_level, settings.log_format)
    try:
        require_existing_database(settings)
    except NoDatabase as exc:
        _fail("NoDatabase", str(exc))
    return settings


def _run_fast(work: Coroutine[Any, Any, None]) -> None:
    """Run on uvloop where it is installed (the web extra brings it, as for uvicorn), else asyncio."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(work)
    else:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(work)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pixservice", prog_name="pixnotify")
def main() -> None:
    """PIX webhook notifier: delivers the outbox's events to the registered URLs.

    \b
    It uses pixweb's database: PIX_DATABASE_URL, or the embedded server in the
    data folder (PIX_DATA_DIR, else the nearest .pixdata folder upward, else
    ./.pixdata), which it never creates: run `pixweb migrate` first. It logs the
    database it uses on stderr. Settings: docs/operations.md.
    """
    warnings.filterwarnings("ignore", module="platformdirs")


def _positive(_: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and value <= 0:
        raise click.BadParameter("must be more than 0", param=param)
    return value


DEFAULTS = NotifierSettings()


def _option(name: str, variable: str, help_text: str, **kwargs: Any) -> Callable[[Fn], Fn]:
    """An option that overrides the setting of ``variable`` (read into ``Settings.notifier``); its
    help shows the default from :class:`NotifierSettings`, the one place it is written."""
    field = name.removeprefix("--").replace("-", "_")
    default = getattr(DEFAULTS, field)
    return click.option(name, default=None, help=f"{help_text} [{variable}; default: {default}]", **kwargs)


@main.command()
@_option(
    "--concurrency",
    "PIX_NOTIFY_CONCURRENCY",
    "Deliveries in flight at most (HTTP connections).",
    type=click.IntRange(min=1),
)
@_option(
    "--batch-size",
    "PIX_NOTIFY_BATCH_SIZE",
    "Outbox events fanned out per transaction; deliveries claimed per round at most.",
    type=click.IntRange(min=1),
)
@_option(
    "--poll-interval",
    "PIX_NOTIFY_POLL_INTERVAL",
    "Seconds to wait when there was nothing to do.",
    type=float,
    callback=_positive,
)
@_option(
    "--grace-period",
    "PIX_NOTIFY_GRACE_PERIOD",
    "On SIGTERM/SIGINT, seconds deliveries in flight get to finish; the rest are given back.",
    type=click.FloatRange(min=0),
)
@_option(
    "--timeout",
    "PIX_NOTIFY_TIMEOUT",
    "Seconds one delivery attempt may take, connection included.",
    type=float,
    callback=_positive,
)
@_option(
    "--lease",
    "PIX_NOTIFY_LEASE",
    "Seconds a claimed delivery stays with this process; if it dies, others retry it after that. "
    "More than twice --timeout.",
    type=float,
    callback=_positive,
)
@_option(
    "--metrics-port",
    "PIX_NOTIFY_METRICS_PORT",
    "Serve Prometheus metrics at http://HOST:PORT/metrics; 0: off.",
    type=click.IntRange(0, 65535),
)
@_option(
    "--metrics-host",
    "PIX_NOTIFY_METRICS_HOST",
    "Address the metrics server listens on (0.0.0.0 for a scraper on another host).",
)
def run(**given: Any) -> None:
    """Deliver webhooks until SIGTERM or SIGINT.

    \b
    Each option overrides its variable; also read from the environment, as pixweb reads them:
      PIX_DATABASE_URL           PostgreSQL URL; unset: the embedded server under PIX_DATA_DIR
      PIX_DATA_DIR               data folder (default: the nearest .pixdata upward, else ./.pixdata)
      PIX_WEBHOOK_ALLOW_PRIVATE  send to loopback/private addresses too, http:// ones (default off)
      PIX_WEBHOOK_CA_FILE        PEM bundle of further CAs trusted for receivers
      PIX_WEBHOOK_CLIENT_CERT    PEM certificate presented to receivers (mutual TLS)
      PIX_WEBHOOK_CLIENT_KEY     its PEM private key
      PIX_LOG_LEVEL              log level (default INFO: one line per attempt)
      PIX_LOG_FORMAT             auto (default: text on a terminal, JSON otherwise), json or text
    """
    from pixinfra.persistence.deliveries import PostgresDeliveryStore
    from pixinfra.postgres.supervisor import supervising
    from pixnotify.metrics import DeliveryMetrics, serve_metrics
    from pixnotify.transport import webhook_ssl_context
    from pixnotify.worker import Notifier, run_listening

    settings = _settings()
    try:
        config = replace(
            settings.notifier, **{name: value for name, value in given.items() if value is not None}
        )
        webhook_ssl_context(config)  # the TLS files load, or the notifier does not start
    except ValueError as exc:
        _fail("InvalidSetting", str(exc))
    # A stop asked for while starting, before the event loop's handlers exist, is kept for the
    # loop rather than fatal: SIGTERM's default action would end the process at once, before the
    # embedded server is stopped (and with an exit code a supervisor reads as a crash).
    asked_to_stop: list[int] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, _frame: asked_to_stop.append(number))
    metrics: DeliveryMetrics | None = None
    server = None
    if config.metrics_port:
        try:
            metrics, server, _ = serve_metrics(config.metrics_port, config.metrics_host)
        except OSError as exc:
            _fail(
                "MetricsUnavailable",
                f"cannot serve metrics on {config.metrics_host}:{config.metrics_port}: {exc}",
            )
        log.info("metrics at http://%s:%d/metrics", config.metrics_host, config.metrics_port)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        if asked_to_stop:
            stop.set()
        async with (
            database_ready(settings, pool_size=min(config.concurrency, 8) + 2) as database,
            supervising(metrics.registry if metrics is not None else None),  # an embedded server
        ):
            # Retries are due by the service clock, which the sandbox may move.
            keeper = ClockKeeper(SystemClock(), shared=settings.sandbox, database=database)
            await run_notifier(database, keeper, stop)

    async def run_notifier(database: Database, keeper: ClockKeeper, stop: asyncio.Event) -> None:
        async with Notifier(
            PostgresDeliveryStore(database),
            config,
            allow_private=settings.webhook_allow_private,
            clock=keeper.clock,
            refresh_clock=keeper.refresh,
            metrics=metrics,
        ) as notifier:
            await run_listening(notifier, database, stop)

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
    the age in seconds of the oldest pending delivery, and each failing URL (an active
    registration whose latest attempt failed) with its last error in words."""
    from pixinfra.persistence.deliveries import queue_status

    settings = _settings()

    async def read() -> dict[str, Any]:
        async with database_ready(settings, pool_size=2) as database:
            keeper = ClockKeeper(SystemClock(), shared=settings.sandbox, database=database)
            await keeper.refresh()  # due by the service clock, which the sandbox may have moved
            return (await queue_status(database, keeper.clock.now())).as_json()

    try:
        result = asyncio.run(read())
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        _fail("DatabaseUnavailable", f"cannot use the database: {exc}")
    finally:
        stop_embedded()
    click.echo(json.dumps(result))


R = TypeVar("R")


def _on_service_database(work: Callable[[], Coroutine[Any, Any, R]]) -> R:
    """``work()`` run to completion, a failure of the database an error of the command."""
    try:
        return asyncio.run(work())
    except PixError as exc:
        _fail(type(exc).__name__, exc.message)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        _fail("DatabaseUnavailable", f"cannot use the database: {exc}")


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids)) or "none new"


def _event_types(
    _context: click.Context, _param: click.Parameter, value: str | None
) -> tuple[EventType, ...]:
    if value is None:
        return REGISTRABLE
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in {kind.value for kind in REGISTRABLE}]
    if unknown or not names:
        raise click.BadParameter(f"event types among {', '.join(kind.value for kind in REGISTRABLE)}")
    return tuple(EventType(name) for name in dict.fromkeys(names))


def _forward_url(_context: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and urlsplit(value).scheme not in {"http", "https"}:
        raise click.BadParameter("an http:// or https:// URL")
    return value


@main.command()
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port to listen on [default: any free one]."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--account",
    "account_id",
    type=click.IntRange(min=1),
    help="Register this listener for every event type of the account while it runs (its secret is read"
    " from the service's database and printed); the registrations are removed when it stops.",
)
@click.option(
    "--events",
    callback=_event_types,
    help="With --account: the event types to register, comma-separated (default: every one: "
    + ", ".join(kind.value for kind in REGISTRABLE)
    + ").",
)
@click.option(
    "--forward-to",
    callback=_forward_url,
    help="Pass each notification that verifies on to this URL, body and headers as they came, and answer"
    " the service with its status.",
)
@click.option(
    "--secret",
    envvar="PIX_WEBHOOK_SECRET",
    help="The account's webhook secret (whsec_...), from GET /api/webhooks/secret; not with --account."
    " [PIX_WEBHOOK_SECRET]",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(["auto", "text", "json"]),
    default="auto",
    show_default=True,
    help="auto: a line for a person on a terminal, one JSON object per line otherwise.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--count", type=click.IntRange(min=1), help="Stop after this many notifications (default: Ctrl-C)."
)
@click.option(
    "--read-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a connection may stay silent while its request is read; then it is dropped.",
)
def listen(  # noqa: PLR0917 - click passes each option by keyword; the signature mirrors them
    port: int,
    host: str,
    account_id: int | None,
    events: tuple[EventType, ...],
    forward_to: str | None,
    secret: str | None,
    output: str,
    as_json: bool,
    count: int | None,
    read_timeout: float,
) -> None:
    """Receive webhooks on this machine, print each one, and pass it on.

    \b
    With --account N it registers itself for every event type of account N
    (on the database the service uses, found as `pixweb admin` finds it),
    prints the signing secret, and removes the registrations on Ctrl-C:
        pixnotify listen --account 1 --forward-to http://127.0.0.1:3000/webhooks
    Without it, register http://127.0.0.1:PORT/ yourself and give --secret.
    The service must allow private addresses (PIX_WEBHOOK_ALLOW_PRIVATE, on
    under `make run`). Each notification is printed: time, type, amount, ids,
    and whether its signature verifies with the secret (answered 204, or what
    --forward-to answered) or not (answered 401, never forwarded). A line that
    does not verify starts with "!! UNVERIFIED" and quotes what the sender
    wrote; control characters always print escaped. See docs/webhooks.md.
    """
    from pixcore.webhooks.delivery import secret_key
    from pixnotify.listen import serve
    from pixnotify.registration import account_secret, register_everything, unregister

    if account_id is not None and secret:
        _fail("SecretGiven", "with --account the secret is the account's own: leave out --secret")
    settings = _settings() if account_id is not None else None
    if settings is not None and account_id is not None:
        secret = _on_service_database(lambda: account_secret(settings, account_id))
    if not secret:
        _fail("NoSecret", "give --account N, or the webhook secret: --secret whsec_... or PIX_WEBHOOK_SECRET")
    try:
        secret_key(secret)
    except ValueError as exc:
        _fail("InvalidSecret", str(exc))
    json_lines = as_json or output == "json" or (output == "auto" and not sys.stdout.isatty())
    made: list[int] = []

    def ready(url: str) -> None:
        if settings is not None and account_id is not None:
            made.extend(_on_service_database(lambda: register_everything(settings, account_id, url, events)))
            kinds = "every event type" if events == REGISTRABLE else ", ".join(kind.value for kind in events)
            click.echo(
                f"registered {url} for {kinds} of account {account_id}: webhooks {_ids(made)}", err=True
            )
            click.echo(f"signing secret: {secret}", err=True)
        target = f", forwarding to {forward_to}" if forward_to else ""
        click.echo(f"listening on {url}{target} (Ctrl-C stops)", err=True)

    try:
        serve(
            host=host,
            port=port,
            secret=secret,
            out=sys.stdout,
            as_json=json_lines,
            count=count,
            read_timeout=read_timeout,
            ready=ready,
            forward_to=forward_to,
        )
    except OSError as exc:
        _fail("CannotListen", f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    finally:
        if made and settings is not None and account_id is not None:
            _on_service_database(lambda: unregister(settings, account_id, made))
            click.echo(f"removed webhooks {_ids(made)}", err=True)
        stop_embedded()
