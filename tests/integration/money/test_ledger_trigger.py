"""The balanced-entries trigger (``ledger_entries_balanced``) refuses a transaction's entries that
sum to anything but zero, above zero as well as below it, and lets balanced ones commit.

The entries are written by hand (raw ``INSERT``), as a bug in an adapter would write them: the
trigger is what such a bug meets at COMMIT."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import asyncpg
import pytest

from pixcore import ledger
from pixcore.accounts.accounts_service import open_account
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import PlainHasher
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.ledger_check import check_ledger
from tests.support import random_cpf

ISPB = "99999999"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
_INSERT = """
    INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at, institution)
    VALUES ($1, 'by hand', $2, 'available', $3, now(), NULL),
           ($1, 'by hand', NULL, 'external', $4, now(), $5)
"""


async def _funded(pg_uow: UnitOfWorkFactory, amount: int, institution: str) -> tuple[int, int]:
    """A new account that received ``amount`` from ``institution``; (account, transaction)."""
    opened = await open_account(
        pg_uow, PlainHasher(), ispb=ISPB, name="Trigger Holder", document=random_cpf(), city="RECIFE"
    )
    account_id = opened.account.id
    async with pg_uow() as tx:
        transaction_id = await tx.transactions.add(
            NewTransaction(account_id, TransactionType.PAYMENT, TransactionStatus.CONFIRMED, amount, NOW)
        )
        await tx.ledger.post(transaction_id, ledger.receive(account_id, amount, institution), NOW)
        await tx.commit()
    return account_id, transaction_id


async def _entries(conn: asyncpg.Connection, transaction_id: int) -> list[int]:
    rows = await conn.fetch("SELECT amount FROM ledger_entries WHERE transaction_id = $1", transaction_id)
    return sorted(row["amount"] for row in rows)


def _elsewhere() -> str:
    """An outside institution of this test alone (the suites share one database)."""
    return f"{random.randrange(10_000_000, 99_000_000):08d}"  # noqa: S311 - test data


@pytest.mark.parametrize("off", [1, -1], ids=["sum-plus-one", "sum-minus-one"])
async def test_entries_that_do_not_sum_to_zero_never_commit(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection, off: int
) -> None:
    """Five centavos leave the account; the outside line says ``5 + off``: the transaction's entries
    sum to ``off`` (+1 or -1), and COMMIT is refused, leaving the receipt's two entries alone."""
    institution = _elsewhere()
    account_id, transaction_id = await _funded(pg_uow, 1_000, institution)

    refused = f"transaction {transaction_id} sum to {off}, not 0"
    with pytest.raises(asyncpg.CheckViolationError, match=refused):
        async with conn.transaction():
            await conn.execute(_INSERT, transaction_id, account_id, -5, 5 + off, institution)

    assert await _entries(conn, transaction_id) == [-1_000, 1_000]


async def test_balanced_entries_written_by_hand_commit(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    institution = _elsewhere()
    account_id, transaction_id = await _funded(pg_uow, 1_000, institution)

    async with conn.transaction():
        await conn.execute(_INSERT, transaction_id, account_id, -5, 5, institution)
        await conn.execute("UPDATE balances SET available = available - 5 WHERE account_id = $1", account_id)

    assert await _entries(conn, transaction_id) == [-1_000, -5, 5, 1_000]
    assert (await check_ledger(conn))["ok"] is True


async def test_a_line_in_another_month_is_checked_with_its_own_time(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    """The check sums the lines of the transaction written at the new line's time (one month's
    partition): a forged line dated a year from the receipt is refused on its own, and so is a
    posting split across two times even when its halves would cancel."""
    institution = _elsewhere()
    account_id, transaction_id = await _funded(pg_uow, 1_000, institution)
    forged = """
        INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at)
        VALUES ($1, 'by hand', $2, 'available', $3, $4)
    """

    with pytest.raises(asyncpg.CheckViolationError, match=f"transaction {transaction_id} sum to 7, not 0"):
        async with conn.transaction():
            await conn.execute(forged, transaction_id, account_id, 7, datetime(2027, 1, 1, tzinfo=UTC))

    async def split_across_two_times() -> None:
        async with conn.transaction():
            await conn.execute(forged, transaction_id, account_id, -5, datetime(2026, 6, 1, tzinfo=UTC))
            await conn.execute(forged, transaction_id, account_id, 5, datetime(2026, 6, 2, tzinfo=UTC))

    with pytest.raises(asyncpg.CheckViolationError, match=f"transaction {transaction_id} sum to -5, not 0"):
        await split_across_two_times()

    assert await _entries(conn, transaction_id) == [-1_000, 1_000]
