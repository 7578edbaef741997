"""``check_ledger`` fails on each broken proof on its own, against the real schema.

Each test books real money through the adapters (committed), then breaks the books in one way
inside a transaction that it never commits, and runs the check on that same transaction: the
shared database stays sound for every other test. The corrupting statements run with
``session_replication_role = replica``, which skips triggers, so that a trigger guarding the
entries (balanced at COMMIT, no UPDATE or DELETE) does not stop the test from breaking them.

Each break fires exactly one proof, so removing any one proof from the check fails a test:
- a ``blocked`` that disagrees with its entries (available still agrees);
- an ``available`` that disagrees (blocked still agrees);
- two transactions that do not sum to zero while every balance agrees and the grand total is zero;
- entries whose grand total is not zero while every balance agrees.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
import pytest

from pixcore import ledger
from pixcore.accounts.accounts_service import open_account
from pixcore.accounts.rules import Counterpart
from pixcore.clock import ManualClock
from pixcore.keys import PixKey, PixKeyType
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import PlainHasher
from pixcore.transfers.receipt_service import receive_payment
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.ledger_check import check_ledger
from tests.support import random_cpf

PAYER = Counterpart(name="Outside Payer", document=random_cpf(), ispb="12345678")
RECEIVED, RESERVED = 10_000, 3_000


@dataclass(frozen=True)
class Books:
    """An account with money in both buckets: a receipt of 100.00, then 30.00 reserved."""

    account_id: int
    receipt: int  # transaction ids
    reservation: int


@pytest.fixture
async def books(pg_uow: UnitOfWorkFactory, migrated_database: str) -> Books:
    key = f"{uuid.uuid4().hex}@example.com"
    opened = await open_account(
        pg_uow,
        PlainHasher(),
        ispb="99999999",
        name="Ledger Holder",
        document=random_cpf(),
        city="RECIFE",
        keys=(key,),
    )
    clock = ManualClock(datetime.now(UTC))
    receipt = await receive_payment(
        pg_uow, clock, key=PixKey(PixKeyType.EMAIL, key), amount=RECEIVED, payer=PAYER
    )
    account_id = opened.account.id
    async with pg_uow() as uow:
        reservation = await uow.transactions.add(
            NewTransaction(
                account_id=account_id,
                type=TransactionType.WITHDRAW,
                status=TransactionStatus.PENDING,
                amount=RESERVED,
                created_at=clock.now(),
            )
        )
        await uow.ledger.post(reservation, ledger.reserve(account_id, RESERVED), clock.now())
        await uow.commit()
    return Books(account_id, receipt.transaction_id, reservation)


@pytest.fixture
async def tampering(migrated_database: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection inside a transaction that is rolled back, with triggers off."""
    conn = await asyncpg.connect(migrated_database)
    try:
        # check_ledger nests its repeatable-read snapshot in this one (a savepoint).
        transaction = conn.transaction(isolation="repeatable_read")
        await transaction.start()
        await conn.execute("SET LOCAL session_replication_role = replica")
        try:
            yield conn
        finally:
            await transaction.rollback()
    finally:
        await conn.close()


async def _add_entry(conn: asyncpg.Connection, transaction_id: int, account_id: int, amount: int) -> None:
    await conn.execute(
        """
        INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at)
        VALUES ($1, 'tampered', $2, 'available', $3, now())
        """,
        transaction_id,
        account_id,
        amount,
    )


async def test_sound_books_pass(books: Books, tampering: asyncpg.Connection) -> None:
    report = await check_ledger(tampering)

    assert report["ok"] is True
    assert report["mismatchedAccounts"] == []
    assert report["unbalancedTransactions"] == []
    assert report["entriesTotal"] == 0
    assert report["accounts"] == await tampering.fetchval("SELECT count(*) FROM balances")
    assert report["entries"] == await tampering.fetchval("SELECT count(*) FROM ledger_entries")
    assert report["entries"] >= 4  # this test's receipt and reservation at least
    assert report["ours"] == await tampering.fetchval("SELECT sum(available + blocked) FROM balances")
    assert report["ours"] >= RECEIVED
    assert report["ledgerTotal"] == report["ours"] + sum(row["balance"] for row in report["outside"]) == 0


