"""Idempotency keys are honoured at least 24 hours of real time, then forgotten; a key is claimed
once per account however its claims fall on the table's day partitions.

Their age is read on the database's clock (``stored_at``), never on the service clock, which the
sandbox moves forward: ``tests/e2e/sandbox/test_sandbox_clock.py`` shows a move forgetting no key.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from pixcore.transfers.rules import IDEMPOTENCY_WINDOW
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.idempotency import (
    BALANCE_AND_TAKEN,
    LIVE,
    LOCK_KEYS,
    LOCK_SPACE,
    PostgresIdempotency,
    key_locks,
)
from pixinfra.postgres.partitions import KEYS, PartitionInfo, list_partitions
from pixinfra.postgres.pool import Database
from pixinfra.postgres.retention import release_key_days
from tests.integration.partitions.databases import forwards, own_database
from tests.support import new_client

PAST = datetime(2000, 1, 1, tzinfo=UTC)
KIND = "SELECT relkind::text FROM pg_class WHERE relname = 'idempotency_keys'"  # r: a table, p: partitioned


@dataclass
class _On:
    """What a repository runs on: here, a test's own connection."""

    connection: Any


def _keys(conn: asyncpg.Connection) -> PostgresIdempotency:
    return PostgresIdempotency(_On(conn))


async def _record(conn: asyncpg.Connection, account_id: int) -> int:
    transaction_id: int = await conn.fetchval(
        """INSERT INTO transactions (account_id, type, status, amount, created_at, updated_at)
           VALUES ($1, 'WITHDRAW', 'ERROR', 1, $2, $2) RETURNING id""",
        account_id,
        PAST,
    )
    return transaction_id


async def _store_key(
    conn: asyncpg.Connection, account_id: int, age: timedelta, key: uuid.UUID | None = None
) -> uuid.UUID:
    """A key stored ``age`` ago by real time (negative: ahead), its service-clock ``created_at`` far
    in the past."""
    key = key or uuid.uuid4()
    await conn.execute(
        """INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at, stored_at)
           VALUES ($1, $2, $3, $4, $5, now() - $6::interval)""",
        account_id,
        key,
        "0" * 64,
        await _record(conn, account_id),
        PAST,
        age,
    )
    return key


def test_the_live_condition_is_the_window() -> None:
    hours = IDEMPOTENCY_WINDOW / timedelta(hours=1)
    expected = f"stored_at > now() - interval '{hours:g} hours'"
    assert expected == LIVE


