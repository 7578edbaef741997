"""Retention: months older than their setting are let go only when nothing needs them; the ledger's
sums are carried forward so the ledger check still passes after its months are dropped; each
refusal says which month and why."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from functools import partial

import asyncpg
import pytest

from pixcore.accounts.accounts_service import open_account
from pixcore.accounts.rules import Counterpart
from pixcore.clock import ManualClock
from pixcore.keys import PixKey, PixKeyType
from pixcore.testing import PlainHasher
from pixcore.transfers.receipt_service import receive_payment
from pixinfra.persistence.ledger_check import check_ledger
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.partitions import ensure_partitions, month_after, partition_name
from pixinfra.postgres.pool import Database
from pixinfra.postgres.retention import run_retention, start_of_month
from tests.integration.partitions.databases import forwards, own_database
from tests.support import random_cpf


def next_month(month: datetime) -> datetime:
    after = month_after(month.date())
    return datetime(after.year, after.month, 1, tzinfo=UTC)


def month_name(table: str, month: datetime) -> str:
    return partition_name(table, month.date())


PAYER = Counterpart(name="Outside Payer", document=random_cpf(), ispb="12345678")
ALL = {"ledger_entries": 1, "outbox": 1, "transactions": 1}


@pytest.fixture
async def books(database_server: str) -> AsyncIterator[tuple[str, datetime]]:
    """A migrated database of its own with receipts of 10.00 now and 20.00 in the month after next
    (a sandbox clock ahead): its URL and that month."""
    async with own_database(database_server, "pixtest_retention") as url:
        await forwards(url, "all")
        database = Database()
        await database.open(url, min_size=1, max_size=2)
        try:
            key = f"{uuid.uuid4().hex}@example.com"
            units = partial(PostgresUnitOfWork, database)
            await open_account(
                units,
                PlainHasher(),
                ispb="99999999",
                name="Kept",
                document=random_cpf(),
                city="RECIFE",
                keys=(key,),
            )
            month = next_month(start_of_month(datetime.now(UTC)))
            for at, amount in ((datetime.now(UTC), 1_000), (month + timedelta(days=14), 2_000)):
                await receive_payment(
                    units, ManualClock(at), key=PixKey(PixKeyType.EMAIL, key), amount=amount, payer=PAYER
                )
        finally:
            await database.close()
        yield url, month


async def _partitions(conn: asyncpg.Connection) -> set[str]:
    rows = await conn.fetch(
        "SELECT inhrelid::regclass::text AS name FROM pg_inherits"
        " WHERE inhparent IN ('transactions'::regclass, 'ledger_entries'::regclass, 'outbox'::regclass)"
    )
    return {row["name"] for row in rows}


async def test_a_month_goes_once_nothing_needs_it_and_the_books_still_prove(
    books: tuple[str, datetime],
) -> None:
    url, month = books
    conn = await asyncpg.connect(url)
    try:
        # Forty days after the month: the ledger's and the outbox's month may go, the refund window
        # still covers the records.
        soon = next_month(month) + timedelta(days=40)
        await ensure_partitions(conn, soon)
        dry = await run_retention(conn, ALL, "drop", soon, dry_run=True)
        partitions = await _partitions(conn)

        # Every month of the ledger and the outbox before this one goes: the old table's, the
        # month of the 20.00 receipt, and the empty one after it.
        before = month.strftime("before_y%Ym%m")  # the rows from before the conversion: up to this month
        older = (before, month_name("", month)[1:], month_name("", next_month(month))[1:])
        expected = {
            (table, f"{table}_{suffix}") for table in ("ledger_entries", "outbox") for suffix in older
        }
        assert {(r["table"], r["partition"]) for r in dry["released"]} == expected
        assert {
            "table": "transactions",
            "partition": month_name("transactions", month),
            "reason": "ledger entries point at a record",
        } in dry["refused"]
        assert await _partitions(conn) == partitions  # a dry run lets nothing go

        report = await run_retention(conn, ALL, "drop", soon)

        assert {(r["table"], r["partition"]) for r in report["released"]} == expected
        assert {
            "table": "transactions",
            "partition": month_name("transactions", month),
            "reason": "the refund window still covers its records",
        } in report["refused"]
        left = await _partitions(conn)
        assert month_name("ledger_entries", month) not in left
        assert month_name("transactions", month) in left
        assert await conn.fetchval("SELECT to_regclass($1)", month_name("ledger_entries", month)) is None
        closed = await conn.fetch(
            "SELECT partition, bucket, institution, amount FROM ledger_closings ORDER BY partition, amount"
        )
        assert [(r["partition"], r["bucket"], r["institution"], r["amount"]) for r in closed] == [
            (f"ledger_entries_{before}", "external", "12345678", -1_000),
            (f"ledger_entries_{before}", "available", None, 1_000),
            (month_name("ledger_entries", month), "external", "12345678", -2_000),
            (month_name("ledger_entries", month), "available", None, 2_000),
        ]
        proof = await check_ledger(conn)
        assert proof["ok"] is True, proof
        assert proof["ours"] == 3_000
        assert proof["entries"] == 0  # every entry let go, its sums carried forward

        # Past the refund window, and kept aside rather than dropped.
        later = next_month(month) + timedelta(days=120)
        await ensure_partitions(conn, later)
        report = await run_retention(conn, {"transactions": 2}, "keep", later)

        assert ("transactions", month_name("transactions", month)) in {
            (r["table"], r["partition"]) for r in report["released"]
        }
        assert month_name("transactions", month) not in await _partitions(conn)
        kept = await conn.fetchval(f"SELECT count(*) FROM {month_name('transactions', month)}_detached")  # noqa: S608
        assert kept == 1
        assert {
            "table": "transactions",
            "partition": month_name("transactions", start_of_month(later - timedelta(days=40))),
            "reason": "the refund window still covers its records",
        } in report["refused"]  # a month inside the two kept is not judged; one before, by its end
        proof = await check_ledger(conn)
        assert proof["ok"] is True, proof
    finally:
        await conn.close()


async def test_a_wrong_action_is_refused(books: tuple[str, datetime]) -> None:
    conn = await asyncpg.connect(books[0])
    try:
        with pytest.raises(ValueError, match="retention action"):
            await run_retention(conn, ALL, "truncate", datetime.now(UTC))
    finally:
        await conn.close()
