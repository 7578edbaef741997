"""PostgreSQL repository of the transaction records (``transactions``): the rows the API lists."""

from __future__ import annotations

from datetime import datetime

from pixcore.accounts import Counterpart
from pixcore.records import NewTransaction, TransactionStatus
from pixweb.persistence.repository import Repository

__all__ = ["PostgresTransactions"]


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
