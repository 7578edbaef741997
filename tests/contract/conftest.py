"""The contract suites: one test, two implementations of a port (the in-memory fake and
PostgreSQL), so that the fake the unit tests trust cannot drift from the adapter.

The PostgreSQL half works on a database of its own (created and migrated once per run, its
delivery tables emptied before each test), so that a claim sees only the test's own deliveries.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from pixcore.ports import DeliveryStore
from pixcore.testing import InMemoryDeliveryStore
from pixnotify.store import PostgresDeliveryStore
from tests.conftest import RUN_ID
from tests.contract.rows import MemoryRows, PostgresRows, Rows


@pytest.fixture(scope="session")
async def contract_pool(database_server: str) -> AsyncIterator[asyncpg.Pool[asyncpg.Record]]:
    from pixinfra.postgres.database import with_database
    from pixinfra.runtime import database_ready
    from pixinfra.settings import Settings

    name = f"pixcontract_{RUN_ID}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        async with database_ready(Settings(database_url=with_database(database_server, name))) as database:
            yield database.pool
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
