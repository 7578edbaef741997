"""PostgreSQL repository of the transfers' idempotency keys (``idempotency_keys``)."""

from __future__ import annotations

import uuid
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
