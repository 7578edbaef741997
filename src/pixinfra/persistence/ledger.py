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

from collections.abc import Sequence
from datetime import datetime

from pixcore.errors import InsufficientFunds
from pixcore.ledger import Posting
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose

__all__ = ["PostgresLedger"]

_ENTRIES = """
INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at, institution)
SELECT transaction_id, posting, account_id, bucket, amount, $6, institution
  FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $7::text[])
       AS e(transaction_id, posting, account_id, bucket, amount, institution)
"""
_GUARDED = """
UPDATE balances SET available = available + $2, blocked = blocked + $3, updated_at = $4
 WHERE account_id = $1 AND available + $2 >= 0 AND blocked + $3 >= 0
RETURNING account_id
"""
# A data-modifying WITH runs to completion whether or not the UPDATE reads it; if the guard
# refuses, the caller raises and the unit of work rolls the entries back with the rest.
_ENTRIES_THEN_GUARDED = compose(
    "WITH entries AS (",
    _ENTRIES,
    ")"
    """
UPDATE balances SET available = available + $9, blocked = blocked + $10, updated_at = $6
 WHERE account_id = $8 AND available + $9 >= 0 AND blocked + $10 >= 0
RETURNING account_id
""",
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
        await self.post_many([(transaction_id, posting)], at)

    async def post_many(self, postings: Sequence[tuple[int, Posting]], at: datetime) -> None:
        # Entries first, balances last: the row locks the guarded updates take are then held
        # only until COMMIT, which keeps a busy account's queue short. The entries and the first
        # account's guarded UPDATE are one statement (a round trip less on every money movement).
        entries = [
            (transaction_id, posting.name, entry)
            for transaction_id, posting in postings
            for entry in posting.entries
        ]
        deltas: dict[int, tuple[int, int]] = {}
        for _, posting in postings:
            for account_id, (available, blocked) in posting.deltas().items():
                was_available, was_blocked = deltas.get(account_id, (0, 0))
                deltas[account_id] = (was_available + available, was_blocked + blocked)
        moves = [(account, change) for account, change in sorted(deltas.items()) if change != (0, 0)]
        rows = (
            [transaction_id for transaction_id, _, _ in entries],
            [name for _, name, _ in entries],
            [entry.account_id for _, _, entry in entries],
            [entry.bucket.value for _, _, entry in entries],
            [entry.amount for _, _, entry in entries],
            at,
            [entry.institution for _, _, entry in entries],
        )
        if not moves:
            await self._conn.execute(_ENTRIES, *rows)
            return
        (account_id, (available, blocked)), *others = moves
        if await self._conn.fetchval(_ENTRIES_THEN_GUARDED, *rows, account_id, available, blocked) is None:
            raise InsufficientFunds()
        for account_id, (available, blocked) in others:
            if await self._conn.fetchval(_GUARDED, account_id, available, blocked, at) is None:
                raise InsufficientFunds()
