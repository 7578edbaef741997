"""``pixnet``: the simulated PIX network's process and its operator's commands.

pixnet serve                                      # the DICT over mutual TLS (PIXNET_* settings)
pixnet migrate                                    # make or bring the network's database up to date
pixnet admin participant add ISPB NAME CERT.pem   # register an institution by its certificate
pixnet admin participant list
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import click
from aiohttp import web
from cryptography import x509

from pixcore.errors import InvalidAmount
from pixcore.identifiers import ISPB_PATTERN
from pixcore.money import format_amount_string, parse_amount_string
from pixinfra.logs import configure_logging
from pixinfra.postgres.database import embedded_database_url, ensure_database, stop_embedded
from pixnet.directory.claims import ClaimPeriods
from pixnet.pki import init_pki
from pixnet.server.app import Identity, make_app
from pixnet.server.tls import server_context
from pixnet.settings import NetworkSettings, SettingsError
from pixnet.settlement.spi import check_ledger, compare_ledgers, flows, fund
from pixnet.store.entries import add_participant
from pixnet.store.schema import migrate

__all__ = ["main"]

log = logging.getLogger("pixnet")

DATABASE = "pixnet"


def _settings() -> NetworkSettings:
    try:
        return NetworkSettings.from_environment()
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from exc


async def _database_url(settings: NetworkSettings) -> str:
    if settings.database_url is not None:
        url = settings.database_url
    else:
        url = await asyncio.to_thread(embedded_database_url, settings.data_dir, DATABASE)
    await ensure_database(url)
    return url


@asynccontextmanager
async def _migrated(settings: NetworkSettings) -> AsyncIterator[asyncpg.Pool[Any]]:
    """A pool on the network's database, migrated."""
    url = await _database_url(settings)
    pool = await asyncpg.create_pool(url, min_size=1, max_size=10)
    try:
        async with pool.acquire() as connection:
            await migrate(connection)
        yield pool
    finally:
        await pool.close()


@click.group()
def main() -> None:
    """The simulated PIX network: a DICT (and, in time, an SPI) several institutions share."""
    configure_logging()


@main.command("migrate")
def migrate_command() -> None:
    """Create the network's database if needed and apply its migrations."""
    settings = _settings()

    async def run() -> None:
        async with _migrated(settings):
            pass

    try:
        asyncio.run(run())
    finally:
        stop_embedded()
    click.echo("the network's database is current")


@main.command()
def serve() -> None:
    """Serve the DICT API over mutual TLS until stopped (SIGINT or SIGTERM)."""
    settings = _settings()
    try:
        certificate, private_key, authority = settings.tls_files()
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from exc
    context = server_context(certificate=certificate, private_key=private_key, authority=authority)
    identity = Identity(certificate.read_bytes(), private_key.read_bytes())

    async def application() -> web.Application:
        url = await _database_url(settings)
        pool = await asyncpg.create_pool(url, min_size=1, max_size=10)
        async with pool.acquire() as connection:
            await migrate(connection)
        periods = ClaimPeriods(
            resolution=timedelta(seconds=settings.claim_resolution),
            completion=timedelta(seconds=settings.claim_completion),
        )
        app = make_app(
            pool, identity, payee_timeout=timedelta(seconds=settings.payee_timeout), claim_periods=periods
        )

        async def close(_: web.Application) -> None:
            await pool.close()

        app.on_cleanup.append(close)
        log.info("the network listens on https://%s:%d", settings.host, settings.port)
        return app

    try:
        web.run_app(application(), host=settings.host, port=settings.port, ssl_context=context, print=None)
    finally:
        stop_embedded()


@main.group()
def admin() -> None:
    """The operator's commands on the network's database."""


@admin.group()
def pki() -> None:
    """A sandbox network's certificates."""


@pki.command("init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--participant", "participants", multiple=True, help="An ISPB to make a certificate for (repeatable)."
)
def pki_init(folder: Path, participants: tuple[str, ...]) -> None:
    """Write an authority, the network's certificate and one per participant to FOLDER (RSA 2048):
    the files PIXNET_CERTIFICATE, PIXNET_PRIVATE_KEY and PIXNET_CA_CERTIFICATE and each
    institution's PIX_NETWORK_* name. A folder that holds an authority already is refused."""
    for ispb in participants:
        _check_ispb(ispb)
    if (folder / "ca.pem").exists():
        raise click.ClickException(f"{folder} holds an authority already (ca.pem): choose another folder")
    made = init_pki(folder, list(participants))
    click.echo(json.dumps({name: str(issued.certificate) for name, issued in made.items()}))


@admin.group()
def participant() -> None:
    """The institutions of the network."""


