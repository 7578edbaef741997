"""PostgreSQL repository of the transaction records (``transactions``): the rows the API lists."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pixcore.accounts.rules import Counterpart
from pixcore.records import NewTransaction, TransactionStatus
from pixinfra.persistence.repository import Repository

__all__ = ["PostgresTransactions"]


_INSERT_MANY = """
INSERT INTO transactions (account_id, type, status, amount, external_id, end_to_end_id, pix_key,
    description, counterpart_name, counterpart_document, counterpart_ispb, counterpart_bank,
    counterpart_branch, counterpart_account, created_at, updated_at, processed_at)
SELECT account_id, type, status, amount, external_id, end_to_end_id, pix_key, description,
       c_name, c_document, c_ispb, c_bank, c_branch, c_account, created_at, created_at,
       processed_at
  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[],
              $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
              $13::text[], $14::text[], $15::timestamptz[], $16::timestamptz[])
       WITH ORDINALITY AS r(account_id, type, status, amount, external_id, end_to_end_id,
           pix_key, description, c_name, c_document, c_ispb, c_bank, c_branch, c_account,
           created_at, processed_at, ord)
 WHERE {condition}
 ORDER BY ord
RETURNING id
"""


def insert_many_sql(condition: str = "true") -> str:
    """Many records with one statement, ``RETURNING id``; its 16 arguments from
    :func:`insert_many_arguments`. Identity values are drawn in insertion order, so ascending ids are
    the records' order. ``condition``: none is added unless it holds (a guard of the same statement)."""
    return _INSERT_MANY.format(condition=condition)


INSERT_MANY = insert_many_sql()


def insert_many_arguments(records: Sequence[NewTransaction]) -> tuple[object, ...]:
    """The arguments ``$1`` to ``$16`` of :data:`INSERT_MANY`."""
    counterparts = [record.counterpart for record in records]
    return (
        [record.account_id for record in records],
        [record.type.value for record in records],
        [record.status.value for record in records],
        [record.amount for record in records],
        [record.external_id for record in records],
        [record.end_to_end_id for record in records],
        [record.pix_key for record in records],
        [record.description for record in records],
        [c.name if c else None for c in counterparts],
        [c.document if c else None for c in counterparts],
        [c.ispb if c else None for c in counterparts],
        [c.bank_name if c else None for c in counterparts],
        [c.branch if c else None for c in counterparts],
        [c.account_number if c else None for c in counterparts],
        [record.created_at for record in records],
        [record.processed_at for record in records],
    )


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

    async def add_many(self, records: Sequence[NewTransaction]) -> list[int]:
        rows = await self._conn.fetch(INSERT_MANY, *insert_many_arguments(records))
        # Identity values are drawn in insertion order (ORDER BY ord): ascending ids are the records' order.
        return sorted(row["id"] for row in rows)

    async def set_status(self, transaction_id: int, status: TransactionStatus, at: datetime) -> None:
        await self._conn.execute(
            "UPDATE transactions SET status = $2, updated_at = $3, processed_at = $3 WHERE id = $1",
            transaction_id,
            status.value,
            at,
        )

    async def set_status_many(self, statuses: Sequence[tuple[int, TransactionStatus]], at: datetime) -> None:
        await self._conn.execute(
            """
            UPDATE transactions AS t SET status = s.status, updated_at = $3, processed_at = $3
              FROM unnest($1::bigint[], $2::text[]) AS s(id, status)
             WHERE t.id = s.id
            """,
            [transaction_id for transaction_id, _ in statuses],
            [status.value for _, status in statuses],
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
