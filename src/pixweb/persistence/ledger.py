"""PostgreSQL repository of the ledger: entries and the balances they move.

The ledger applies a posting with one guarded UPDATE per account, in account
order (so that two accounts paying each other cannot deadlock)::

    UPDATE balances SET available = available + $2, blocked = blocked + $3
     WHERE account_id = $1 AND available + $2 >= 0 AND blocked + $3 >= 0

No row updated means the funds are not there: ``InsufficientFunds``, and the
unit of work rolls the whole posting back. The CHECK constraints on the
table are the second guard.
"""

from __future__ import annotations

from datetime import datetime

from pixcore.errors import InsufficientFunds
from pixcore.ledger import Posting
from pixweb.persistence.repository import Repository

__all__ = ["PostgresLedger"]


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
