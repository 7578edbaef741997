"""What the integration tests share: a connection of their own to the migrated database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest


@pytest.fixture
async def conn(migrated_database: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(migrated_database)
    try:
        yield connection
    finally:
        await connection.close()
