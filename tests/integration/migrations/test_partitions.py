"""The history tables as monthly range partitions (``pixinfra.postgres.partitions``, the migration
``2026_12_01t01``) on PostgreSQL: the months a migrated database has, a row of a month nobody made
yet caught by the DEFAULT partition and moved into its month once made, the conversion of a table
in place, and the plans of the statements that read them (an index fits each; a window of dates
reads only its months)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from pixcore.ledger import receive
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.ledger_check import check_ledger
from pixinfra.postgres.partitions import (
    AHEAD,
    HISTORY,
    ensure_partitions,
    list_partitions,
    month_after,
    month_of,
    partition_name,
)
from pixinfra.postgres.piccolo_migrations import pixweb_2026_12_01t01_00_00_000022 as partitioning
from tests.contract.rows import OUTSIDE, add_account, receipt


async def _where(conn: asyncpg.Connection, table: str, column: str, value: int) -> str:
    found: str = await conn.fetchval(
        f"SELECT tableoid::regclass::text FROM {table} WHERE {column} = $1",  # noqa: S608 - our names
        value,
    )
    return found


async def test_a_migrated_database_has_its_months_ahead_the_rows_before_and_a_default(
    conn: asyncpg.Connection,
) -> None:
    infos = await list_partitions(conn)
    month = month_of(await conn.fetchval("SELECT now()"))
    ahead = [month]
    for _ in range(AHEAD):
        ahead.append(month_after(ahead[-1]))
    for table in HISTORY:
        mine = [info for info in infos if info.table == table.name]
        names = [info.name for info in mine]
        assert names[-1] == f"{table.name}_default"
        assert names[0].startswith(f"{table.name}_before_y")
        assert mine[0].start is None
        for each in ahead:  # this month and the next ones, each in a partition of its own range
            moment = datetime(each.year, each.month, each.day, tzinfo=UTC)
            covering = [
                info.name
                for info in mine[:-1]
                if (info.start is None or info.start <= moment) and info.end is not None and moment < info.end
            ]
            assert len(covering) == 1, (each, names)
        assert partition_name(table.name, ahead[-1]) in names
        kind = await conn.fetchval("SELECT relkind::text FROM pg_class WHERE relname = $1", table.name)
        assert kind == "p"


async def test_a_row_past_the_months_made_waits_in_the_default_then_moves_into_its_month(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    # A sandbox clock moved past every month made so far (by this test's database, whoever made them).
    made_until = max(info.end for info in await list_partitions(conn) if info.end is not None)
    far = made_until + timedelta(days=400)
    async with pg_uow() as tx:
        account = await add_account(tx)
        transaction_id = await tx.transactions.add(receipt(account.id, 1_500, at=far))
        await tx.ledger.post(transaction_id, receive(account.id, 1_500, OUTSIDE), far)
        await tx.commit()
    assert await _where(conn, "transactions", "id", transaction_id) == "transactions_default"
    assert await _where(conn, "ledger_entries", "transaction_id", transaction_id) == "ledger_entries_default"

    made = await ensure_partitions(conn, far)

    month = month_of(far)
    assert partition_name("transactions", month) in made
    assert await _where(conn, "transactions", "id", transaction_id) == partition_name("transactions", month)
    entries = partition_name("ledger_entries", month)
    assert await _where(conn, "ledger_entries", "transaction_id", transaction_id) == entries
    left = await conn.fetchval(
        "SELECT count(*) FROM transactions_default WHERE created_at >= $1 AND created_at < $2",
        datetime(month.year, month.month, 1, tzinfo=UTC),
        datetime(month_after(month).year, month_after(month).month, 1, tzinfo=UTC),
    )
    assert left == 0  # nothing of that month is left behind (other tests' rows may wait further on)
    report = await check_ledger(conn)
    assert report["ok"], report
    assert await ensure_partitions(conn, far) == []  # made once
    # The moved rows keep the ledger's guards: still append-only.
    with pytest.raises(asyncpg.CheckViolationError, match="never changed or deleted"):
        await conn.execute("DELETE FROM ledger_entries WHERE transaction_id = $1", transaction_id)


async def test_a_ledger_entry_of_no_transaction_is_refused_as_the_key_refused_it(
    pg_uow: UnitOfWorkFactory,
) -> None:
    async with pg_uow() as tx:
        account = await add_account(tx)
        with pytest.raises(asyncpg.ForeignKeyViolationError):
            await tx.ledger.post(-1, receive(account.id, 1, OUTSIDE), datetime.now(UTC))


OLD_SHAPE = """
CREATE TABLE probe_history (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts (id),
    amount     bigint NOT NULL CHECK (amount <> 0),
    created_at timestamptz NOT NULL
);
CREATE INDEX probe_history_account_idx ON probe_history (account_id, created_at DESC);
CREATE TABLE probe_refs (id bigint PRIMARY KEY REFERENCES probe_history (id));
CREATE FUNCTION probe_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'append only'; END $$;
CREATE TRIGGER probe_history_append_only BEFORE UPDATE OR DELETE ON probe_history
    FOR EACH ROW EXECUTE FUNCTION probe_refuse();
