"""``pixweb``: serve the API, and the operator's commands.

Admin commands print JSON on stdout; errors go to stderr as JSON with a
non-zero exit status. They act on the database the service uses: the
``PIX_DATABASE_URL`` server, or the embedded one under the data folder (shared
with a running ``pixweb serve``).
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import signal
import sys
import uuid
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import asyncpg
import click

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.accounts.credentials_service import revoke_certificate, revoke_secret, rotate_secret
from pixcore.accounts.rules import DEFAULT_ADDRESS, CertificateInfo
from pixcore.clock import SystemClock, format_timestamp
from pixcore.errors import PixError
from pixcore.network.claims import ClaimKind, KeyClaim, claim_key, confirm_claim, refuse_claim
from pixcore.network.med import ask_back
from pixcore.webhooks.ports import WebhookProbe
from pixinfra.logs import configure_logging
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.database import (
    NoDatabase,
    require_existing_database,
    resolve_database_url,
    stop_embedded,
)
from pixinfra.postgres.pool import Database
from pixinfra.runtime import DeliveryLoop, database_ready
from pixinfra.settings import Settings, get_settings
from pixweb.network.participation import key_claims, key_registry, network_med
from pixweb.sandbox.clock import ClockKeeper
from pixweb.security.certificates import create_self_signed, read_pem, write_private
from pixweb.security.secrets import Argon2Hasher

if TYPE_CHECKING:
    from litestar import Litestar

    from pixcore.accounts.sessions import ConsoleSession
    from pixweb.network.claims import NetworkClaims

__all__ = ["Composition", "compose_app", "compose_worker_app", "main", "worker_app"]


class CommandFailed(Exception):
    """A failure to report as ``{error, message}`` on stderr."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


def _fail(kind: str, message: str, code: int = 2) -> NoReturn:
    click.echo(json.dumps({"error": kind, "message": message}), err=True)
    sys.exit(code)


def _settings() -> Settings:
    try:
        return get_settings()
    except (ValueError, PixError) as exc:
        _fail("InvalidSetting", str(exc))


def _run_admin(
    action: Callable[[Settings, Database], Awaitable[dict[str, Any]]],
    *,
    echo: bool = True,
    create: bool = False,
) -> dict[str, Any]:
    """Run ``action`` on the migrated database; only ``create`` (``migrate``) makes a new embedded one."""
    settings = _settings()
    configure_logging(settings.log_level, settings.log_format)  # on stderr: which database
    if not create:
        try:
            require_existing_database(settings)
        except NoDatabase as exc:
            _fail("NoDatabase", str(exc))

    async def run() -> dict[str, Any]:
        async with database_ready(settings, pool_size=2) as database:
            return await action(settings, database)

    try:
        result = asyncio.run(run())
    except PixError as exc:
        _fail(type(exc).__name__, exc.message)
    except CommandFailed as exc:
        _fail(exc.kind, exc.message)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        _fail("DatabaseUnavailable", f"cannot use the database: {exc}")
    finally:
        stop_embedded()
    if echo:
        _emit(result)
    return result


def _wants_json() -> bool:
    """JSON unless stdout is a terminal and ``--json`` was not given."""
    context = click.get_current_context(silent=True)
    asked = context is not None and bool(context.meta.get("pixweb.json"))
    return asked or not sys.stdout.isatty()


def _human(value: Any, indent: str = "") -> list[str]:
    """``value`` as indented ``key: value`` lines, for a person at a terminal."""
    if isinstance(value, dict):
        lines: list[str] = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item and not all(isinstance(x, str | int) for x in item):
                lines += [f"{indent}{key}:", *_human(item, indent + "  ")]
            elif isinstance(item, list):
                lines.append(f"{indent}{key}: {', '.join(map(str, item)) or '-'}")
            else:
                lines.append(f"{indent}{key}: {'-' if item is None else item}")
        return lines
    if isinstance(value, list):
        lines = []
        for number, item in enumerate(value):
            lines += ([""] if number else []) + _human(item, indent)
        return lines
    return [f"{indent}{value}"]


def _emit(result: dict[str, Any]) -> None:
    """Print a command's result: JSON when piped or with ``--json``, else for a person."""
    if _wants_json():
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo("\n".join(_human(result)))


