"""PostgreSQL side of a transfer group reserved with one read and one write:
:class:`pixcore.group_commit.ports.TransferGroupStore`.

Both are single statements on a pooled connection outside any open transaction, so a group costs
two round trips instead of a BEGIN, a locking read, three writes and a COMMIT. The write is one
data-modifying ``WITH``; PostgreSQL runs a lone statement as its own transaction, so it is all or
nothing:

- ``guard`` moves the account's balance only if it covers the group, none of the group's keys is
  claimed (``idempotency_keys_taken``: it takes the keys' advisory locks, in the order every
  claimant takes them and before the balance row's lock, then looks on a snapshot of its own, so
  it sees every claim committed before, and none can be made while the locks are held) and, when
  the group asks for it, ``available`` is exactly what the group was decided on (the UPDATE waits
  for a concurrent writer of the row and judges the row as that writer left it);
- the records are added only if ``guard`` moved it, and everything else is joined to the records,
  so a moved balance or a key taken writes nothing at all.

Either way the caller is told (None) and decides again; the CHECK constraints of ``balances`` stay
the last guard, as for every other posting.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from pixcore.accounts.rules import Balance
from pixcore.group_commit.ports import TransferReservation
from pixcore.transfers.ports import IdempotencyRecord
from pixinfra.persistence.idempotency import BALANCE_AND_TAKEN, balance_and_taken, key_locks
from pixinfra.persistence.sql import compose
from pixinfra.persistence.transactions import insert_many_arguments, insert_many_sql
from pixinfra.persistence.transfers import insert_transfers_sql, transfer_arguments
from pixinfra.postgres.pool import Database

__all__ = ["PostgresTransferGroupStore"]

_AVAILABLE = "SELECT available FROM balances WHERE account_id = $1"

# $1-$16 the records; $17 the account, $18 the available balance it must be (NULL: any that
# covers the group), $19/$20 the change of (available, blocked), $21 the time; $22/$23 the keys
# and request hashes; $24-$39 the transfers; $40-$45 the ledger entries, each with the position
# of its transfer.
_GUARD = """
UPDATE balances SET available = available + $19, blocked = blocked + $20, updated_at = $21
 WHERE account_id = $17 AND ($18::bigint IS NULL OR available = $18)
   AND available + $19 >= 0 AND blocked + $20 >= 0
   AND NOT idempotency_keys_taken($17, $22::uuid[], $46::int[])
RETURNING account_id
"""
_RESERVE = compose(
    "WITH guard AS (",
    _GUARD,
    "), added AS (",
    insert_many_sql("EXISTS (SELECT FROM guard)"),
    "),"
    """
numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS ord FROM added),
claimed AS (
    INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
    SELECT $17, c.key, c.request_hash, n.id, $21
      FROM unnest($22::uuid[], $23::text[]) WITH ORDINALITY AS c(key, request_hash, ord)
      JOIN numbered n ON n.ord = c.ord
),
"""
    "transferred AS (",
    insert_transfers_sql(24),
    "),"
    """
entries AS (
    INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at, institution)
    SELECT n.id, e.posting, e.account_id, e.bucket, e.amount, $21, e.institution
      FROM unnest($40::bigint[], $41::text[], $42::bigint[], $43::text[], $44::bigint[], $45::text[])
           AS e(ord, posting, account_id, bucket, amount, institution)
      JOIN numbered n ON n.ord = e.ord
)
SELECT array_agg(id ORDER BY id) AS ids FROM added
""",
)


class PostgresTransferGroupStore:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def seen(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        rows = await self._database.pool.fetch(BALANCE_AND_TAKEN, account_id, list(keys))
        return balance_and_taken(rows)

    async def reserve(
        self,
        account_id: int,
        exactly: int | None,
        reservations: Sequence[TransferReservation],
        at: datetime,
    ) -> list[int] | None:
        if not reservations:  # nothing to write: only the balance to judge
            if exactly is None:
                return []
            available = await self._database.pool.fetchval(_AVAILABLE, account_id)
            return [] if available == exactly else None
        change_available = change_blocked = 0
        entries: list[tuple[int, str, int | None, str, int, str | None]] = []
        for position, reservation in enumerate(reservations, 1):
            posting = reservation.posting
            moved = {account for account, change in posting.deltas().items() if change != (0, 0)}
            if moved - {account_id}:
                raise ValueError("a group's postings move its own account's balance only")
            delta_available, delta_blocked = posting.deltas().get(account_id, (0, 0))
            change_available += delta_available
            change_blocked += delta_blocked
            entries.extend(
                (position, posting.name, e.account_id, e.bucket.value, e.amount, e.institution)
                for e in posting.entries
            )
        # The transfers' fields but their transaction id, which the statement gives each by position.
        transfers = [reservation.transfer(0) for reservation in reservations]
        keys = [reservation.key for reservation in reservations]
        ids = await self._database.pool.fetchval(
            _RESERVE,
            *insert_many_arguments([reservation.record for reservation in reservations]),
            account_id,
            exactly,
            change_available,
            change_blocked,
            at,
            keys,
            [reservation.request_hash for reservation in reservations],
            *transfer_arguments(transfers),
            *([entry[n] for entry in entries] for n in range(6)),
            key_locks(account_id, keys),
        )
        return list(ids) if ids is not None else None
