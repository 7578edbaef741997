"""PostgreSQL repositories of the money paths: transactions, ledger, transfers, idempotency, outbox.

The ledger applies a posting with one guarded UPDATE per account, in account
order (so that two accounts paying each other cannot deadlock)::

    UPDATE balances SET available = available + $2, blocked = blocked + $3
     WHERE account_id = $1 AND available + $2 >= 0 AND blocked + $3 >= 0

No row updated means the funds are not there: ``InsufficientFunds``, and the
unit of work rolls the whole posting back. The CHECK constraints on the
table are the second guard.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from pixcore.accounts import Counterpart
from pixcore.errors import InsufficientFunds
from pixcore.ledger import Posting
from pixcore.ports import IdempotencyRecord
from pixcore.records import NewTransaction, NewTransfer, TransactionStatus, Transfer
from pixcore.transfers import Priority, TransferState
from pixweb.persistence.repository import Repository

__all__ = [
    "PostgresIdempotency",
    "PostgresLedger",
    "PostgresOutbox",
    "PostgresTransactions",
    "PostgresTransfers",
]


# Events may carry Decimal amounts (REFUND's refunds[].payment.amount): written as exact JSON numbers.
_EVENT_ENCODER = msgspec.json.Encoder(decimal_format="number")


class PostgresTransactions(Repository):
    async def add(self, record: NewTransaction) -> int:
        c = record.counterpart
        transaction_id: int = await self._conn.fetchval(
            """
            INSERT INTO transactions (account_id, type, status, amount, external_id, end_to_end_id, pix_key,
                description, counterpart_name, counterpart_document, counterpart_ispb, counterpart_bank,
                counterpart_branch, counterpart_account, created_at, updated_at, processed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16)
            RETURNING id
            """,
            record.account_id,
            record.type.value,
            record.status.value,
            record.amount,
            record.external_id,
            record.end_to_end_id,
            record.pix_key,
            record.description,
            c.name if c else None,
            c.document if c else None,
            c.ispb if c else None,
            c.bank_name if c else None,
            c.branch if c else None,
            c.account_number if c else None,
            record.created_at,
            record.processed_at,
        )
        return transaction_id

    async def set_status(self, transaction_id: int, status: TransactionStatus, at: datetime) -> None:
        await self._conn.execute(
            "UPDATE transactions SET status = $2, updated_at = $3, processed_at = $3 WHERE id = $1",
            transaction_id,
            status.value,
            at,
        )

    async def confirm(
        self, transaction_id: int, end_to_end_id: str, counterpart: Counterpart, at: datetime
    ) -> None:
        c = counterpart
        await self._conn.execute(
            """
            UPDATE transactions
               SET status = 'CONFIRMED', end_to_end_id = $2, counterpart_name = $3, counterpart_document = $4,
                   counterpart_ispb = $5, counterpart_bank = $6, counterpart_branch = $7,
                   counterpart_account = $8, updated_at = $9, processed_at = $9
             WHERE id = $1
            """,
            transaction_id,
            end_to_end_id,
            c.name,
            c.document,
            c.ispb,
            c.bank_name,
            c.branch,
            c.account_number,
            at,
        )


class PostgresLedger(Repository):
    async def try_post(self, transaction_id: int, posting: Posting, at: datetime) -> bool:
        try:
            async with self._conn.transaction():  # a savepoint: a refused posting leaves no entries
                await self.post(transaction_id, posting, at)
        except InsufficientFunds:
            return False
        return True

    async def post(self, transaction_id: int, posting: Posting, at: datetime) -> None:
        # Entries first, balances last: the row locks the guarded updates take are then held
        # only until COMMIT, which keeps a busy account's queue short.
        await self._conn.executemany(
            """
            INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at,
                institution)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """,
            [
                (
                    transaction_id,
                    posting.name,
                    entry.account_id,
                    entry.bucket.value,
                    entry.amount,
                    at,
                    entry.institution,
                )
                for entry in posting.entries
            ],
        )
        for account_id, (available, blocked) in sorted(posting.deltas().items()):
            if available == 0 and blocked == 0:
                continue
            updated = await self._conn.fetchval(
                """
                UPDATE balances SET available = available + $2, blocked = blocked + $3, updated_at = $4
                 WHERE account_id = $1 AND available + $2 >= 0 AND blocked + $3 >= 0
                RETURNING account_id
                """,
                account_id,
                available,
                blocked,
                at,
            )
            if updated is None:
                raise InsufficientFunds()


_TRANSFER_COLUMNS = """
    transaction_id, account_id, idempotency_key, state, priority, pix_key, amount, end_to_end_id,
    creditor_name, creditor_document, creditor_ispb, behavior, settle_after, deadline, created_at,
    receiver_account_id, description, payment_flow, error_code
