"""Helpers for tests that need accounts, certificates and tokens."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

import asyncpg
import httpx

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.accounts.rules import OpenedAccount
from pixcore.clock import SystemClock
from pixcore.documents import cpf_check_digits
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.database import with_database
from pixinfra.postgres.pool import Database
from pixweb.security.certificates import create_self_signed
from pixweb.security.secrets import Argon2Hasher

# The run's database: the ``database`` fixture (tests/conftest.py) puts it here.
RUN_DATABASE: list[Database] = []


def run_database() -> Database:
    """The run's database, migrated and open (the ``database`` fixture must be in use)."""
    if not RUN_DATABASE:
        raise RuntimeError("the run's database is not open: use the `database` fixture")
    return RUN_DATABASE[0]


def pg_uow() -> PostgresUnitOfWork:
    """A unit of work on the run's database: the ``UnitOfWorkFactory`` the helpers and tests use."""
    return PostgresUnitOfWork(run_database())


HASHER = Argon2Hasher()


def random_cpf(rng: random.Random | None = None) -> str:
    rng = rng or random.Random()  # noqa: S311 - test data, not secrets
    while True:
        base = "".join(rng.choice("0123456789") for _ in range(9))
        if len(set(base)) > 1:
            return base + cpf_check_digits(base)


@dataclass(frozen=True)
class Client:
    """An account as its API client sees it: credentials, certificate, header value."""

    opened: OpenedAccount
    cert_pem: bytes
    fingerprint: str

    @property
    def account_id(self) -> int:
        return self.opened.account.id

    @property
    def cert_header(self) -> str:
        return quote(self.cert_pem.decode(), safe="")

    @property
    def credentials(self) -> dict[str, str]:
        return {"clientId": self.opened.client_id, "clientSecret": self.opened.client_secret}


def certificate_header(pem: bytes) -> str:
    return quote(pem.decode(), safe="")


async def new_client(
    *, link: bool = True, cert_now: datetime | None = None, days: int = 365, sandbox_admin: bool = False
) -> Client:
    """Open an account with a random CPF and a random key, and (by default) link a new certificate.
    ``sandbox_admin``: as ``pixweb admin account create --sandbox-admin`` (it may move the clock).

    With ``cert_now`` the certificate is valid from then: one that expired (or is not yet valid)
    by now is linked as if it had been linked while valid, through the repository, since
    ``link_certificate`` refuses it today.
    """
    opened = await open_account(
        pg_uow,
        HASHER,
        ispb="99999999",
        name="Test Holder",
        document=random_cpf(),
        city="RECIFE",
        sandbox_admin=sandbox_admin,
    )
    _, cert_pem, info = create_self_signed(f"test-{opened.account.id}", now=cert_now, days=days)
    if link and cert_now is None:
        await link_certificate(pg_uow, account_id=opened.account.id, certificate=info, clock=SystemClock())
    elif link:
        async with pg_uow() as tx:
            await tx.certificates.link(opened.account.id, info)
            await tx.commit()
    return Client(opened=opened, cert_pem=cert_pem, fingerprint=info.fingerprint)


async def bearer(http: httpx.AsyncClient, client: Client) -> dict[str, str]:
    """The Authorization header of a fresh token for ``client``."""
    response = await http.post(
        "/api/auth/token", json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    if response.status_code != 201:
        raise AssertionError(f"token refused: {response.status_code} {response.text}")
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


async def fund(http: httpx.AsyncClient, client: Client, auth: dict[str, str], amount: str) -> None:
    """Credit ``amount`` (a decimal string) to the client's first key, as an outside payer would."""
    key = client.opened.keys[0].value
    response = await http.post("/sandbox/payments", json={"pixKey": key, "amount": amount}, headers=auth)
    if response.status_code != 201:
        raise AssertionError(f"funding refused: {response.status_code} {response.text}")


async def ledger_report(url: str) -> dict[str, object]:
    """The reconciliation report over the whole database."""
    import asyncpg

    from pixinfra.persistence.ledger_check import check_ledger

    conn = await asyncpg.connect(url)
    try:
        return await check_ledger(conn)
    finally:
        await conn.close()


async def add_external_key(
    http: httpx.AsyncClient,
    auth: dict[str, str],
    *,
    behavior: str = "settle",
    ispb: str = "12345678",
    name: str = "Outside Person",
) -> tuple[str, str]:
    """Register a key of another bank in the sandbox directory; returns (key, owner's document)."""
    import uuid

    key, document = f"{uuid.uuid4().hex[:12]}@external.example", random_cpf()
    entry = {
        "pixKey": key,
        "ispb": ispb,
        "name": name,
        "document": document,
        "bankName": "OTHER BANK",
        "branch": "0001",
        "accountNumber": "123",
        "behavior": behavior,
    }
    response = await http.post("/sandbox/dict", json=entry, headers=auth)
    if response.status_code != 201:
        raise AssertionError(f"directory refused the key: {response.status_code} {response.text}")
    return key, document


async def fetch_rows(url: str, sql: str, *args: object) -> list[asyncpg.Record]:
    """Rows of one query, on a connection of its own (to look behind the API)."""
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()


@asynccontextmanager
async def scratch_database(server_url: str, prefix: str) -> AsyncIterator[str]:
    """The URL of a new, empty database on the run's server (``prefix`` names whose it is),
    dropped, with whatever connections still use it, when the block ends."""
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    admin = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield with_database(server_url, name)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def process_env(url: str, data_dir: Path, **variables: str) -> dict[str, str]:
    """This process's environment without its ``PIX_*``, for a ``pixweb``/``pixnotify`` process on
    ``url`` with ``data_dir`` (and ``variables``), webhooks to 127.0.0.1 allowed, warnings only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
    return (
        env
        | {
            "PIX_DATABASE_URL": url,
            "PIX_DATA_DIR": str(data_dir),
            "PIX_WEBHOOK_ALLOW_PRIVATE": "on",
            "PIX_LOG_LEVEL": "WARNING",
        }
        | variables
    )


async def migrated_by_command(url: str, data_dir: Path) -> str:
    """``url``, migrated by ``pixweb migrate`` in a process of its own (Piccolo migrates one
    database per process, and this one has migrated the run's database already)."""
    migrated = await asyncio.create_subprocess_exec(
        Path(sys.executable).parent / "pixweb", "migrate", env=process_env(url, data_dir),
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    assert await migrated.wait() == 0
    return url


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def serving(env: dict[str, str], port: int) -> AsyncIterator[str]:
    """``pixweb serve --no-demo`` with ``env`` on ``port``, once it answers ``/health/ready``;
    its base URL. Stopped (SIGTERM, then waited for) on the way out."""
    process = await asyncio.create_subprocess_exec(
        Path(sys.executable).parent / "pixweb", "serve", "--no-demo", env=env | {"PIX_PORT": str(port)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                if process.returncode is not None:
                    raise AssertionError(f"pixweb serve exited early ({process.returncode})")
                try:
                    if (await http.get(f"{base}/health/ready")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("pixweb serve did not answer within 30 s")
        yield base
    finally:
        process.terminate()
        await process.wait()


@asynccontextmanager
async def opened_database(url: str, *, max_size: int) -> AsyncIterator[Database]:
    """A :class:`Database` of its own on ``url`` (not the run's), closed on the way out."""
    database = Database()
    await database.open(url, min_size=1, max_size=max_size)
    try:
        yield database
    finally:
        await database.close()
