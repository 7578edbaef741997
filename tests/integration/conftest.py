"""What the integration tests share: a connection of their own to the migrated database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest


@pytest.fixture
async def conn(migrated_database: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection of its own, outside any unit of work: it sees only what was committed."""
    connection = await asyncpg.connect(migrated_database)
    try:
        yield connection
    finally:
        await connection.close()
