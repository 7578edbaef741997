"""The ledger check reports the outside world's accounts per institution and the sum over every
ledger account (decisions §13), and fails when money went to our own institution."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import pytest

from pixcore import ledger
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import PlainHasher
from pixcore.usecases import open_account
from pixweb.persistence.ledger_check import check_ledger
from pixweb.persistence.uow import PostgresUnitOfWork
from tests.support import random_cpf

ISPB = "99999999"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _elsewhere() -> str:
    """An outside institution of this test alone (the suites share one database)."""
    return f"{random.randrange(10_000_000, 99_000_000):08d}"  # noqa: S311 - test data


@pytest.fixture
async def conn(migrated_database: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(migrated_database)
    try:
        yield connection
    finally:
        await connection.close()


async def _account() -> int:
    opened = await open_account(
        PostgresUnitOfWork,
        PlainHasher(),
        ispb=ISPB,
        name="Ledger Holder",
        document=random_cpf(),
        city="RECIFE",
    )
    return opened.account.id


async def _funded(amount: int, institution: str) -> tuple[int, int]:
    """A new account that received ``amount`` from ``institution``; (account, transaction)."""
    account_id = await _account()
    async with PostgresUnitOfWork() as tx:
        transaction_id = await tx.transactions.add(
            NewTransaction(account_id, TransactionType.PAYMENT, TransactionStatus.CONFIRMED, amount, NOW)
        )
        await tx.ledger.post(transaction_id, ledger.receive(account_id, amount, institution), NOW)
        await tx.commit()
    return account_id, transaction_id


async def test_the_check_reports_each_outside_institution_and_the_sum_over_every_account(
    conn: asyncpg.Connection,
) -> None:
    institution = _elsewhere()
    await _funded(1_234, institution)
    await _funded(66, institution)

    report = await check_ledger(conn)

    assert report["ok"] is True, report
    assert {"institution": institution, "balance": -1_300} in report["outside"]
    assert report["ledgerTotal"] == 0
    assert report["ours"] == -sum(row["balance"] for row in report["outside"])
    assert report["outsideInstitutionsOfOurs"] == []


async def test_the_check_fails_when_money_leaves_to_our_own_institution(conn: asyncpg.Connection) -> None:
    """What refunds between two of our accounts once did: the check says so."""
    account_id, transaction_id = await _funded(1_000, _elsewhere())
    forged = """
        INSERT INTO ledger_entries
               (transaction_id, posting, account_id, bucket, amount, created_at, institution)
        VALUES ($1, 'forged', $2, 'available', -10, now(), NULL),
               ($1, 'forged', NULL, 'external', 10, now(), $3)
    """
    async with conn.transaction():
        await conn.execute("SET LOCAL session_replication_role = replica")  # no triggers, as old rows
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
