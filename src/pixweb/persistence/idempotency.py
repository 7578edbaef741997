"""PostgreSQL repository of the transfers' idempotency keys (``idempotency_keys``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from pixcore.ports import IdempotencyRecord
from pixweb.persistence.repository import Repository

__all__ = ["PostgresIdempotency"]


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