"""


def _transfer(row: asyncpg.Record) -> Transfer:
    return Transfer(
        transaction_id=row["transaction_id"],
        account_id=row["account_id"],
        idempotency_key=row["idempotency_key"],
        state=TransferState(row["state"]),
        priority=Priority(row["priority"]),
        pix_key=row["pix_key"],
        amount=row["amount"],
        end_to_end_id=row["end_to_end_id"],
        creditor_name=row["creditor_name"],
        creditor_document=row["creditor_document"],
        creditor_ispb=row["creditor_ispb"],
        behavior=row["behavior"],
        settle_after=row["settle_after"],
        deadline=row["deadline"],
        created_at=row["created_at"],
        receiver_account_id=row["receiver_account_id"],
        description=row["description"],
        payment_flow=row["payment_flow"],
        error_code=row["error_code"],
    )


class PostgresTransfers(Repository):
    async def add(self, transfer: NewTransfer) -> None:
        t = transfer
        await self._conn.execute(
            """
            INSERT INTO transfers (transaction_id, account_id, idempotency_key, state, priority, pix_key,
                creditor_document, description, payment_flow, amount, end_to_end_id, receiver_account_id,
                creditor_name, creditor_ispb, behavior, settle_after, deadline, created_at)
            VALUES ($1, $2, $3, 'PENDING', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
            """,
            t.transaction_id,
            t.account_id,
            t.idempotency_key,
            t.priority.value,
            t.pix_key,
            t.creditor_document,
            t.description,
            t.payment_flow,
            t.amount,
            t.end_to_end_id,
            t.receiver_account_id,
            t.creditor_name,
            t.creditor_ispb,
            t.behavior,
            t.settle_after,
            t.deadline,
            t.created_at,
        )

    async def get(self, transaction_id: int) -> Transfer | None:
        row = await self._conn.fetchrow(
            f"SELECT {_TRANSFER_COLUMNS} FROM transfers WHERE transaction_id = $1",  # noqa: S608 - fixed columns
            transaction_id,
        )
        return _transfer(row) if row else None

    async def due(self, now: datetime, limit: int) -> list[int]:
        rows = await self._conn.fetch(
            """
            SELECT transaction_id FROM transfers
             WHERE state = 'PENDING' AND (settle_after <= $1 OR deadline <= $1)
             ORDER BY settle_after LIMIT $2
            """,
            now,
            limit,
        )
        return [row["transaction_id"] for row in rows]

    async def lock_pending(self, transaction_id: int) -> Transfer | None:
        row = await self._conn.fetchrow(
            f"""
            SELECT {_TRANSFER_COLUMNS} FROM transfers
             WHERE transaction_id = $1 AND state = 'PENDING'
               FOR UPDATE SKIP LOCKED
            """,  # noqa: S608 - fixed columns
            transaction_id,
        )
        return _transfer(row) if row else None

    async def finish(
        self, transaction_id: int, state: TransferState, error_code: str | None, at: datetime
    ) -> None:
        await self._conn.execute(
            "UPDATE transfers SET state = $2, error_code = $3, finished_at = $4 WHERE transaction_id = $1",
            transaction_id,
            state.value,
            error_code,
            at,
        )


class PostgresIdempotency(Repository):
    async def find(self, account_id: int, key: uuid.UUID) -> IdempotencyRecord | None:
        row = await self._conn.fetchrow(
            "SELECT request_hash, transaction_id FROM idempotency_keys WHERE account_id = $1 AND key = $2",
            account_id,
            key,
        )
        return IdempotencyRecord(row["request_hash"], row["transaction_id"]) if row else None

    async def claim(
        self, account_id: int, key: uuid.UUID, request_hash: str, transaction_id: int, at: datetime
    ) -> bool:
        # A concurrent claimant's uncommitted row makes this wait for its outcome, then conflict or insert.
        claimed = await self._conn.fetchval(
            """
            INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
            VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (account_id, key) DO NOTHING
            RETURNING true
            """,
            account_id,
            key,
            request_hash,
            transaction_id,
            at,
        )
        return bool(claimed)


class PostgresOutbox(Repository):
    async def add(self, account_id: int, event: dict[str, Any], at: datetime) -> None:
        await self._conn.execute(
            "INSERT INTO outbox (account_id, event_type, payload, created_at) VALUES ($1, $2, $3::jsonb, $4)",
            account_id,
            event["type"],
            _EVENT_ENCODER.encode(event).decode(),
            at,
        )
