"""The database keeps the ledger honest by itself (docs/decisions/ledger.md): an unbalanced posting never
commits, no outside entry names our own institution, entries are never changed; and the ledger
check reports the outside world's accounts and the sum over every ledger account."""

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


def _elsewhere() -> str:
    """An outside institution of this test alone (the suites share one database)."""
    return f"{random.randrange(10_000_000, 99_000_000):08d}"  # noqa: S311 - test data


async def _account(pg_uow: UnitOfWorkFactory) -> int:
    opened = await open_account(
        pg_uow,
        PlainHasher(),
        ispb=ISPB,
        name="Ledger Holder",
        document=random_cpf(),
        city="RECIFE",
    )
    return opened.account.id


async def _funded(pg_uow: UnitOfWorkFactory, amount: int, institution: str) -> tuple[int, int]:
    """A new account that received ``amount`` from ``institution``; (account, transaction)."""
    account_id = await _account(pg_uow)
    async with pg_uow() as tx:
        transaction_id = await tx.transactions.add(
            NewTransaction(account_id, TransactionType.PAYMENT, TransactionStatus.CONFIRMED, amount, NOW)
        )
        await tx.ledger.post(transaction_id, ledger.receive(account_id, amount, institution), NOW)
        await tx.commit()
    return account_id, transaction_id


async def test_an_unbalanced_posting_never_commits(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    account_id, transaction_id = await _funded(pg_uow, 1_000, _elsewhere())
    before = await conn.fetchval(
        "SELECT count(*) FROM ledger_entries WHERE transaction_id = $1", transaction_id
    )

    with pytest.raises(asyncpg.CheckViolationError, match="sum to -5, not 0"):
        async with conn.transaction():
            await conn.execute(
                "INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at)"
                " VALUES ($1, 'forged', $2, 'available', -5, now())",
                transaction_id,
                account_id,
            )

    after = await conn.fetchval(
        "SELECT count(*) FROM ledger_entries WHERE transaction_id = $1", transaction_id
    )
    assert after == before == 2


async def test_a_posting_may_be_written_line_by_line_within_its_transaction(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    institution = _elsewhere()
    account_id, transaction_id = await _funded(pg_uow, 1_000, institution)

    async with conn.transaction():  # the check waits for COMMIT: the second line balances the first
        for account, bucket, amount, outside in (
            (account_id, "available", -5, None),
            (None, "external", 5, institution),
        ):
            await conn.execute(
                "INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at,"
                " institution) VALUES ($1, 'split', $2, $3, $4, now(), $5)",
                transaction_id,
                account,
                bucket,
                amount,
                outside,
            )
        await conn.execute("UPDATE balances SET available = available - 5 WHERE account_id = $1", account_id)

    assert (
        await conn.fetchval("SELECT count(*) FROM ledger_entries WHERE transaction_id = $1", transaction_id)
        == 4
    )


async def test_no_outside_entry_names_our_own_institution(pg_uow: UnitOfWorkFactory) -> None:
    account_id = await _account(pg_uow)
    async with pg_uow() as tx:
        transaction_id = await tx.transactions.add(
            NewTransaction(account_id, TransactionType.PAYMENT, TransactionStatus.CONFIRMED, 500, NOW)
        )
        with pytest.raises(asyncpg.CheckViolationError, match=f"institution {ISPB} is this service's own"):
            await tx.ledger.post(transaction_id, ledger.receive(account_id, 500, ISPB), NOW)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger_entries SET amount = amount * 2 WHERE transaction_id = $1",
        "DELETE FROM ledger_entries WHERE transaction_id = $1",
    ],
)
async def test_entries_are_never_changed_or_deleted(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection, statement: str
) -> None:
    _, transaction_id = await _funded(pg_uow, 700, _elsewhere())

    with pytest.raises(asyncpg.CheckViolationError, match="never changed or deleted"):
        await conn.execute(statement, transaction_id)

    amounts = await conn.fetch("SELECT amount FROM ledger_entries WHERE transaction_id = $1", transaction_id)
    assert sorted(row["amount"] for row in amounts) == [-700, 700]


async def test_the_check_reports_each_outside_institution_and_the_sum_over_every_account(
    pg_uow: UnitOfWorkFactory,
    conn: asyncpg.Connection,
) -> None:
    institution = _elsewhere()
    await _funded(pg_uow, 1_234, institution)
    await _funded(pg_uow, 66, institution)

    report = await check_ledger(conn)

    assert report["ok"] is True, report
    assert {"institution": institution, "balance": -1_300} in report["outside"]
    assert report["ledgerTotal"] == 0
    assert report["ours"] == -sum(row["balance"] for row in report["outside"])
    assert report["outsideInstitutionsOfOurs"] == []


async def test_the_check_fails_when_money_leaves_to_our_own_institution(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    """What refunds between two of our accounts once did: the check says so (the trigger is what a
    bug would meet first, so the test goes around it, as old rows would)."""
    account_id, transaction_id = await _funded(pg_uow, 1_000, _elsewhere())
    forged = """
        INSERT INTO ledger_entries
               (transaction_id, posting, account_id, bucket, amount, created_at, institution)
        VALUES ($1, 'forged', $2, 'available', -10, now(), NULL),
               ($1, 'forged', NULL, 'external', 10, now(), $3)
    """
    async with conn.transaction():
        await conn.execute("SET LOCAL session_replication_role = replica")  # as old rows would: no triggers
        await conn.execute(forged, transaction_id, account_id, ISPB)
        await conn.execute("UPDATE balances SET available = available - 10 WHERE account_id = $1", account_id)
    try:
        report = await check_ledger(conn)
    finally:
        async with conn.transaction():
            await conn.execute("SET LOCAL session_replication_role = replica")
            await conn.execute(
                "DELETE FROM ledger_entries WHERE transaction_id = $1 AND posting = 'forged'", transaction_id
            )
            await conn.execute(
                "UPDATE balances SET available = available + 10 WHERE account_id = $1", account_id
            )

    assert report["ok"] is False
    assert report["outsideInstitutionsOfOurs"] == [ISPB]
    assert report["ledgerTotal"] == 0  # conserved, and still wrong: the money left the service
    assert (await check_ledger(conn))["ok"] is True