@dataclass(frozen=True, slots=True)
class Composition:
    """What the composer of the process (:mod:`pixservice`) hands the commands: the webhook
    delivery loop ``pixweb serve`` runs, and what sends test events (the probe of the process's
    settings), since ``pixweb`` does not import ``pixnotify``. ``worker_app``: the import path
    (``module:function``) of a function of no arguments that builds the same composed app from
    the environment's settings, which each process of ``pixweb serve --workers N`` calls."""

    delivery: DeliveryLoop | None = None
    probe: Callable[[Settings], WebhookProbe] | None = None
    worker_app: str = "pixweb.cli:worker_app"


def compose_app(settings: Settings, composed: Composition | None) -> Litestar:
    """The API of ``pixweb serve`` as ``composed`` completes it, the collector tuned once it is built."""
    from pixweb.app import create_app

    app = create_app(
        settings,
        delivery=composed.delivery if composed is not None else None,
        probe=composed.probe(settings) if composed is not None and composed.probe is not None else None,
    )
    tune_collector()
    return app


def compose_worker_app(composed: Composition | None) -> Litestar:
    """One process of ``pixweb serve --workers N``: the composed app, from the environment's settings.

    On an embedded server the process attached to it (pgserver counts each process that holds
    it; the last to leave stops it) and lets go once the app has shut down: uvicorn ends a worker
    by raising the signal it stopped on again, which would skip pgserver's exit hook and leave the
    server running after the parent left."""
    warnings.filterwarnings("ignore", module="platformdirs")  # as `main` does in the supervisor
    app = compose_app(get_settings(), composed)
    app.on_shutdown.append(stop_embedded)
    return app


def worker_app() -> Litestar:
    """One process of ``pixweb serve --workers N`` without a composer: no webhook delivery."""
    return compose_worker_app(None)


MAX_PROCESSES = 64  # --workers at most
HELP = {"help_option_names": ["-h", "--help"]}


@click.group(context_settings=HELP)
@click.version_option(package_name="pixservice", prog_name="pixweb")
def main() -> None:
    """PIX account service: the API server and the operator's commands.

    \b
    The database: PIX_DATABASE_URL (a PostgreSQL server), or the embedded server
    in the data folder: PIX_DATA_DIR, else the nearest .pixdata folder from the
    current folder upward, else ./.pixdata. Only `serve` and `migrate` create a
    new embedded database; the other commands refuse to, naming where they looked.
    Every command logs the database it uses on stderr (PIX_LOG_LEVEL, PIX_LOG_FORMAT).
    Admin commands print JSON on stdout; an error is a JSON {error, message} on
    stderr with a non-zero exit status. Settings: docs/operations.md.
    """
    # The embedded server's runtime-dir fallback is harmless; keep stderr for our JSON.
    warnings.filterwarnings("ignore", module="platformdirs")