@participant.command("add")
@click.argument("ispb")
@click.argument("name")
@click.argument("certificate", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def participant_add(ispb: str, name: str, certificate: Path) -> None:
    """Register the institution ISPB, known by CERTIFICATE (PEM), which its client connects and
    signs with; the same ISPB again replaces its name and certificate."""
    _check_ispb(ispb)
    if not name.strip() or len(name) > 140:
        raise click.BadParameter("1 to 140 characters", param_hint="NAME")
    pem = certificate.read_bytes()
    try:
        x509.load_pem_x509_certificate(pem)
    except ValueError as exc:
        raise click.BadParameter(f"not a PEM certificate ({exc})", param_hint="CERTIFICATE") from exc
    settings = _settings()

    async def run() -> dict[str, str]:
        async with _migrated(settings) as pool, pool.acquire() as connection:
            added = await add_participant(connection, ispb, name, pem)
        return {"ispb": added.ispb, "name": added.name, "fingerprint": added.fingerprint}

    try:
        click.echo(json.dumps(asyncio.run(run())))
    finally:
        stop_embedded()


@participant.command("list")
def participant_list() -> None:
    """Every institution: ISPB, name and certificate fingerprint, one JSON object a line."""
    settings = _settings()

    async def run() -> list[dict[str, str]]:
        async with _migrated(settings) as pool:
            rows = await pool.fetch("SELECT ispb, name, fingerprint FROM participants ORDER BY ispb")
        return [dict(row) for row in rows]

    try:
        for row in asyncio.run(run()):
            click.echo(json.dumps(row))
    finally:
        stop_embedded()


def _check_ispb(ispb: str) -> str:
    if not re.fullmatch(ISPB_PATTERN, ispb):
        raise click.BadParameter("an ISPB is 8 digits", param_hint="ISPB")
    return ispb


def _cents(amount: str) -> int:
    try:
        cents = parse_amount_string(amount)
    except InvalidAmount as exc:
        raise click.BadParameter("an amount like 1000.00 (reais, two decimals)", param_hint="AMOUNT") from exc
    if cents == 0:
        raise click.BadParameter("an amount above zero", param_hint="AMOUNT")
    return cents


@admin.group()
def settlement() -> None:
    """The institutions' settlement accounts at the SPI."""


def _move(ispb: str, cents: int) -> None:
    settings = _settings()
    reference = f"operator-{secrets.token_hex(8)}"

    async def run() -> int:
        async with _migrated(settings) as pool, pool.acquire() as connection:
            return await fund(connection, ispb, cents, reference, datetime.now(UTC))

    try:
        balance = asyncio.run(run())
    except (LookupError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        stop_embedded()
    click.echo(json.dumps({"ispb": ispb, "balance": format_amount_string(balance), "reference": reference}))


@settlement.command("fund")
@click.argument("ispb")
@click.argument("amount")
def settlement_fund(ispb: str, amount: str) -> None:
    """Put AMOUNT (reais, e.g. 1000.00) into ISPB's settlement account."""
    _move(_check_ispb(ispb), _cents(amount))


@settlement.command("withdraw")
@click.argument("ispb")
@click.argument("amount")
def settlement_withdraw(ispb: str, amount: str) -> None:
    """Take AMOUNT (reais) out of ISPB's settlement account (never more than it holds)."""
    _move(_check_ispb(ispb), -_cents(amount))


@settlement.command("show")
def settlement_show() -> None:
    """Every settlement account: ISPB and balance, one JSON object a line."""
    settings = _settings()

    async def run() -> list[dict[str, str]]:
        async with _migrated(settings) as pool:
            rows = await pool.fetch("SELECT ispb, balance FROM settlement_accounts ORDER BY ispb")
        return [{"ispb": row["ispb"], "balance": format_amount_string(row["balance"])} for row in rows]

    try:
        for row in asyncio.run(run()):
            click.echo(json.dumps(row))
    finally:
        stop_embedded()


@admin.group()
def ledger() -> None:
    """The settlement's books."""


def _ledger_report(value: str) -> tuple[str, dict[str, Any]]:
    ispb, _, path = value.partition("=")
    _check_ispb(ispb)
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.BadParameter(
            f"{path}: not a readable JSON report ({exc})", param_hint="--institution"
        ) from exc
    if not isinstance(report, dict) or "outside" not in report:
        raise click.BadParameter(
            f"{path}: not the report of `pixweb admin ledger check`", param_hint="--institution"
        )
    return ispb, report


@ledger.command("check")
@click.option(
    "--institution",
    "institutions",
    multiple=True,
    metavar="ISPB=FILE",
    help="An institution's `pixweb admin ledger check` report (JSON): prove the whole network (repeatable).",
)
def ledger_check(institutions: tuple[str, ...]) -> None:
    """Prove the settlement's books from their rows; with each institution's own ledger report
    (``--institution 11111111=bank-a.json``), that money is conserved across the network: every
    report holds, and what each institution's books say went to another is what the SPI settled
    between them. A JSON report; exit status 1 when something does not hold."""
    reports = dict(_ledger_report(value) for value in institutions)
    settings = _settings()

    async def run() -> dict[str, Any]:
        async with _migrated(settings) as pool, pool.acquire() as connection:
            report = await check_ledger(connection)
            if reports:
                participants = {
                    row["ispb"] for row in await connection.fetch("SELECT ispb FROM participants")
                }
                mismatches = compare_ledgers(await flows(connection), participants, reports)
                report |= {"institutions": sorted(reports), "networkMismatches": mismatches}
                report["ok"] = report["ok"] and not mismatches
            return report

    try:
        report = asyncio.run(run())
    finally:
        stop_embedded()
    click.echo(json.dumps(report))
    if not report["ok"]:
        raise SystemExit(1)
