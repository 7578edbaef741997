"""PostgreSQL repository of the transfers we send (``transfers``): their state until settled."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg

from pixcore.records import NewTransfer, Transfer
from pixcore.transfers.rules import Priority, TransferState
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose

__all__ = ["PostgresTransfers", "insert_transfers_sql", "transfer_arguments"]

_TRANSFER_COLUMNS = """
    transaction_id, account_id, idempotency_key, state, priority, pix_key, amount, end_to_end_id,
    creditor_name, creditor_document, creditor_ispb, behavior, settle_after, deadline, created_at,
    receiver_account_id, description, payment_flow, error_code, sent_at
"""


# A new transfer's columns (besides its transaction_id and state) and their types, in the order of
# :func:`transfer_arguments`.
_NEW = (
    ("account_id", "bigint"),
    ("idempotency_key", "uuid"),
    ("priority", "text"),
    ("pix_key", "text"),
    ("creditor_document", "text"),
    ("description", "text"),
    ("payment_flow", "text"),
    ("amount", "bigint"),
    ("end_to_end_id", "text"),
    ("receiver_account_id", "bigint"),
    ("creditor_name", "text"),
    ("creditor_ispb", "text"),
    ("behavior", "text"),
    ("settle_after", "timestamptz"),
    ("deadline", "timestamptz"),
    ("created_at", "timestamptz"),
)


def insert_transfers_sql(first: int, *, transaction_ids: str | None = None) -> str:
    """An INSERT of many PENDING transfers, one per element of the arrays ``$first`` onwards (16 of
    them: :func:`transfer_arguments`). Their transaction ids come from the array ``transaction_ids``
    (a parameter such as ``"$1"``) or, when it is None, from the CTE ``numbered (id, ord)`` of the
    same statement, the n-th transfer taking the id numbered n."""
    names = ", ".join(name for name, _ in _NEW)
    arrays = ", ".join(f"${first + n}::{kind}[]" for n, (_, kind) in enumerate(_NEW))
    if transaction_ids is None:
        source = f"unnest({arrays}) WITH ORDINALITY AS t({names}, ord) JOIN numbered n ON n.ord = t.ord"
        transaction_id = "n.id"
    else:
        source = f"unnest({transaction_ids}::bigint[], {arrays}) AS t(transaction_id, {names})"
        transaction_id = "t.transaction_id"
    columns = ", ".join(f"t.{name}" for name, _ in _NEW)
    return compose(
        "INSERT INTO transfers (transaction_id, state, ",
        names,
        ") SELECT ",
        transaction_id,
        ", 'PENDING', ",
        columns,
        " FROM ",
        source,
    )


def transfer_arguments(transfers: Sequence[NewTransfer]) -> tuple[object, ...]:
    """The 16 arrays of :func:`insert_transfers_sql` (everything but the transaction ids)."""
    ts = transfers
    return (
        [t.account_id for t in ts],
        [t.idempotency_key for t in ts],
        [t.priority.value for t in ts],
        [t.pix_key for t in ts],
        [t.creditor_document for t in ts],
        [t.description for t in ts],
        [t.payment_flow for t in ts],
        [t.amount for t in ts],
        [t.end_to_end_id for t in ts],
        [t.receiver_account_id for t in ts],
        [t.creditor_name for t in ts],
        [t.creditor_ispb for t in ts],
        [t.behavior for t in ts],
        [t.settle_after for t in ts],
        [t.deadline for t in ts],
        [t.created_at for t in ts],
    )


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
        sent_at=row["sent_at"],
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

    async def add_many(self, transfers: Sequence[NewTransfer]) -> None:
        await self._conn.execute(
            insert_transfers_sql(2, transaction_ids="$1"),
            [t.transaction_id for t in transfers],
            *transfer_arguments(transfers),
        )

    async def get(self, transaction_id: int) -> Transfer | None:
        row = await self._conn.fetchrow(
            compose("SELECT ", _TRANSFER_COLUMNS, " FROM transfers WHERE transaction_id = $1"),
            transaction_id,
        )
        return _transfer(row) if row else None

    async def due(self, now: datetime, limit: int) -> list[int]:
        rows = await self._conn.fetch(
            """
            SELECT transaction_id FROM transfers
             WHERE state = 'PENDING' AND behavior <> 'spi' AND (settle_after <= $1 OR deadline <= $1)
             ORDER BY settle_after LIMIT $2
            """,
            now,
            limit,
        )
        return [row["transaction_id"] for row in rows]

    async def due_to_spi(self, now: datetime, resend_before: datetime, limit: int) -> list[int]:
        rows = await self._conn.fetch(
            """
            SELECT transaction_id FROM transfers
             WHERE state = 'PENDING' AND behavior = 'spi' AND settle_after <= $1
               AND (sent_at IS NULL OR sent_at <= $2)
             ORDER BY settle_after, transaction_id LIMIT $3
            """,
            now,
            resend_before,
            limit,
        )
        return [row["transaction_id"] for row in rows]

    async def mark_sent(self, transaction_ids: Sequence[int], at: datetime) -> None:
        await self._conn.execute(
            "UPDATE transfers SET sent_at = $2 WHERE transaction_id = ANY($1::bigint[])",
            list(transaction_ids),
            at,
        )

    async def lock_pending_by_end_to_end(self, end_to_end_id: str) -> Transfer | None:
        row = await self._conn.fetchrow(
            compose(
                "SELECT ",
                _TRANSFER_COLUMNS,
                " FROM transfers WHERE end_to_end_id = $1 AND state = 'PENDING' FOR UPDATE",
            ),
            end_to_end_id,
        )
        return None if row is None else _transfer(row)

    async def lock_pending(self, transaction_id: int) -> Transfer | None:
        row = await self._conn.fetchrow(
            compose(
                """
            SELECT """,
                _TRANSFER_COLUMNS,
                """ FROM transfers
             WHERE transaction_id = $1 AND state = 'PENDING'
               FOR UPDATE SKIP LOCKED
            """,
            ),
            transaction_id,
        )
        return _transfer(row) if row else None

    async def lock_pending_many(self, transaction_ids: Sequence[int]) -> list[Transfer]:
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _TRANSFER_COLUMNS,
                """ FROM transfers
             WHERE transaction_id = ANY($1::bigint[]) AND state = 'PENDING'
             ORDER BY transaction_id
               FOR UPDATE SKIP LOCKED
            """,
            ),
            list(transaction_ids),
        )
        return [_transfer(row) for row in rows]

    async def finish_many(
        self, finished: Sequence[tuple[int, TransferState, str | None]], at: datetime
    ) -> None:
        await self._conn.execute(
            """
            UPDATE transfers AS t SET state = f.state, error_code = f.error_code, finished_at = $4
              FROM unnest($1::bigint[], $2::text[], $3::text[]) AS f(transaction_id, state, error_code)
             WHERE t.transaction_id = f.transaction_id
            """,
            [transaction_id for transaction_id, _, _ in finished],
            [state.value for _, state, _ in finished],
            [error_code for _, _, error_code in finished],
            at,
        )

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
