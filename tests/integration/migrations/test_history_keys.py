"""The foreign keys to the partitioned history tables, kept by triggers (migration ``2026_12_01t06``):
an insert is checked once a statement (``history_rows_exist``, on the statement's new rows), an update
of the column by a row trigger (``history_row_exists``); both refuse as a key refuses, SQLSTATE 23503."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.contract.rows import funded

KEYS = {  # (referring table, its column): the history table it names by id
    ("charges", "transaction_id"): "transactions",
    ("idempotency_keys", "transaction_id"): "transactions",
    ("ledger_entries", "transaction_id"): "transactions",
    ("med_cases", "original_transaction_id"): "transactions",
    ("recurring_charges", "transaction_id"): "transactions",
    ("refunds", "original_transaction_id"): "transactions",
    ("refunds", "transaction_id"): "transactions",
    ("transfers", "transaction_id"): "transactions",
    ("webhook_deliveries", "outbox_id"): "outbox",
}

TRIGGERS = """
SELECT t.tgrelid::regclass::text AS owner, p.proname::text AS function, t.tgtype::int AS type,
       t.tgargs AS args
  FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
 WHERE p.proname IN ('history_row_exists', 'history_rows_exist') AND t.tgparentid = 0
"""
ROW, INSERT, UPDATE = 1, 4, 16  # bits of pg_trigger.tgtype


@pytest.fixture
async def tx(conn: asyncpg.Connection) -> AsyncIterator[asyncpg.Connection]:
    """``conn`` in a transaction rolled back at the end: nothing of the test stays."""
    transaction = conn.transaction()
    await transaction.start()
    try:
        yield conn
    finally:
        await transaction.rollback()


async def test_every_key_is_checked_by_statement_on_insert_and_by_row_on_update(
    conn: asyncpg.Connection,
) -> None:
    inserts, updates = {}, {}
    for row in await conn.fetch(TRIGGERS):
        table, column = (part.decode() for part in row["args"].split(b"\x00")[:2])
        if row["function"] == "history_rows_exist":
            assert row["type"] & (ROW | INSERT | UPDATE) == INSERT, row  # statement-level, insert only
            inserts[row["owner"], column] = table
        else:
            assert row["type"] & (ROW | INSERT | UPDATE) == ROW | UPDATE, row  # row-level, update only
            updates[row["owner"], column] = table
    assert inserts == updates == KEYS


async def test_a_statement_with_one_row_naming_no_transaction_is_refused_whole(
    pg_uow: UnitOfWorkFactory, tx: asyncpg.Connection
) -> None:
    async with pg_uow() as unit:
        account_id, transaction_id = await funded(unit)
        await unit.commit()
    missing = transaction_id + 1_000_000_000
    insert = (
        "INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)"
        " SELECT $1, gen_random_uuid(), repeat('0', 64), unnest($2::bigint[]), now()"
    )
    with pytest.raises(
        asyncpg.ForeignKeyViolationError,
        match=f"^idempotency_keys.transaction_id = {missing} names no row of transactions$",
    ):
        async with tx.transaction():
            await tx.execute(insert, account_id, [transaction_id, missing, transaction_id])
    assert await tx.fetchval("SELECT count(*) FROM idempotency_keys WHERE account_id = $1", account_id) == 0
    await tx.execute(insert, account_id, [transaction_id, transaction_id])  # every one names a row
    assert await tx.fetchval("SELECT count(*) FROM idempotency_keys WHERE account_id = $1", account_id) == 2


async def test_an_update_to_a_missing_row_is_refused_and_one_leaving_the_key_alone_is_not(
    pg_uow: UnitOfWorkFactory, tx: asyncpg.Connection
) -> None:
    async with pg_uow() as unit:
        account_id, transaction_id = await funded(unit)
        await unit.commit()
    key = uuid.uuid4()
    await tx.execute(
        "INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)"
        " VALUES ($1, $2, repeat('0', 64), $3, now())",
        account_id,
        key,
        transaction_id,
    )
    with pytest.raises(asyncpg.ForeignKeyViolationError, match="names no row of transactions"):
        async with tx.transaction():
            await tx.execute("UPDATE idempotency_keys SET transaction_id = -5 WHERE key = $1", key)
    await tx.execute("UPDATE idempotency_keys SET request_hash = repeat('1', 64) WHERE key = $1", key)
    assert (
        await tx.fetchval("SELECT transaction_id FROM idempotency_keys WHERE key = $1", key) == transaction_id
    )
