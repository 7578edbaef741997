"""On PostgreSQL, a group of receipts (``ReceiptGroupCommit``, its rows written by ``add_many`` and
``post_many``) stores for each receipt the rows the ungrouped path (``receive_payment``) stores:
its ``transactions`` row column by column and its ``ledger_entries``."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from pixcore.accounts.accounts_service import open_account
from pixcore.accounts.rules import Counterpart
from pixcore.clock import ManualClock
from pixcore.group_commit.receipts import ReceiptGroupCommit
from pixcore.keys import PixKey, PixKeyType
from pixcore.testing import PlainHasher
from pixcore.transfers.receipt_service import Receipt, receive_payment
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.support import random_cpf

CLOCK = ManualClock(datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC))
PAYERS = (
    Counterpart("Outside Payer", random_cpf(), "12345678", "Other Bank", "0001", "123"),
    Counterpart("Another Payer", random_cpf(), "23456789", "Third Bank", "0042", "99881"),
)
PAID = [(1_250, PAYERS[0]), (7, PAYERS[1]), (300_00, PAYERS[0]), (45_67, PAYERS[1])]


async def _row(conn: asyncpg.Connection, receipt: Receipt) -> dict[str, Any]:
    row = await conn.fetchrow("SELECT * FROM transactions WHERE id = $1", receipt.transaction_id)
    assert row is not None
    assert row["end_to_end_id"] == receipt.end_to_end_id
    return {k: v for k, v in row.items() if k not in {"id", "end_to_end_id"}}


async def _entries(conn: asyncpg.Connection, receipt: Receipt) -> list[tuple[object, ...]]:
    rows = await conn.fetch(
        "SELECT posting, account_id, bucket, amount, institution, created_at FROM ledger_entries"
        " WHERE transaction_id = $1 ORDER BY amount",
        receipt.transaction_id,
    )
    return [tuple(row) for row in rows]


async def test_each_row_of_a_group_is_the_one_the_ungrouped_path_stores(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    key = PixKey(PixKeyType.EMAIL, f"{uuid.uuid4().hex}@example.com")
    await open_account(
        pg_uow,
        PlainHasher(),
        ispb="99999999",
        name="Group Receiver",
        document=random_cpf(),
        city="RECIFE",
        keys=(key.value,),
    )
    alone = [await receive_payment(pg_uow, CLOCK, key=key, amount=a, payer=p) for a, p in PAID]
    group_commit = ReceiptGroupCommit(pg_uow, CLOCK, size=16, window=timedelta(seconds=1))

    grouped = await asyncio.gather(*(group_commit.receive(key=key, amount=a, payer=p) for a, p in PAID))

    assert [await _row(conn, r) for r in grouped] == [await _row(conn, r) for r in alone]
    assert [(await _row(conn, r))["amount"] for r in grouped] == [amount for amount, _ in PAID]
    assert [await _entries(conn, r) for r in grouped] == [await _entries(conn, r) for r in alone]
