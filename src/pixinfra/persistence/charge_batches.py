"""PostgreSQL repository of batches of due-date charges (the adapter of
``pixcore.charges.ports.DueBatchRepository``): one row per batch, its items a jsonb array.

An item's refusal is kept as its branch, message and details; one whose error names fields by
reference keeps its problems too, in this adapter's own form: each field by its reference's
qualified name (``"ChargeField.DEBTOR_NAME"``), a member named in a text as ``{"member": ...}``,
with the text, the items' places and the summary, so that the edge renders it with the wire's
paths when it is read. A refusal stored without problems (the form before them) reads as it was:
its message and details as text.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import asyncpg

# The modules of the field references a charge's refusal names, so that a stored one reads back.
import pixcore.charges.cobv_requests
import pixcore.charges.locations  # noqa: F401
from pixcore.charges.batches import BatchItem, BatchItemStatus, DueBatch, Refusal
from pixcore.errors import DuplicateBatch
from pixcore.problems import Field, Member, Problem, Ref
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


def _name(field: Field) -> str:
    return f"{type(field).__name__}.{field.name}"


def _kinds() -> dict[str, type[Field]]:
    """Every field reference's enum by its name (the subclasses of ``Field``, however deep)."""
    found: dict[str, type[Field]] = {}
    pending = list(Field.__subclasses__())
    while pending:
        kind = pending.pop()
        found[kind.__name__] = kind
        pending.extend(kind.__subclasses__())
    return found


def _field(name: str) -> Field:
    kind, _, member = name.partition(".")
    return _kinds()[kind][member]


def _ref_row(ref: Ref) -> dict[str, str]:
    return {"member": _name(ref.field)} if isinstance(ref, Member) else {"field": _name(ref)}


def _ref(row: dict[str, str]) -> Ref:
    return Member(_field(row["member"])) if "member" in row else _field(row["field"])


def _problem_row(problem: Problem) -> dict[str, Any]:
    return {
        "fields": [_name(field) for field in problem.fields],
        "text": problem.text,
        "refs": [_ref_row(ref) for ref in problem.refs],
        "at": list(problem.at),
    }


def _problem(row: dict[str, Any]) -> Problem:
    return Problem(
        tuple(_field(name) for name in row["fields"]),
        row["text"],
        tuple(_ref(ref) for ref in row["refs"]),
        tuple(row["at"]),
    )


def _refusal_row(refusal: Refusal) -> dict[str, Any]:
    row: dict[str, Any] = {
        "branch": refusal.branch,
        "message": refusal.message,
        "details": list(refusal.details),
    }
    if refusal.problems or refusal.lead is not None or refusal.summary is not None:
        row["problems"] = [_problem_row(problem) for problem in refusal.problems]
        row["summary"] = refusal.summary
        row["lead"] = None if refusal.lead is None else _problem_row(refusal.lead)
    return row


def _refusal(row: dict[str, Any]) -> Refusal:
    """A stored refusal: with its problems, or, stored without them, its message and details."""
    if "problems" not in row:
        return Refusal(row["branch"], row["message"], tuple(row["details"]))
    lead = row["lead"]
    return Refusal(
        row["branch"],
        row["message"],
        tuple(row["details"]),
        tuple(_problem(problem) for problem in row["problems"]),
        row["summary"],
        None if lead is None else _problem(lead),
    )


def _item_row(item: BatchItem) -> dict[str, Any]:
    refusal = item.refusal
    return {
        "txid": item.txid,
        "status": item.status.value,
        "createdAt": None if item.created_at is None else item.created_at.isoformat(),
        "refusal": None if refusal is None else _refusal_row(refusal),
    }


def _item(row: dict[str, Any]) -> BatchItem:
    refusal = row.get("refusal")
    created = row.get("createdAt")
    return BatchItem(
        txid=row["txid"],
        status=BatchItemStatus(row["status"]),
        created_at=None if created is None else datetime.fromisoformat(created),
        refusal=None if refusal is None else _refusal(refusal),
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
