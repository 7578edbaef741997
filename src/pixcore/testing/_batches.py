"""The fake of the port of batches of due-date charges."""

from __future__ import annotations

import dataclasses

from pixcore.charges.batches import DueBatch
from pixcore.errors import DuplicateBatch
from pixcore.queries.standard import BatchQuery
from pixcore.testing._store import Repository

__all__ = ["InMemoryDueBatches"]


class InMemoryDueBatches(Repository):
    """Batches by ``(account_id, id)``. ``lock`` marks the row for the unit of work but does not
    wait (the fakes run one writer at a time); a batch id added by two units fails the second at
    ``commit()``, as the primary key makes the second PostgreSQL writer fail."""

    def _visible(self) -> dict[tuple[int, int], DueBatch]:
        return {**self._committed.batches, **self._staged.batches}

    async def add(self, batch: DueBatch) -> None:
        self._require_account(batch.account_id)
        key = (batch.account_id, batch.id)
        if key in self._visible():
            raise DuplicateBatch()
        self._staged.batches[key] = batch
        self._staged.new_batches.add(key)

    async def get(self, account_id: int, batch_id: int) -> DueBatch | None:
        return self._visible().get((account_id, batch_id))

    async def lock(self, account_id: int, batch_id: int) -> DueBatch | None:
        batch = await self.get(account_id, batch_id)
        if batch is not None:
            self._uow.store.lock_row(f"batches of {account_id}", batch_id, self._uow)
        return batch

    async def save(self, batch: DueBatch) -> None:
        stored = self._visible()[(batch.account_id, batch.id)]
        self._staged.batches[(batch.account_id, batch.id)] = dataclasses.replace(
            stored, description=batch.description, items=batch.items
        )

    async def search(self, account_id: int, query: BatchQuery) -> tuple[int, list[DueBatch]]:
        found = [
            b
            for b in self._visible().values()
            if b.account_id == account_id and query.start <= b.created_at <= query.end
        ]
        found.sort(key=lambda b: (b.created_at, b.id))
        start = query.page.offset
        return len(found), found[start : start + query.page.size]