@main.command()
@click.option(
    "--demo/--no-demo",
    default=None,
    help="Create and explain the demo account (default: yes, except in production mode, which refuses it).",
)
@click.option("--host", default=None, help="Address to listen on [PIX_HOST; default: 127.0.0.1].")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=None, help="Port to listen on [PIX_PORT; default: 8000]."
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_PROCESSES),
    default=None,
    help="API processes sharing the port [PIX_PROCESSES; default: 1]. About one per core.",
)
@click.pass_obj
def serve(
    composed: Composition | None,
    *,
    demo: bool | None,
    host: str | None,
    port: int | None,
    workers: int | None,
) -> None:
    """Serve the API (embedded PostgreSQL unless PIX_DATABASE_URL is set).

    \b
    With --workers N (N > 1), N processes answer on the one port (uvicorn's
    workers): this process starts the embedded PostgreSQL and migrates once,
    then supervises them (a dead one is replaced). Each runs the settlement and
    delivery loops (PIX_WORKERS), which lease their work, and holds its own pool
    of PIX_DB_POOL_SIZE connections. SIGTERM or Ctrl-C stops the processes, then
    the embedded PostgreSQL. Without PIX_PUBLIC_URL the public URL follows --host
    and --port.
    """
    import os

    import uvicorn

    from pixweb.demo import banner, ensure_demo, instructions

    settings = _settings()
    overrides: dict[str, str] = {}
    if host is not None or port is not None:
        host, port = host or settings.host, port or settings.port
        public_url = (os.environ.get("PIX_PUBLIC_URL") or f"http://{host}:{port}").rstrip("/")
        settings = replace(settings, host=host, port=port, public_url=public_url)
        overrides = {"PIX_HOST": host, "PIX_PORT": str(port), "PIX_PUBLIC_URL": public_url}
    if settings.production and demo:
        _fail("DemoInProduction", "PIX_PRODUCTION is on: pixweb serve creates no demo account (drop --demo).")
    demo = not settings.production if demo is None else demo
    processes = workers or settings.processes
    configure_logging(settings.log_level, settings.log_format)
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again: with the default
    # action the process would die there, before the embedded PostgreSQL is stopped. As an
    # interrupt it unwinds through `finally` below, as Ctrl-C does. (With --workers, uvicorn's
    # supervisor sets its own handlers: it stops the processes, waits for them and returns.)
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    try:
        settings = replace(settings, database_url=resolve_database_url(settings))

        async def prepare() -> str | None:
            """Migrate (here, once, before any worker starts); the demo account if asked."""
            async with database_ready(settings, pool_size=2) as database, key_registry(settings) as registry:
                if not demo:
                    return None
                account, created = await ensure_demo(
                    settings, partial(PostgresUnitOfWork, database), Argon2Hasher(), registry
                )
            state = "created" if created else "reused"
            base_url = f"http://{settings.host}:{settings.port}"
            explained = instructions(settings, account, base_url)  # writes the token request's files
            return banner(settings, account, base_url) + f"\n\n[{state}] " + explained

        # One process migrates in its lifespan; several are migrated here first, once.
        if (demo or processes > 1) and (message := asyncio.run(prepare())) is not None:
            click.echo(message, err=False)
        options: dict[str, Any] = {
            "host": settings.host,
            "port": settings.port,
            "log_level": settings.log_level.lower(),
            "log_config": None,  # uvicorn's records go through our handler (PIX_LOG_FORMAT)
            "access_log": False,  # the app logs one line per request, with its id and route template
            "timeout_graceful_shutdown": 10,
            # httptools with the request head capped (PIX_MAX_HEADER_BYTES) and its 400 in the
            # error shape; named as a string so that the workers import it themselves.
            "http": "pixweb.http_protocol:LimitedHttpToolsProtocol",
            "timeout_worker_healthcheck": settings.worker_healthcheck_timeout,
        }
        if processes == 1:
            uvicorn.run(compose_app(settings, composed), **options)
        else:
            # Each process builds its app from the environment: the same settings as here. The
            # embedded server's URL is not handed down: each process attaches to the running
            # server itself (pgserver), and so supervises it as a single process would.
            os.environ.update(overrides)
            target = composed.worker_app if composed is not None else Composition().worker_app
            uvicorn.run(target, factory=True, workers=processes, **options)
    finally:
        stop_embedded()


GC_ALLOCATIONS = 20_000  # the collector's first threshold (Python's default: 700)


def tune_collector() -> None:
    """Keep the cyclic garbage collector out of the requests' way (``pixweb serve``).

    What exists once the app is built lives as long as the process (modules, the app, its
    OpenAPI document): ``gc.freeze`` puts it out of the collector's sight. And a collection
    starts after ``GC_ALLOCATIONS`` more container objects than were freed, rather than 700:
    a 1,000-record page holds about 3,000 at once, so with the default every such request
    ran several collections, promoted its records to the old generation and, every few
    requests, set off a full collection of 5-12 ms (``bench/queries.py``). Garbage without
    cycles is still freed at once, by reference counting.
    """
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_ALLOCATIONS, middle, old)


@main.command()
def migrate() -> None:
    """Apply the database migrations and exit."""

    async def action(_: Settings, _database: Database) -> dict[str, Any]:
        return {"migrated": True}

    _run_admin(action, create=True)


@main.group()
def admin() -> None:
    """Operator commands (JSON on stdout)."""


@admin.group()
def account() -> None:
    """Accounts."""