async def test_a_blocked_that_disagrees_with_its_entries_fails(
    books: Books, tampering: asyncpg.Connection
) -> None:
    await tampering.execute(
        "UPDATE balances SET blocked = blocked + 5 WHERE account_id = $1", books.account_id
    )

    report = await check_ledger(tampering)

    assert report["ok"] is False
    assert report["mismatchedAccounts"] == [
        {
            "accountId": books.account_id,
            "available": RECEIVED - RESERVED,
            "blocked": RESERVED + 5,
            "entriesAvailable": RECEIVED - RESERVED,
            "entriesBlocked": RESERVED,
        }
    ]
    assert report["unbalancedTransactions"] == []
    assert report["entriesTotal"] == 0


async def test_an_available_that_disagrees_with_its_entries_fails(
    books: Books, tampering: asyncpg.Connection
) -> None:
    await tampering.execute(
        "UPDATE balances SET available = available - 1 WHERE account_id = $1", books.account_id
    )

    report = await check_ledger(tampering)

    assert report["ok"] is False
    assert report["mismatchedAccounts"] == [
        {
            "accountId": books.account_id,
            "available": RECEIVED - RESERVED - 1,
            "blocked": RESERVED,
            "entriesAvailable": RECEIVED - RESERVED,
            "entriesBlocked": RESERVED,
        }
    ]
    assert report["unbalancedTransactions"] == []


async def test_transactions_that_do_not_sum_to_zero_fail_though_balances_and_total_agree(
    books: Books, tampering: asyncpg.Connection
) -> None:
    # 7 centavos moved between two postings: the account's entries and the grand total are unchanged.
    await _add_entry(tampering, books.receipt, books.account_id, 7)
    await _add_entry(tampering, books.reservation, books.account_id, -7)

    report = await check_ledger(tampering)

    assert report["ok"] is False
    assert report["mismatchedAccounts"] == []
    assert report["entriesTotal"] == 0
    assert sorted(report["unbalancedTransactions"], key=lambda row: row["transactionId"]) == [
        {"transactionId": books.receipt, "total": 7},
        {"transactionId": books.reservation, "total": -7},
    ]


async def test_entries_whose_grand_total_is_not_zero_fail_though_balances_agree(
    books: Books, tampering: asyncpg.Connection
) -> None:
    # Money from nowhere, with the balance raised to match: only the sums over postings show it.
    await _add_entry(tampering, books.receipt, books.account_id, 7)
    await tampering.execute(
        "UPDATE balances SET available = available + 7 WHERE account_id = $1", books.account_id
    )

    report = await check_ledger(tampering)

    assert report["ok"] is False
    assert report["mismatchedAccounts"] == []
    assert report["entriesTotal"] == 7
    assert report["unbalancedTransactions"] == [{"transactionId": books.receipt, "total": 7}]


async def test_a_balance_without_any_entry_is_compared_with_zero(
    pg_uow: UnitOfWorkFactory, tampering: asyncpg.Connection
) -> None:
    opened = await open_account(
        pg_uow, PlainHasher(), ispb="99999999", name="Empty", document=random_cpf(), city="RECIFE"
    )
    await tampering.execute("UPDATE balances SET blocked = 1 WHERE account_id = $1", opened.account.id)

    report = await check_ledger(tampering)

    assert report["ok"] is False
    assert report["mismatchedAccounts"] == [
        {
            "accountId": opened.account.id,
            "available": 0,
            "blocked": 1,
            "entriesAvailable": 0,
            "entriesBlocked": 0,
        }
    ]


async def test_entries_of_an_account_without_a_balance_row_are_listed(
    books: Books, tampering: asyncpg.Connection
) -> None:
    # The balance row gone: its entries still count, compared with a balance of zero.
    await tampering.execute("DELETE FROM balances WHERE account_id = $1", books.account_id)

    report = await check_ledger(tampering)

    assert report["ok"] is False
    assert report["mismatchedAccounts"] == [
        {
            "accountId": books.account_id,
            "available": 0,
            "blocked": 0,
            "entriesAvailable": RECEIVED - RESERVED,
            "entriesBlocked": RESERVED,
        }
    ]
