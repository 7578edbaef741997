"""``pixinfra.postgres.pool.Database``: its transactions commit on success, roll back on an
exception, and always give the connection back to the pool."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from pixinfra.postgres.pool import Database


class Boom(Exception):
    pass


@pytest.fixture
async def opened(migrated_database: str) -> AsyncIterator[tuple[Database, str]]:
    """A Database of the test's own on the run's database (the pool's counts are the test's), and
    an empty table of the test's own."""
    database = Database()
    await database.open(migrated_database, min_size=1, max_size=2)
    table = f"probe_{uuid.uuid4().hex[:8]}"
    async with database.acquire() as conn:
        await conn.execute(f"CREATE TABLE {table} (x int)")
    try:
        yield database, table
    finally:
        async with database.acquire() as conn:
            await conn.execute(f"DROP TABLE {table}")
        await database.close()


async def _count(database: Database, table: str) -> int:
    count: int = await database.pool.fetchval(f"SELECT count(*) FROM {table}")  # noqa: S608 - our own name
    return count


async def test_a_transaction_commits_when_its_block_ends(opened: tuple[Database, str]) -> None:
    database, table = opened
    async with database.transaction() as conn:
        await conn.execute(f"INSERT INTO {table} VALUES (1), (2)")  # noqa: S608
        assert conn.is_in_transaction()
    assert await _count(database, table) == 2


async def test_a_transaction_rolls_back_when_its_block_raises(opened: tuple[Database, str]) -> None:
    database, table = opened
    with pytest.raises(Boom):  # noqa: PT012 - the error must cross the transaction's exit
        async with database.transaction() as conn:
            await conn.execute(f"INSERT INTO {table} VALUES (1)")  # noqa: S608
            raise Boom
    assert await _count(database, table) == 0


async def test_the_connection_goes_back_to_the_pool_either_way(opened: tuple[Database, str]) -> None:
    database, table = opened
    idle = database.pool.get_idle_size()
    for _ in range(5):  # more than the pool holds: a connection kept would block the third
        async with database.transaction() as conn:
            await conn.execute(f"INSERT INTO {table} VALUES (1)")  # noqa: S608
        with pytest.raises(asyncpg.UndefinedTableError):
            async with database.transaction() as conn:
                await conn.execute("INSERT INTO no_such_table VALUES (1)")
    assert database.pool.get_idle_size() == idle
    async with database.acquire() as conn:
        assert not conn.is_in_transaction()
    assert await _count(database, table) == 5


async def test_a_closed_database_has_no_pool(migrated_database: str) -> None:
    database = Database()
    assert not database.is_open
    with pytest.raises(RuntimeError, match="not open"):
        _ = database.pool
    await database.open(migrated_database, min_size=0, max_size=1)
    try:
        assert database.is_open
        assert database.url == migrated_database
        with pytest.raises(RuntimeError, match="open already"):
            await database.open(migrated_database)
    finally:
        await database.close()
    await database.close()  # twice is harmless
    assert not database.is_open