@account.command("create")
@click.option("--name", required=True, help="Holder's name.")
@click.option("--document", required=True, help="Holder's CPF (11 digits) or CNPJ (14 characters).")
@click.option(
    "--key", "keys", multiple=True, help="A PIX key for the account (repeatable). None: a random key."
)
@click.option("--city", default=None, help="Holder's city (default: PIX_CITY).")
@click.option(
    "--street",
    default=DEFAULT_ADDRESS.street,
    show_default=True,
    help="Holder's street address (logradouro), 1 to 200 characters.",
)
@click.option(
    "--state", default=DEFAULT_ADDRESS.state, show_default=True, help="Holder's state (uf): two letters."
)
@click.option(
    "--postal-code",
    default=DEFAULT_ADDRESS.postal_code,
    show_default=True,
    help="Holder's postal code (cep): 8 digits, no hyphen.",
)
@click.option(
    "--sandbox-admin", is_flag=True, help="Let the account move the sandbox clock (POST /sandbox/clock)."
)
def account_create(  # click passes each option by its name
    *,
    name: str,
    document: str,
    keys: tuple[str, ...],
    city: str | None,
    street: str,
    state: str,
    postal_code: str,
    sandbox_admin: bool,
) -> None:
    """Open an account; prints its client id and (once only) its client secret. The holder's
    address (a due-date charge shows it as its receiver's) defaults to one in Sao Paulo."""

    async def action(settings: Settings, database: Database) -> dict[str, Any]:
        async with key_registry(settings) as registry:
            opened = await open_account(
                partial(PostgresUnitOfWork, database),
                Argon2Hasher(),
                ispb=settings.ispb,
                name=name,
                document=document,
                city=city or settings.city,
                street=street,
                state=state,
                postal_code=postal_code,
                keys=keys,
                sandbox_admin=sandbox_admin,
                registry=registry,
            )
        account = opened.account
        return {
            "accountId": account.id,
            "clientId": opened.client_id,
            "clientSecret": opened.client_secret,
            "ispb": account.ispb,
            "branch": account.branch,
            "number": account.number,
            "address": {
                "street": account.street,
                "city": account.city,
                "state": account.state,
                "postalCode": account.postal_code,
            },
            "keys": [key.value for key in opened.keys],
        }

    _run_admin(action)


@account.command("list")
def account_list() -> None:
    """Print every account, oldest first: id, holder, branch and number, keys and client ids
    (never a secret), as {"accounts": [...]}."""
    from pixinfra.persistence.account_list import list_accounts

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        async with database.acquire() as conn:
            return {"accounts": await list_accounts(conn)}

    _run_admin(action)


@account.command("rotate-secret")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
def account_rotate_secret(account_id: int) -> None:
    """Give the account's client a new secret, printed once; the old one stops working."""

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        rotated = await rotate_secret(
            partial(PostgresUnitOfWork, database), Argon2Hasher(), account_id=account_id
        )
        return {
            "accountId": rotated.account_id,
            "clientId": rotated.client_id,
            "clientSecret": rotated.client_secret,
        }

    _run_admin(action)


@account.command("revoke-secret")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
def account_revoke_secret(account_id: int) -> None:
    """Revoke the account's client secret without a new one (rotate-secret gives one); its console
    sessions end."""

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        client_id = await revoke_secret(
            partial(PostgresUnitOfWork, database), SystemClock(), account_id=account_id
        )
        return {"accountId": account_id, "clientId": client_id, "secretRevoked": True}

    _run_admin(action)


async def _service_clock(database: Database) -> SystemClock:
    """The service clock as every process sees it (the sandbox may have moved it forward)."""
    keeper = ClockKeeper(SystemClock(), shared=True, database=database)
    await keeper.refresh()
    return keeper.clock


@admin.group()
def partitions() -> None:
    """The history tables' monthly partitions."""


@partitions.command("list")
def partitions_list() -> None:
    """Every partition of the history tables: its range, rows (the planner's estimate) and bytes."""
    from pixinfra.postgres.partitions import list_partitions

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        async with database.acquire() as conn:
            found = await list_partitions(conn)
        return {
            "partitions": [
                {
                    "table": info.table,
                    "name": info.name,
                    "from": None if info.start is None else info.start.date().isoformat(),
                    "to": None if info.end is None else info.end.date().isoformat(),
                    "default": info.end is None,
                    "rows": max(info.rows, 0),
                    "bytes": info.bytes,
                }
                for info in found
            ]
        }

    _run_admin(action)


@partitions.command("ensure")
def partitions_ensure() -> None:
    """Make the months up to two past the later of the database's clock and the service clock
    now (the settlement loop does it at start and about once a minute)."""
    from pixweb.workers import keep_partitions

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        return {"created": await keep_partitions(database, await _service_clock(database))}

    _run_admin(action)


@admin.group()
def retention() -> None:
    """Retention of the history's months (``PIX_RETENTION_*``)."""


@retention.command("run")
@click.option("--dry-run", is_flag=True, help="Judge the months, let none go.")
def retention_run(dry_run: bool) -> None:
    """Let go the months older than their table's setting that nothing needs; say why others stay."""
    from pixweb.workers import retain

    async def action(settings: Settings, database: Database) -> dict[str, Any]:
        return await retain(database, await _service_clock(database), settings, dry_run=dry_run)

    _run_admin(action)


