"""PostgreSQL repository of batches of due-date charges (the adapter of
``pixcore.charges.ports.DueBatchRepository``): one row per batch, its items a jsonb array."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import asyncpg

from pixcore.charges.batches import BatchItem, BatchItemStatus, DueBatch, Refusal
from pixcore.errors import DuplicateBatch
from pixcore.queries.standard import BatchQuery
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose, paged

__all__ = ["PostgresDueBatches"]

_ONE = (
    "SELECT account_id, id, description, created_at, items FROM due_batches WHERE account_id = $1 AND id = $2"
)
_LOCKED = {
    False: _ONE,
    True: "SELECT account_id, id, description, created_at, items FROM due_batches"
    " WHERE account_id = $1 AND id = $2 FOR UPDATE",
}
"""A batch by its account and id; ``True``: locked for the rest of the unit of work."""
_COUNT = "SELECT count(*) FROM due_batches WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3"
_PAGE = (
    "SELECT account_id, id, description, created_at, items FROM due_batches"
    " WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3 ORDER BY created_at, id"
)


def _item_row(item: BatchItem) -> dict[str, Any]:
    refusal = item.refusal
    return {
        "txid": item.txid,
        "status": item.status.value,
        "createdAt": None if item.created_at is None else item.created_at.isoformat(),
        "refusal": None
        if refusal is None
        else {"branch": refusal.branch, "message": refusal.message, "details": list(refusal.details)},
    }


def _item(row: dict[str, Any]) -> BatchItem:
    refusal = row.get("refusal")
    created = row.get("createdAt")
    return BatchItem(
        txid=row["txid"],
        status=BatchItemStatus(row["status"]),
        created_at=None if created is None else datetime.fromisoformat(created),
        refusal=None
        if refusal is None
        else Refusal(refusal["branch"], refusal["message"], tuple(refusal["details"])),
    )


def _batch(row: asyncpg.Record) -> DueBatch:
    return DueBatch(
        account_id=row["account_id"],
        id=row["id"],
        description=row["description"],
        created_at=row["created_at"],
        items=tuple(_item(item) for item in json.loads(row["items"])),
    )


def _items(batch: DueBatch) -> str:
    return json.dumps([_item_row(item) for item in batch.items])


class PostgresDueBatches(Repository):
    async def add(self, batch: DueBatch) -> None:
        try:
            async with self._conn.transaction():  # a savepoint: a conflict leaves the unit usable
                await self._conn.execute(
                    "INSERT INTO due_batches (account_id, id, description, created_at, items)"
                    " VALUES ($1, $2, $3, $4, $5::jsonb)",
                    batch.account_id,
                    batch.id,
                    batch.description,
                    batch.created_at,
                    _items(batch),
                )
        except asyncpg.UniqueViolationError:
            raise DuplicateBatch() from None

    async def _one(self, account_id: int, batch_id: int, *, lock: bool = False) -> DueBatch | None:
        row = await self._conn.fetchrow(_LOCKED[lock], account_id, batch_id)
        return _batch(row) if row else None

    async def get(self, account_id: int, batch_id: int) -> DueBatch | None:
        return await self._one(account_id, batch_id)

    async def lock(self, account_id: int, batch_id: int) -> DueBatch | None:
        return await self._one(account_id, batch_id, lock=True)

    async def save(self, batch: DueBatch) -> None:
        await self._conn.execute(
            "UPDATE due_batches SET description = $3, items = $4::jsonb WHERE account_id = $1 AND id = $2",
            batch.account_id,
            batch.id,
            batch.description,
            _items(batch),
        )

    async def search(self, account_id: int, query: BatchQuery) -> tuple[int, list[DueBatch]]:
        args = (account_id, query.start, query.end)
        total: int = await self._conn.fetchval(_COUNT, *args)
        if total <= query.page.offset:
            return total, []
        limit, page_args = paged(args, query.page.size, query.page.offset)
        rows = await self._conn.fetch(compose(_PAGE, limit), *page_args)
        return total, [_batch(row) for row in rows]
