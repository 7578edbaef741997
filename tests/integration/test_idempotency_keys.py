"""Idempotency keys are kept at least 24 hours, then forgotten."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import asyncpg

from pixcore.clock import ManualClock
from pixweb.workers import purge_idempotency_keys
from tests.support import new_client


async def test_keys_survive_24_hours_and_go_after_25(migrated_database: str) -> None:
    client = await new_client()
    created = datetime(2030, 1, 1, tzinfo=UTC)
    key = uuid.uuid4()
    conn = await asyncpg.connect(migrated_database)
    try:
        transaction_id = await conn.fetchval(
            """INSERT INTO transactions (account_id, type, status, amount, created_at, updated_at)
               VALUES ($1, 'WITHDRAW', 'ERROR', 1, $2, $2) RETURNING id""",
            client.account_id,
            created,
        )
        await conn.execute(
            "INSERT INTO idempotency_keys VALUES ($1, $2, $3, $4, $5)",
            client.account_id,
            key,
            "0" * 64,
            transaction_id,
            created,
        )
        exists = "SELECT count(*) FROM idempotency_keys WHERE account_id = $1 AND key = $2"

        await purge_idempotency_keys(ManualClock(created + timedelta(hours=24)))
        assert await conn.fetchval(exists, client.account_id, key) == 1

        await purge_idempotency_keys(ManualClock(created + timedelta(hours=25, seconds=1)))
        assert await conn.fetchval(exists, client.account_id, key) == 0
    finally:
        await conn.close()
