"""Fixtures of the security suite: the real app (as in ``tests/e2e``), two signed-in accounts,
and names that resolve only inside a test.

Every test here plays an attacker against the service as deployed: no fakes of the service's
own parts, only of the outside world (DNS answers, a receiver on 127.0.0.1).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from pixcore.clock import SystemClock
from pixcore.testing import StaticResolver
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from tests.e2e.conftest import Api, fresh_client, running_api
from tests.support import Client, bearer, new_client

__all__ = [
    "ERROR_KEYS",
    "Served",
    "Signed",
    "all_logs",
    "assert_error",
    "log_text",
    "signed_in",
]

ERROR_KEYS = {"statusCode", "message", "error"}


@pytest.fixture(scope="module")
def resolver() -> StaticResolver:
    """The app's host resolver: the names of the test's ``dns`` table only (others do not
    resolve), so that no test asks a real DNS server."""
    return StaticResolver()


@pytest.fixture(scope="module")
async def module_api(
    database: Database, tmp_path_factory: pytest.TempPathFactory, resolver: StaticResolver
) -> AsyncIterator[Api]:
    """The API as deployed by default: private webhook addresses refused, workers off (tests
    drive settlement), the sandbox on. One per module, as ``tests/e2e``'s (``api`` gives each test a
    client of its own on it)."""
    settings = Settings(database_url=database.url, data_dir=tmp_path_factory.mktemp("api"), run_workers=False)
    assert settings.webhook_allow_private is False
    async with running_api(settings, SystemClock(), database, resolver=resolver) as running:
        yield running


@dataclass(frozen=True)
class Signed:
    """An account with a fresh token."""

    client: Client
    auth: dict[str, str]

    @property
    def account_id(self) -> int:
        return self.client.account_id

    @property
    def key(self) -> str:
        return self.client.opened.keys[0].value


async def signed_in(pg_uow: UnitOfWorkFactory, http: httpx.AsyncClient, *, company: bool = False) -> Signed:
    """``company``: a company's account (Pix Automático receives only for one)."""
    client = await new_client(pg_uow, company=company)
    return Signed(client, await bearer(http, client))


def assert_error(response: httpx.Response, status: int, *, reasons: tuple[str, ...] = ()) -> dict[str, Any]:
    """The service's error shape with ``status``; ``reasons``: the accepted ``error`` phrases."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert ERROR_KEYS <= set(body) <= ERROR_KEYS | {"details"}, body
    assert body["statusCode"] == status
    assert isinstance(body["message"], str)
    assert body["message"]
    if reasons:
        assert body["error"] in reasons, body
    assert "Traceback" not in response.text
    return body


@pytest.fixture
async def api(module_api: Api) -> AsyncIterator[Api]:
    """The module's app with a client of this test's own (its own cookies)."""
    async with fresh_client(module_api) as fresh:
        yield fresh


@pytest.fixture
async def own_api(database: Database, tmp_path: Path, resolver: StaticResolver) -> AsyncIterator[Api]:
    """An app of this test's own (a test that changes the app: its clock, its counters)."""
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False)
    async with running_api(settings, SystemClock(), database, resolver=resolver) as running:
        yield running


@pytest.fixture
def dns(resolver: StaticResolver) -> Iterator[dict[str, list[str]]]:
    """Names answered by the app's resolver for this test; the test fills (and may change) the table,
    which starts empty and is emptied afterwards (the app, and its resolver, serve the module)."""
    resolver.hosts.clear()
    yield resolver.hosts
    resolver.hosts.clear()


_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


@contextmanager
def all_logs() -> Iterator[list[logging.LogRecord]]:
    """Every log record of every logger, at DEBUG, while the block runs (levels, handlers and
    ``disabled`` flags are put back afterwards)."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(logging.DEBUG)
    root = logging.getLogger()
    loggers = [root] + [
        logger for logger in logging.root.manager.loggerDict.values() if isinstance(logger, logging.Logger)
    ]
    saved = [(logger, logger.level, logger.disabled) for logger in loggers]
    holders = [root] + [logger for logger in loggers if not logger.propagate]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        logger.disabled = False
    for logger in holders:
        logger.addHandler(keep)
    try:
        yield records
    finally:
        for logger in holders:
            logger.removeHandler(keep)
        for logger, level, disabled in saved:
            logger.setLevel(level)
            logger.disabled = disabled


def log_text(records: list[logging.LogRecord]) -> str:
    """All a log record could show anywhere: its message, arguments, traceback, stack and any
    extra fields (what a structured formatter would print)."""
    formatter = logging.Formatter()
    lines: list[str] = []
    for record in records:
        lines.append(f"{record.name} {record.levelname} {record.getMessage()} {record.msg!r} {record.args!r}")
        if record.exc_info:
            lines.append(formatter.formatException(record.exc_info))
        if record.exc_text:
            lines.append(record.exc_text)
        if record.stack_info:
            lines.append(record.stack_info)
        extra = {name: value for name, value in vars(record).items() if name not in _RECORD_FIELDS}
        if extra:
            lines.append(repr(extra))
    return "\n".join(lines)


@dataclass(frozen=True)
class Served:
    """``pixweb serve`` as a real process: what reaches it goes through uvicorn's HTTP parser."""

    port: int
    max_header_bytes: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


SERVED_MAX_HEADER_BYTES = 32_768  # set, rather than the default, to show the setting is what decides


@pytest.fixture(scope="session")
async def served(migrated_database: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Served]:
    """One ``pixweb serve`` process for the session (workers off), with
    ``PIX_MAX_HEADER_BYTES=32768``; stopped with SIGTERM at the end."""
    from tests.e2e.cli.test_cli import PIXWEB, _base_env

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    env = _base_env(tmp_path_factory.mktemp("served")) | {
        "PIX_DATABASE_URL": migrated_database,
        "PIX_WORKERS": "off",
        "PIX_LOG_LEVEL": "WARNING",
        "PIX_MAX_HEADER_BYTES": str(SERVED_MAX_HEADER_BYTES),
    }
    server = await asyncio.create_subprocess_exec(
        str(PIXWEB),
        "serve",
        "--no-demo",
        "--port",
        str(port),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    running = Served(port, SERVED_MAX_HEADER_BYTES)
    try:
        async with httpx.AsyncClient(base_url=running.base_url, timeout=10) as http:
            for _ in range(600):  # up to a minute or two on a busy machine
                assert server.returncode is None, "pixweb serve exited before it answered"
                with suppress(httpx.TransportError):
                    if (await http.get("/health/live")).status_code == 200:
                        break
                await asyncio.sleep(0.2)
            else:
                pytest.fail("pixweb serve did not answer /health/live")
        yield running
    finally:
        if server.returncode is None:
            server.terminate()
            try:
                await asyncio.wait_for(server.wait(), timeout=40)
            except TimeoutError:
                server.kill()
                await server.wait()
