"""The fake of :class:`pixcore.group_commit.ports.TransferGroupStore`: each method one unit of
work of its own."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from pixcore.accounts.rules import Balance
from pixcore.errors import InsufficientFunds
from pixcore.group_commit.ports import TransferReservation
from pixcore.testing._store import IntegrityError
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.transfers.transfer_service import reserve_many
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["InMemoryTransferGroupStore"]


class InMemoryTransferGroupStore:
    """Reads what is committed; writes a group in one unit of work that it commits only if the
    committed balance covers it (and is ``exactly`` the one asked for) and every key is still free
    (as the adapter's one statement does), else writes nothing and answers None."""

    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self._uow = uow

    async def seen(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        async with self._uow() as tx:
            balance = await tx.balances.get(account_id)
            return balance, (await tx.idempotency.find_many(account_id, keys) if balance is not None else {})

    async def reserve(
        self,
        account_id: int,
        exactly: int | None,
        reservations: Sequence[TransferReservation],
        at: datetime,
    ) -> list[int] | None:
        for reservation in reservations:
            moved = {a for a, change in reservation.posting.deltas().items() if change != (0, 0)}
            if moved - {account_id}:
                raise ValueError("a group's postings move its own account's balance only")
        try:
            async with self._uow() as tx:
                balance = await tx.balances.lock(account_id)
                if balance is None or exactly not in {None, balance.available}:
                    return None
                if not reservations:
                    return []
                ids = await reserve_many(tx, account_id, reservations, at)
                if ids is None:
                    return None  # a key taken: leaving without a commit discards the rest
                await tx.commit()
        except (IntegrityError, InsufficientFunds):  # what another unit committed meanwhile refuses
            return None
        return ids