async def test_keys_are_honoured_24_hours_and_not_after_25(
    pg_uow: UnitOfWorkFactory, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    conn = await asyncpg.connect(migrated_database)
    try:
        kept = await _store_key(conn, client.account_id, timedelta(hours=24))
        gone = await _store_key(conn, client.account_id, timedelta(hours=25, seconds=1))
        async with conn.transaction():
            keys = _keys(conn)
            assert await keys.find(client.account_id, kept) is not None
            assert await keys.find(client.account_id, gone) is None
            assert set(await keys.find_many(client.account_id, [kept, gone])) == {kept}
            taken = await keys.claim(
                client.account_id, kept, "1" * 64, await _record(conn, client.account_id), PAST
            )
            again = await keys.claim(
                client.account_id, gone, "1" * 64, await _record(conn, client.account_id), PAST
            )
        assert (taken, again) == (False, True)  # the old key is a new request's
        found = await _keys(conn).find(client.account_id, gone)
    finally:
        await conn.close()
    assert found is not None
    assert found.request_hash == "1" * 64


async def test_a_claim_waits_for_a_concurrent_claim_of_its_key_on_another_day(
    database: Database, pg_uow: UnitOfWorkFactory, migrated_database: str
) -> None:
    """Two claims of one key whose rows fall on two day partitions (no unique index spans them):
    the second waits for the first's advisory lock, then finds the key taken."""
    client = await new_client(pg_uow)
    key = uuid.uuid4()
    first = await asyncpg.connect(migrated_database)
    second = await asyncpg.connect(migrated_database)
    try:
        holding = first.transaction()
        await holding.start()
        await first.execute(LOCK_KEYS, key_locks(client.account_id, [key]))  # what a claim does first
        # The first claim's row lands on tomorrow's partition, the second's on today's.
        await _store_key(first, client.account_id, timedelta(days=-1), key)
        days = {
            await first.fetchval(
                "SELECT tableoid::regclass::text FROM idempotency_keys WHERE account_id = $1 AND key = $2",
                client.account_id,
                key,
            )
        }
        async with second.transaction():
            record = await _record(second, client.account_id)
            claiming = asyncio.create_task(
                _keys(second).claim(client.account_id, key, "1" * 64, record, PAST)
            )
            await asyncio.sleep(0.3)
            assert not claiming.done()  # waiting for the first claim's outcome
            await holding.commit()
            assert await claiming is False
        rows = await second.fetch(
            "SELECT tableoid::regclass::text AS day FROM idempotency_keys WHERE account_id = $1 AND key = $2",
            client.account_id,
            key,
        )
    finally:
        await first.close()
        await second.close()
    assert len(rows) == 1
    assert {row["day"] for row in rows} == days
    assert days != {"idempotency_keys_default"}


async def _days(conn: asyncpg.Connection) -> list[PartitionInfo]:
    """The keys' partitions with an end (not the DEFAULT one), oldest first."""
    return [info for info in await list_partitions(conn) if info.table == KEYS.name and info.end is not None]


@pytest.fixture
async def keys_database(database_server: str) -> AsyncIterator[str]:
    async with own_database(database_server, "pixtest_keys") as url:
        await forwards(url, "all")
        yield url


async def test_a_day_of_keys_goes_once_its_last_key_is_25_hours_old(keys_database: str) -> None:
    conn = await asyncpg.connect(keys_database)
    try:
        days = [
            info for info in await list_partitions(conn) if info.table == KEYS.name and info.end is not None
        ]
        # the partition of the keys from before the conversion (up to tomorrow), then the days ahead
        assert len(days) >= 2, days
        first_end = days[0].end
        assert first_end is not None
        just_before = first_end + timedelta(hours=25) - timedelta(seconds=1)
        assert await release_key_days(conn, timedelta(hours=25), "drop", just_before) == []
        released = await release_key_days(conn, timedelta(hours=25), "drop", first_end + timedelta(hours=25))
        left = {info.name for info in await list_partitions(conn) if info.table == KEYS.name}
    finally:
        await conn.close()
    assert [each["partition"] for each in released] == [days[0].name]
    assert days[0].name not in left
    assert {day.name for day in days[1:]} <= left


async def test_a_dry_run_and_keep_let_no_key_be_lost(keys_database: str) -> None:
    conn = await asyncpg.connect(keys_database)
    try:
        days = [
            info for info in await list_partitions(conn) if info.table == KEYS.name and info.end is not None
        ]
        late = days[-1].end
        assert late is not None
        dry = await release_key_days(
            conn, timedelta(hours=25), "drop", late + timedelta(days=2), dry_run=True
        )
        assert [each["partition"] for each in dry] == [day.name for day in days]
        kept = await release_key_days(conn, timedelta(hours=25), "keep", late + timedelta(days=2))
        detached = await conn.fetchval(
            "SELECT count(*) FROM pg_class WHERE relname = $1", days[0].name + "_detached"
        )
        left = [info.name for info in await list_partitions(conn) if info.table == KEYS.name]
    finally:
        await conn.close()
    assert [each["partition"] for each in kept] == [day.name for day in days]
    assert detached == 1
    assert left == ["idempotency_keys_default"]


async def test_the_conversion_keeps_the_keys_of_the_table_it_partitions(database_server: str) -> None:
    """A database of the migration before: its keys are honoured after the conversion."""
    async with own_database(database_server, "pixtest_keys_conversion") as url:
        await forwards(url, "2026-12-01T02:00:00:000022")
        conn = await asyncpg.connect(url)
        try:
            account_id = await conn.fetchval(
                "INSERT INTO accounts (ispb, branch, number, name, document, city)"
                " VALUES ('99999999', '0001', '1', 'A', '52998224725', 'RECIFE') RETURNING id"
            )
            key = await _store_key(conn, account_id, timedelta(hours=1))
            before = await conn.fetchval(KIND)
        finally:
            await conn.close()
        await forwards(url, "all")
        conn = await asyncpg.connect(url)
        try:
            after = await conn.fetchval(KIND)
            async with conn.transaction():
                found = await _keys(conn).find(account_id, key)
                taken = await _keys(conn).claim(
                    account_id, key, "1" * 64, await _record(conn, account_id), PAST
                )
        finally:
            await conn.close()
    assert (before, after) == ("r", "p")
    assert found is not None
    assert taken is False


async def test_a_groups_check_waits_for_a_claim_in_flight_and_sees_it_once_committed(
    pg_uow: UnitOfWorkFactory, migrated_database: str
) -> None:
    """``idempotency_keys_taken``, which a transfer group's one statement calls: started before a
    concurrent claim commits, it waits for the key's lock, then sees the claim (a snapshot of its
    own, younger than its statement's)."""
    client = await new_client(pg_uow)
    key = uuid.uuid4()
    locks = key_locks(client.account_id, [key])
    first = await asyncpg.connect(migrated_database)
    second = await asyncpg.connect(migrated_database)
    try:
        holding = first.transaction()
        await holding.start()
        await first.execute(LOCK_KEYS, locks)
        await _store_key(first, client.account_id, timedelta(days=-1), key)
        checking = asyncio.create_task(
            second.fetchval("SELECT idempotency_keys_taken($1, $2, $3)", client.account_id, [key], locks)
        )
        await asyncio.sleep(0.3)
        assert not checking.done()
        await holding.commit()
        taken = await checking
        free = await second.fetchval(
            "SELECT idempotency_keys_taken($1, $2, $3)", client.account_id, [uuid.uuid4()], locks
        )
        source = await second.fetchval("SELECT prosrc FROM pg_proc WHERE proname = 'idempotency_keys_taken'")
    finally:
        await first.close()
        await second.close()
    assert (taken, free) == (True, False)
    assert LIVE in source  # the same window as the repository's look-ups
    assert f"pg_advisory_xact_lock({LOCK_SPACE}, lock)" in source  # the same locks


async def test_a_look_up_of_keys_probes_them_even_in_a_generic_plan(
    pg_uow: UnitOfWorkFactory, migrated_database: str
) -> None:
    """The group's read of its keys (``BALANCE_AND_TAKEN``) finds them by the key in every day's
    index, never by reading the account's keys of the window and filtering them (a hot account's
    whole day, on every group)."""
    client = await new_client(pg_uow)
    conn = await asyncpg.connect(migrated_database)
    try:
        await conn.execute("SET plan_cache_mode = force_generic_plan")
        await conn.execute(f"PREPARE taken(bigint, uuid[]) AS {BALANCE_AND_TAKEN}")
        keys = ",".join(str(uuid.uuid4()) for _ in range(2))
        plan = await conn.fetchval(
            f"EXPLAIN (FORMAT JSON) EXECUTE taken({int(client.account_id)}, '{{{keys}}}')"
        )
    finally:
        await conn.close()
    scans = [
        node
        for node in _plan_nodes(json.loads(plan)[0]["Plan"])
        if "idempotency_keys" in node.get("Relation Name", "")
    ]
    assert scans, plan
    for scan in scans:
        assert "key = ANY" in scan.get("Index Cond", ""), scan


def _plan_nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    found = [plan]
    for child in plan.get("Plans", []):
        found.extend(_plan_nodes(child))
    return found
