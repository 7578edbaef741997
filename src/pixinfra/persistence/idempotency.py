"""PostgreSQL repository of the transfers' idempotency keys (``idempotency_keys``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import asyncpg

from pixcore.accounts.rules import Balance
from pixcore.records import NewTransaction
from pixcore.transfers.ports import IdempotencyRecord
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose
from pixinfra.persistence.transactions import INSERT_MANY, insert_many_arguments

__all__ = ["BALANCE_AND_TAKEN", "PostgresIdempotency", "balance_and_taken"]

# The records, then each key claimed with the id of the record at its place (ids ascend in the
# records' order): one statement. The claims' foreign key is checked at the statement's end, when
# the records are there.
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
    ON CONFLICT (account_id, key) DO NOTHING
    RETURNING key
)
SELECT (SELECT array_agg(id ORDER BY id) FROM added) AS ids, ARRAY(SELECT key FROM claimed) AS claimed
""",
)


BALANCE_AND_TAKEN = """
SELECT b.available, b.blocked, k.key, k.request_hash, k.transaction_id
  FROM balances b
  LEFT JOIN idempotency_keys k ON k.account_id = b.account_id AND k.key = ANY($2::uuid[])
 WHERE b.account_id = $1
"""
"""An account's balance ($1) and which of the keys $2 it has taken: one row per taken key (or one
row without a key), each with the balance. Read by :func:`balance_and_taken`."""
_LOCK_AND_FIND = BALANCE_AND_TAKEN + "   FOR UPDATE OF b"


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

    async def find_many(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, IdempotencyRecord]:
        rows = await self._conn.fetch(
            """
            SELECT key, request_hash, transaction_id FROM idempotency_keys
             WHERE account_id = $1 AND key = ANY($2::uuid[])
            """,
            account_id,
            list(keys),
        )
        return {row["key"]: IdempotencyRecord(row["request_hash"], row["transaction_id"]) for row in rows}

    async def find_many_and_lock(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        # One row per taken key (or one with no key), each with the balance; its row locked once.
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
        rows = await self._conn.fetch(
            """
            INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
            SELECT $1, key, request_hash, transaction_id, $5
              FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS c(key, request_hash, transaction_id)
            ON CONFLICT (account_id, key) DO NOTHING
            RETURNING key
            """,
            account_id,
            [key for key, _, _ in claims],
            [request_hash for _, request_hash, _ in claims],
            [transaction_id for _, _, transaction_id in claims],
            at,
        )
        return {row["key"] for row in rows}
