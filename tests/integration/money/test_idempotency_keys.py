"""Idempotency keys are kept at least 24 hours of real time, then forgotten.

Their age is read on the database's clock (``stored_at``), never on the service clock, which the
sandbox moves forward: ``tests/e2e/sandbox/test_sandbox_clock.py`` shows a move forgetting no key.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import asyncpg

from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixweb.workers import purge_idempotency_keys
from tests.support import new_client


async def _store_key(conn: asyncpg.Connection, account_id: int, age: timedelta) -> uuid.UUID:
    """A key stored ``age`` ago by real time, its service-clock ``created_at`` far in the past."""
    created = datetime(2000, 1, 1, tzinfo=UTC)
    transaction_id = await conn.fetchval(
        """INSERT INTO transactions (account_id, type, status, amount, created_at, updated_at)
           VALUES ($1, 'WITHDRAW', 'ERROR', 1, $2, $2) RETURNING id""",
        account_id,
        created,
    )
    key = uuid.uuid4()
    await conn.execute(
        """INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at, stored_at)
           VALUES ($1, $2, $3, $4, $5, now() - $6::interval)""",
        account_id,
        key,
        "0" * 64,
        transaction_id,
        created,
        age,
    )
    return key


async def test_keys_survive_24_hours_and_go_after_25(
    database: Database, pg_uow: UnitOfWorkFactory, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    conn = await asyncpg.connect(migrated_database)
    try:
        kept = await _store_key(conn, client.account_id, timedelta(hours=24))
        gone = await _store_key(conn, client.account_id, timedelta(hours=25, seconds=1))
        await purge_idempotency_keys(database)
        rows = await conn.fetch("SELECT key FROM idempotency_keys WHERE account_id = $1", client.account_id)
    finally:
        await conn.close()
    assert {row["key"] for row in rows} == {kept}
    assert gone not in {row["key"] for row in rows}