@admin.group()
def network() -> None:
    """The PIX network this service takes part in (PIX_NETWORK_URL): claims of keys."""


@network.group()
def claims() -> None:
    """Claims of keys between institutions: ours, and other institutions' against our keys."""


def _claim_out(claim: KeyClaim) -> dict[str, Any]:
    return {
        "id": str(claim.id),
        "type": claim.kind.value,
        "key": claim.key.value,
        "status": claim.state.value,
        "donor": claim.donor,
        "claimer": claim.claimer,
        "claimerAccount": claim.claimer_account,
        "resolutionPeriodEnd": format_timestamp(claim.resolution_period_end),
        "lastModified": format_timestamp(claim.last_modified),
    }


def _claims_command(step: Callable[[Settings, Database, NetworkClaims], Awaitable[dict[str, Any]]]) -> None:
    if _settings().network is None:  # said before the database is touched
        _fail("NoNetwork", "PIX_NETWORK_URL is not set: the service takes part in no network")

    async def action(settings: Settings, database: Database) -> dict[str, Any]:
        try:
            async with key_claims(settings) as dictionary:
                return await step(settings, database, dictionary)
        except ValueError as exc:  # no network set, or the network extra missing
            raise CommandFailed("NoNetwork", str(exc)) from exc

    _run_admin(action)


@claims.command("list")
def claims_list() -> None:
    """The claims against our keys still to be answered, and ours still to be completed."""

    async def step(_: Settings, __: Database, dictionary: NetworkClaims) -> dict[str, Any]:
        return {
            "asDonor": [_claim_out(claim) for claim in await dictionary.as_donor()],
            "asClaimer": [_claim_out(claim) for claim in await dictionary.as_claimer()],
        }

    _claims_command(step)


@claims.command("open")
@click.option("--account", "account_id", type=int, required=True, help="Our account the key is to come to.")
@click.option("--key", required=True, help="The key, held at another institution.")
@click.option(
    "--ownership", is_flag=True, help="A claim of ownership (another person's key), not portability."
)
def claims_open(account_id: int, key: str, *, ownership: bool) -> None:
    """Claim a key for one of our accounts: ported from another institution (its holder's own
    key), or with --ownership a phone or e-mail key another person holds. The key comes to the
    account once the other institution confirms (this service completes the claim by itself)."""

    async def step(_: Settings, database: Database, dictionary: NetworkClaims) -> dict[str, Any]:
        kind = ClaimKind.OWNERSHIP if ownership else ClaimKind.PORTABILITY
        uow = partial(PostgresUnitOfWork, database)
        return _claim_out(await claim_key(uow, dictionary, account_id=account_id, key=key, kind=kind))

    _claims_command(step)