"""


async def test_a_table_is_converted_in_place_its_rows_kept_and_its_ids_going_on(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    async with pg_uow() as tx:
        account = await add_account(tx)
        await tx.commit()
    now = datetime.now(UTC)
    converting = conn.transaction()
    await converting.start()
    try:
        await conn.execute(OLD_SHAPE)
        await conn.execute(
            "INSERT INTO probe_history (account_id, amount, created_at)"
            " SELECT $1, g, $2::timestamptz - g * interval '9 days' FROM generate_series(1, 100) g",
            account.id,
            now,
        )
        await conn.execute("INSERT INTO probe_refs VALUES (1)")
        before = await conn.fetchrow("SELECT count(*), sum(amount), max(id) FROM probe_history")

        await partitioning._convert(conn, "probe_history", "created_at")

        after = await conn.fetchrow("SELECT count(*), sum(amount), max(id) FROM probe_history")
        assert tuple(after) == tuple(before) == (100, 5050, 100)
        old = f"probe_history_before_y{month_after(month_of(now)).strftime('%Ym%m')}"
        assert await conn.fetchval(f"SELECT count(*) FROM {old}") == 100  # noqa: S608
        assert (
            await conn.fetchval("SELECT relkind::text FROM pg_class WHERE relname = 'probe_history'") == "p"
        )
        made = await conn.fetchval(
            "INSERT INTO probe_history (account_id, amount, created_at) VALUES ($1, 7, $2) RETURNING id",
            account.id,
            now + timedelta(days=62),
        )
        assert made == 101  # the identity goes on past the old rows
        assert await _where(conn, "probe_history", "id", made) == "probe_history_default"
        with pytest.raises(asyncpg.RaiseError, match="append only"):  # its triggers came along
            async with conn.transaction():
                await conn.execute("DELETE FROM probe_history WHERE id = 1")
        await conn.execute("INSERT INTO probe_refs VALUES (2)")  # the key, now a trigger
        with pytest.raises(asyncpg.ForeignKeyViolationError, match="names no row of probe_history"):
            async with conn.transaction():
                await conn.execute("INSERT INTO probe_refs VALUES (1000)")
    finally:
        await converting.rollback()


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    found = [plan]
    for child in plan.get("Plans", []):
        found.extend(_nodes(child))
    return found


async def _plan(conn: asyncpg.Connection, sql: str, *args: object) -> list[dict[str, Any]]:
    async with conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        text = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *args)
    return _nodes(json.loads(text)[0]["Plan"])


HISTORY_NAMES = tuple(table.name for table in HISTORY)


def _scans(nodes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(node["Node Type"], node.get("Relation Name", "")) for node in nodes if "Relation Name" in node]


@pytest.mark.parametrize(
    "sql",
    [
        # The transaction list, newest first, one account's page.
        "SELECT id FROM transactions WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20",
        # A record by its id, by its end-to-end id.
        "SELECT id FROM transactions WHERE id = $1",
        "SELECT id FROM transactions WHERE end_to_end_id = 'E' || $1::bigint",
        # The received PIX of an account (GET /pix), by the time they were processed.
        (
            "SELECT id FROM transactions WHERE account_id = $1 AND type = 'PAYMENT' AND status = 'CONFIRMED'"
            " ORDER BY processed_at, id LIMIT 100"
        ),
        # What the deferred check of a posting sums; an account's entries.
        "SELECT sum(amount) FROM ledger_entries WHERE transaction_id = $1",
        "SELECT sum(amount) FROM ledger_entries WHERE account_id = $1 AND bucket = 'available'",
        # The outbox not yet dispatched, oldest first; a delivery's attempts.
        "SELECT id FROM outbox WHERE dispatched_at IS NULL AND $1::bigint IS NOT NULL ORDER BY id LIMIT 100",
        "SELECT id FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id",
    ],
)
async def test_an_index_fits_every_statement_on_the_history(conn: asyncpg.Connection, sql: str) -> None:
    nodes = await _plan(conn, sql, 1)
    scans = _scans(nodes)
    assert scans, nodes
    assert not [scan for scan in scans if scan[0] == "Seq Scan"], scans


async def test_a_window_of_dates_reads_only_its_months(conn: asyncpg.Connection) -> None:
    month = month_after(month_of(datetime.now(UTC)))  # a month of its own (this one is with the rows before)
    start = datetime(month.year, month.month, 1, tzinfo=UTC)
    nodes = await _plan(
        conn,
        "SELECT id FROM transactions WHERE account_id = $1 AND created_at >= $2 AND created_at < $3"
        " ORDER BY created_at DESC, id DESC LIMIT 20",
        1,
        start + timedelta(days=2),
        start + timedelta(days=9),
    )
    read = {relation for _, relation in _scans(nodes)}
    assert read == {partition_name("transactions", month_of(start))}, read
