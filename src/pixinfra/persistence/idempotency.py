"""PostgreSQL repository of the transfers' idempotency keys (``idempotency_keys``).

The table is partitioned by day on ``stored_at`` (``pixinfra.postgres.partitions``), so no unique
index makes a key unique per account across days. What does: every writer takes a
transaction-scoped advisory lock per (account, key) (:data:`LOCK_KEYS`, in ascending order of the
locks, before the balance row's lock) and only then looks for the key among those stored within
``IDEMPOTENCY_WINDOW`` (:data:`LIVE`), in a statement of its own, whose snapshot sees what a
previous holder of the lock committed (a transfer group's one statement calls
``idempotency_keys_taken``, a function that does both). A key older than the window is a new
request's.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import LiteralString

import asyncpg

from pixcore.accounts.rules import Balance
from pixcore.records import NewTransaction
from pixcore.transfers.ports import IdempotencyRecord
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose
from pixinfra.persistence.transactions import INSERT_MANY, insert_many_arguments

__all__ = [
    "BALANCE_AND_TAKEN",
    "LIVE",
    "LOCK_KEYS",
    "LOCK_SPACE",
    "PostgresIdempotency",
    "balance_and_taken",
    "key_locks",
]

LOCK_SPACE: LiteralString = "1"
"""The first half of the two-part advisory lock key of an idempotency key (the second: its hash)."""

LOCK_KEYS = compose(
    "SELECT count(pg_advisory_xact_lock(", LOCK_SPACE, ", lock)) FROM unnest($1::int[]) AS lock"
)
"""Take the advisory locks $1 (from :func:`key_locks`) in their order, until the transaction ends
(``idempotency_keys_taken``, in the database, takes them the same way)."""

LIVE: LiteralString = "stored_at > now() - interval '25 hours'"
"""A key still honoured: stored within ``IDEMPOTENCY_WINDOW`` by the database's clock (a day's
partition goes once all its keys are older)."""


def key_locks(account_id: int, keys: Sequence[uuid.UUID]) -> list[int]:
    """The advisory locks of ``keys`` of ``account_id``, ascending, each once: every writer takes
    them in this order, so two never wait for each other in a circle."""
    digests = (hashlib.blake2b(f"{account_id}:{key}".encode(), digest_size=4).digest() for key in keys)
    return sorted({int.from_bytes(digest, "big", signed=True) for digest in digests})


# The records, then each key not taken claimed with the id of the record at its place (ids ascend
# in the records' order): one statement, under the keys' locks.
_ADD_AND_CLAIM = compose(
    "WITH added AS (",
    INSERT_MANY,
    "),"
    """
numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS ord FROM added),
claimed AS (
    INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
    SELECT $17, c.key, c.request_hash, n.id, $20
      FROM unnest($18::uuid[], $19::text[]) WITH ORDINALITY AS c(key, request_hash, ord)
      JOIN numbered n ON n.ord = c.ord
     WHERE NOT EXISTS (
           SELECT FROM idempotency_keys k WHERE k.account_id = $17 AND k.key = c.key AND k.""",
    LIVE,
    """)
    RETURNING key
)
SELECT (SELECT array_agg(id ORDER BY id) FROM added) AS ids, ARRAY(SELECT key FROM claimed) AS claimed
""",
)


BALANCE_AND_TAKEN = compose(
    """
SELECT b.available, b.blocked, k.key, k.request_hash, k.transaction_id
  FROM balances b
  LEFT JOIN idempotency_keys k ON k.account_id = b.account_id AND k.key = ANY($2::uuid[]) AND k.""",
    LIVE,
    """
 WHERE b.account_id = $1
""",
)
"""An account's balance ($1) and which of the keys $2 it has taken: one row per taken key (or one
row without a key), each with the balance. Read by :func:`balance_and_taken`."""
_LOCK_AND_FIND = BALANCE_AND_TAKEN + "   FOR UPDATE OF b"

_FIND = compose(
    "SELECT request_hash, transaction_id FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND ", LIVE
)
_FIND_MANY = compose(
    "SELECT key, request_hash, transaction_id FROM idempotency_keys",
    " WHERE account_id = $1 AND key = ANY($2::uuid[]) AND ",
    LIVE,
)
_CLAIM = compose(
    """
INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
SELECT $1, $2, $3, $4, $5
 WHERE NOT EXISTS (SELECT FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND """,
    LIVE,
    """)
RETURNING true
""",
)
_CLAIM_MANY = compose(
    """
INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
SELECT $1, c.key, c.request_hash, c.transaction_id, $5
  FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS c(key, request_hash, transaction_id)
 WHERE NOT EXISTS (
       SELECT FROM idempotency_keys k WHERE k.account_id = $1 AND k.key = c.key AND k.""",
    LIVE,
    """)
RETURNING key
""",
)


def balance_and_taken(
    rows: Sequence[asyncpg.Record],
) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
    """The rows of :data:`BALANCE_AND_TAKEN`: the balance (None: no such account) and the taken keys."""
    if not rows:
        return None, {}
    balance = Balance(available=rows[0]["available"], blocked=rows[0]["blocked"])
    return balance, {
        row["key"]: IdempotencyRecord(row["request_hash"], row["transaction_id"])
        for row in rows
        if row["key"] is not None
    }


class PostgresIdempotency(Repository):
    async def _lock(self, account_id: int, keys: Sequence[uuid.UUID]) -> None:
        """The keys' advisory locks, held until the transaction ends (a concurrent claimant of one
        of them waits here for the other's outcome)."""
        await self._conn.execute(LOCK_KEYS, key_locks(account_id, keys))

    async def find(self, account_id: int, key: uuid.UUID) -> IdempotencyRecord | None:
        row = await self._conn.fetchrow(
            _FIND,
            account_id,
            key,
        )
        return IdempotencyRecord(row["request_hash"], row["transaction_id"]) if row else None

    async def claim(
        self, account_id: int, key: uuid.UUID, request_hash: str, transaction_id: int, at: datetime
    ) -> bool:
        await self._lock(account_id, [key])
        claimed = await self._conn.fetchval(
            _CLAIM,
            account_id,
            key,
            request_hash,
            transaction_id,
            at,
        )
        return bool(claimed)

    async def find_many(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, IdempotencyRecord]:
        rows = await self._conn.fetch(
            _FIND_MANY,
            account_id,
            list(keys),
        )
        return {row["key"]: IdempotencyRecord(row["request_hash"], row["transaction_id"]) for row in rows}

    async def find_many_and_lock(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        # The keys' locks first, then the balance row's (the order every writer takes them in); then
        # one row per taken key (or one with no key), each with the balance.
        await self._lock(account_id, keys)
        return balance_and_taken(await self._conn.fetch(_LOCK_AND_FIND, account_id, list(keys)))

    async def add_and_claim_many(
        self,
        account_id: int,
        records: Sequence[NewTransaction],
        claims: Sequence[tuple[uuid.UUID, str]],
        at: datetime,
    ) -> tuple[list[int], set[uuid.UUID]]:
        if len(claims) != len(records):
            raise ValueError("one claim a record")
        await self._lock(account_id, [key for key, _ in claims])
        row = await self._conn.fetchrow(
            _ADD_AND_CLAIM,
            *insert_many_arguments(records),
            account_id,
            [key for key, _ in claims],
            [request_hash for _, request_hash in claims],
            at,
        )
        if row is None:  # a SELECT without FROM always gives one row
            raise RuntimeError("the statement returned no row")
        return list(row["ids"] or []), set(row["claimed"])

    async def claim_many(
        self, account_id: int, claims: Sequence[tuple[uuid.UUID, str, int]], at: datetime
    ) -> set[uuid.UUID]:
        await self._lock(account_id, [key for key, _, _ in claims])
        rows = await self._conn.fetch(
            _CLAIM_MANY,
            account_id,
            [key for key, _, _ in claims],
            [request_hash for _, request_hash, _ in claims],
            [transaction_id for _, _, transaction_id in claims],
            at,
        )
        return {row["key"] for row in rows}