def _claim_id(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise CommandFailed("InvalidClaimId", f"{raw!r} is not a claim's id (a UUID)") from None


@claims.command("confirm")
@click.argument("claim_id")
def claims_confirm(claim_id: str) -> None:
    """Give one of our keys up to the claim against it: off its account here, then confirmed."""

    async def step(_: Settings, database: Database, dictionary: NetworkClaims) -> dict[str, Any]:
        uow = partial(PostgresUnitOfWork, database)
        return _claim_out(await confirm_claim(uow, dictionary, _claim_id(claim_id)))

    _claims_command(step)


@claims.command("refuse")
@click.argument("claim_id")
def claims_refuse(claim_id: str) -> None:
    """Refuse a claim against one of our keys (cancelled as its donor); the key stays."""

    async def step(_: Settings, __: Database, dictionary: NetworkClaims) -> dict[str, Any]:
        return _claim_out(await refuse_claim(dictionary, _claim_id(claim_id)))

    _claims_command(step)


@network.group()
def med() -> None:
    """The MED between institutions: a PIX we sent, asked back."""


@med.command("ask-back")
@click.argument("end_to_end_id")
@click.option("--operational", is_flag=True, help="An operational flaw, not a fraud (no infraction report).")
@click.option(
    "--details", default=None, help="What happened, for the other institution (at most 2,000 characters)."
)
def med_ask_back(end_to_end_id: str, details: str | None, *, operational: bool) -> None:
    """Ask a PIX one of our customers sent to another institution back: reported as a fraud (or,
    with --operational, an operational flaw) and all of it asked back. The other institution
    opens a MED case; if it accepts, the money comes back to the customer's account."""
    if _settings().network is None:
        _fail("NoNetwork", "PIX_NETWORK_URL is not set: the service takes part in no network")

    async def action(settings: Settings, database: Database) -> dict[str, Any]:
        async with network_med(settings) as dictionary:
            asked = await ask_back(
                partial(PostgresUnitOfWork, database),
                dictionary,
                end_to_end_id=end_to_end_id,
                fraud=not operational,
                details=details,
            )
        return {
            "infractionReportId": asked.report_id,
            "refundRequestId": asked.refund_id,
            "amount": asked.amount,
        }

    _run_admin(action)


@admin.group()
def ledger() -> None:
    """The ledger."""


@ledger.command("check")
def ledger_check() -> None:
    """Prove balances equal their entries and money is conserved; exit 1 if not."""
    from pixinfra.persistence.ledger_check import check_ledger

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        async with database.acquire() as conn:
            return await check_ledger(conn)

    report = _run_admin(action, echo=False)
    _emit(report)
    if not report["ok"]:
        sys.exit(1)


@admin.group()
def clock() -> None:
    """The sandbox clock, which only the operator moves."""


def _now_of(
    settings: Settings, *, advance: int = 0
) -> Callable[[Settings, Database], Awaitable[dict[str, Any]]]:
    from pixcore.clock import SystemClock, format_timestamp
    from pixweb.sandbox.clock import ClockKeeper

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        # With the sandbox off the service runs on the wall clock, whatever is stored.
        keeper = ClockKeeper(SystemClock(), shared=settings.sandbox, database=database)
        await keeper.refresh()
        if advance:
            await keeper.advance(advance)
        return {"now": format_timestamp(keeper.clock.now())}

    return action


@clock.command("advance")
@click.option(
    "--seconds", required=True, help="How far to move the clock forward (whole seconds, at least 1)."
)
def clock_advance(seconds: str) -> None:
    """Move the clock forward for every process of the service; prints the new now."""
    from pixweb.sandbox.clock import MAX_ADVANCE

    settings = _settings()
    if not settings.sandbox:
        _fail(
            "SandboxOff",
            "The sandbox is off (PIX_SANDBOX, production mode): the service runs on the wall clock.",
        )
    if not re.fullmatch(r"[0-9]{1,20}", seconds.strip()) or not 1 <= int(seconds) <= MAX_ADVANCE:
        _fail(
            "InvalidClockMove", f"--seconds must be a whole number from 1 to {MAX_ADVANCE}, not {seconds!r}."
        )
    _run_admin(_now_of(settings, advance=int(seconds)))


@clock.command("show")
def clock_show() -> None:
    """Print the service clock's now without moving it."""
    _run_admin(_now_of(_settings()))


def _matching_key(key_pem: bytes, cert_pem: bytes) -> bool:
    """Whether the PEM private key is the certificate's (so that the pair is usable)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    try:
        key = serialization.load_pem_private_key(key_pem, password=None)
    except (ValueError, TypeError):
        return False
    public = x509.load_pem_x509_certificate(cert_pem).public_key()
    encoding, form = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    return key.public_key().public_bytes(encoding, form) == public.public_bytes(encoding, form)


def _read_file(path: Path, kind: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        _fail(kind, f"cannot read {path}: {exc.strerror}")


@admin.command("token")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
@click.option(
    "--cert",
    "cert_file",
    type=click.Path(path_type=Path),
    help="The account's linked PEM certificate (with --key). Default: DATA_DIR/clients/account-ID/"
    "client-cert.pem, made and linked the first time.",
)
@click.option("--key", "key_file", type=click.Path(path_type=Path), help="The certificate's PEM private key.")
@click.option(
    "--env",
    "as_env",
    is_flag=True,
    help="Print shell lines exporting PIX_TOKEN and PIX_CERT_HEADER (for eval) instead of JSON.",
)
def admin_token(account_id: int, cert_file: Path | None, key_file: Path | None, *, as_env: bool) -> None:
    """Print a ready access token for the account, bound to its certificate (as POST /token
    would give its client), without its client secret.

    \b
    The token is signed with the service's key (PIX_SIGNING_KEY_FILE, else DATA_DIR/signing-key.pem):
    run it where `pixweb serve` finds the same key. With --env:
      eval "$(pixweb admin token --account 1 --env)"
      curl -H "Authorization: Bearer $PIX_TOKEN" -H "X-SSL-Client-Cert: $PIX_CERT_HEADER" ...
    """
    import shlex
    from urllib.parse import quote

    from pixcore.accounts.token_service import TOKEN_LIFETIME_SECONDS, issue_operator_token
    from pixweb.security.tokens import JwtIssuer, load_or_create_signing_key

    if (cert_file is None) != (key_file is None):
        _fail("UsageError", "--cert and --key go together (or give neither: the account's own pair)")
    settings = _settings()
    folder = settings.data_dir / "clients" / f"account-{account_id}"
    make_pair = cert_file is None and not (folder / "client-cert.pem").exists()
    cert_path = cert_file or folder / "client-cert.pem"
    key_path = key_file or folder / "client-key.pem"
    given: tuple[bytes, CertificateInfo] | None = None
    if not make_pair:
        cert_pem = _read_file(cert_path, "UnreadableCertificate")
        key_pem = _read_file(key_path, "UnreadableKey")
        try:
            given = cert_pem, read_pem(cert_pem)
        except PixError as exc:
            _fail(type(exc).__name__, f"{cert_path}: {exc.message}")
        if not _matching_key(key_pem, cert_pem):
            _fail("KeyMismatch", f"{key_path} is not the private key of {cert_path}")

    async def action(settings: Settings, database: Database) -> dict[str, Any]:
        keeper = ClockKeeper(SystemClock(), shared=settings.sandbox, database=database)
        await keeper.refresh()
        now = keeper.clock.now()
        uow = partial(PostgresUnitOfWork, database)
        if given is None:  # the account's own pair, made once: linked first, then written
            new_key, cert_pem, info = create_self_signed(f"pix-client-{account_id}", now=now)
            await link_certificate(uow, account_id=account_id, certificate=info, clock=keeper.clock)
            write_private(key_path, new_key)
            cert_path.write_bytes(cert_pem)
        else:
            cert_pem, info = given
        issuer = JwtIssuer(
            load_or_create_signing_key(settings.signing_key_path),
            keeper.clock,
            issuer=settings.token_issuer,
            audience=settings.token_audience,
        )
        issued = await issue_operator_token(
            uow, issuer, keeper.clock, account_id=account_id, certificate=info
        )
        return {
            "accessToken": issued.access_token,
            "tokenType": "Bearer",
            "expiresIn": TOKEN_LIFETIME_SECONDS,
            "accountId": account_id,
            "fingerprint": info.fingerprint,
            "cert": str(cert_path),
            "key": str(key_path),
            "certHeader": quote(cert_pem.decode(), safe=""),
        }

    result = _run_admin(action, echo=False)
    if as_env:
        click.echo(f"export PIX_TOKEN={shlex.quote(result['accessToken'])}")
        click.echo(f"export PIX_CERT_HEADER={shlex.quote(result['certHeader'])}")
    else:
        _emit(result)


@admin.group()
def cert() -> None:
    """Client certificates."""


@cert.command("link")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
@click.option(
    "--cert", "cert_file", type=click.Path(path_type=Path), required=True, help="PEM certificate file."
)
def cert_link(account_id: int, cert_file: Path) -> None:
    """Link a PEM client certificate to an account."""
    try:
        data = cert_file.read_bytes()
    except OSError as exc:
        _fail("UnreadableCertificate", f"cannot read {cert_file}: {exc.strerror}")
    try:
        info = read_pem(data)
    except PixError as exc:
        _fail(type(exc).__name__, f"{cert_file}: {exc.message}")

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        clock = await _service_clock(database)
        linked = await link_certificate(
            partial(PostgresUnitOfWork, database), account_id=account_id, certificate=info, clock=clock
        )
        return {"fingerprint": linked.fingerprint, "accountId": linked.account_id}

    _run_admin(action)


@cert.command("revoke")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
@click.option("--fingerprint", required=True, help="SHA-256 of the certificate's DER, in hex.")
def cert_revoke(account_id: int, fingerprint: str) -> None:
    """Revoke a certificate: its tokens and new tokens with it are refused at once."""

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        clock = await _service_clock(database)
        revoked = await revoke_certificate(
            partial(PostgresUnitOfWork, database), clock, account_id=account_id, fingerprint=fingerprint
        )
        assert revoked.revoked_at is not None  # noqa: S101 - revoke_certificate sets it
        return {
            "fingerprint": revoked.fingerprint,
            "accountId": revoked.account_id,
            "revokedAt": format_timestamp(revoked.revoked_at),
        }

    _run_admin(action)


@cert.command("create")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
@click.option(
    "--out", "out_dir", type=click.Path(path_type=Path), required=True, help="Folder for the files."
)
@click.option("--days", type=click.IntRange(1, 3650), default=365, show_default=True)
def cert_create(account_id: int, out_dir: Path, days: int) -> None:
    """Make a key pair and a self-signed client certificate, and link it.

    The certificate is valid from the service clock's now (which the sandbox may have moved).
    """
    key_file, cert_file = out_dir / "client-key.pem", out_dir / "client-cert.pem"
    if out_dir.exists() and not out_dir.is_dir():
        _fail("UnwritableOutput", f"{out_dir} is not a folder")
    if key_file.exists() or cert_file.exists():
        _fail("OutputExists", f"{out_dir} already holds a client certificate; choose another folder")

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        clock = await _service_clock(database)
        key_pem, cert_pem, info = create_self_signed(f"pix-client-{account_id}", now=clock.now(), days=days)
        # Files first, then the link; if the link fails the files (and a folder we made) go again.
        made_folder = not out_dir.exists()  # noqa: ASYNC240 - one-shot CLI, nothing else on this loop
        try:
            write_private(key_file, key_pem)
            cert_file.write_bytes(cert_pem)
        except OSError as exc:
            raise CommandFailed("UnwritableOutput", f"cannot write to {out_dir}: {exc.strerror}") from None
        try:
            linked = await link_certificate(
                partial(PostgresUnitOfWork, database), account_id=account_id, certificate=info, clock=clock
            )
        except BaseException:
            key_file.unlink(missing_ok=True)
            cert_file.unlink(missing_ok=True)
            if made_folder:
                out_dir.rmdir()  # noqa: ASYNC240
            raise
        return {
            "fingerprint": linked.fingerprint,
            "accountId": account_id,
            "cert": str(cert_file),
            "key": str(key_file),
        }

    _run_admin(action)


@admin.group()
def session() -> None:
    """The web console's sessions."""


def _session_out(found: ConsoleSession) -> dict[str, Any]:
    return {
        "id": found.id,
        "accountId": found.account_id,
        "createdAt": format_timestamp(found.created_at),
        "lastSeenAt": format_timestamp(found.last_seen_at),
        "endedAt": format_timestamp(found.ended_at) if found.ended_at is not None else None,
        "fingerprint": found.fingerprint,
    }


@session.command("list")
@click.option("--account", "account_id", type=int, required=True, help="Account id.")
def session_list(account_id: int) -> None:
    """Print the account's console sessions not ended (idle ones too), newest first, as
    {"sessions": [...]}; ``id`` is what ``session end --id`` takes (a hash, not the cookie)."""
    from pixcore.accounts.sessions_service import open_sessions

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        found = await open_sessions(partial(PostgresUnitOfWork, database), account_id=account_id)
        return {"sessions": [_session_out(one) for one in found]}

    _run_admin(action)


@session.command("end")
@click.option("--account", "account_id", type=int, default=None, help="End every session of this account.")
@click.option("--id", "session_id", default=None, help="End this session (an id of `session list`).")
def session_end(account_id: int | None, session_id: str | None) -> None:
    """End console sessions: every one of an account, or one by its id. Their browsers get the
    sign-in page on their next request."""
    from pixcore.accounts.sessions_service import end_account_sessions, end_session

    if (account_id is None) == (session_id is None):
        _fail("InvalidArguments", "give exactly one of --account and --id")

    async def action(_: Settings, database: Database) -> dict[str, Any]:
        uow = partial(PostgresUnitOfWork, database)
        if session_id is not None:
            return {"ended": [_session_out(await end_session(uow, SystemClock(), session=session_id))]}
        assert account_id is not None  # noqa: S101 - checked above
        count = await end_account_sessions(uow, SystemClock(), account_id=account_id)
        return {"accountId": account_id, "endedCount": count}

    _run_admin(action)


def _keep_json(context: click.Context, _: click.Parameter, value: bool) -> None:
    if value:
        context.meta["pixweb.json"] = True


def _add_json_option(command: click.Command) -> None:
    """``--json`` on every command that prints a result (a group passes it to its commands)."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _add_json_option(sub)
        return
    command.params.append(
        click.Option(
            ["--json"],
            is_flag=True,
            expose_value=False,
            callback=_keep_json,
            help="Print JSON even on a terminal (JSON is the default when stdout is not a terminal).",
        )
    )


_add_json_option(migrate)
_add_json_option(admin)
