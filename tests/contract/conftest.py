"""The contract suites: one test, two implementations of a port (the in-memory fake and
PostgreSQL), so that the fake the unit tests trust cannot drift from the adapter.

The PostgreSQL half works on a database of its own (created and migrated once per run, its
webhook tables emptied before each test), so that a claim sees only the test's own deliveries.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from pixcore.ports import DeliveryStore
from pixcore.testing import InMemoryDeliveryStore
from pixnotify.store import PostgresDeliveryStore
from tests.conftest import RUN_ID
from tests.contract.rows import MemoryRows, PostgresRows, Rows


@pytest.fixture(scope="session")
async def contract_pool(
    database_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[asyncpg.Pool[asyncpg.Record]]:
    """A database of the contract suites' own, migrated by ``pixweb migrate`` (a process of its own:
    Piccolo migrates one database per process, and this one has migrated the run's already)."""
    from pixinfra.postgres.database import with_database

    name = f"pixcontract_{RUN_ID}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = with_database(database_server, name)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
        env |= {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path_factory.mktemp("contract"))}
        migrated = await asyncio.create_subprocess_exec(
            Path(sys.executable).parent / "pixweb", "migrate", env=env, stdout=subprocess.DEVNULL
        )
        assert await migrated.wait() == 0
        async with asyncpg.create_pool(url, min_size=1, max_size=8) as pool:
            yield pool
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@pytest.fixture
async def empty_tables(contract_pool: asyncpg.Pool[asyncpg.Record]) -> asyncpg.Pool[asyncpg.Record]:
    """The contract database with no events, registrations, secrets or deliveries (accounts stay)."""
    await contract_pool.execute("TRUNCATE webhook_deliveries, outbox, webhooks, webhook_secrets")
    return contract_pool


@pytest.fixture(params=["memory", "postgres"])
def store(request: pytest.FixtureRequest) -> DeliveryStore:
    """The port, in memory and on PostgreSQL (asked for only by the ``postgres`` half)."""
    if request.param == "memory":
        return InMemoryDeliveryStore()
    pool: asyncpg.Pool[asyncpg.Record] = request.getfixturevalue("empty_tables")
    return PostgresDeliveryStore(pool)


@pytest.fixture
def rows(store: DeliveryStore) -> Rows:
    """The seeding and reading side of the same store."""
    if isinstance(store, InMemoryDeliveryStore):
        return MemoryRows(store)
    assert isinstance(store, PostgresDeliveryStore)
    return PostgresRows(store.pool)
