"""The port of group commit: a transfer group reserved with one read and one write."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pixcore.accounts.rules import (
    Balance,
)
from pixcore.ledger import Posting
from pixcore.records import NewTransaction, NewTransfer
from pixcore.transfers.ports import IdempotencyRecord

__all__ = ["TransferGroupStore", "TransferReservation"]


@dataclass(frozen=True, slots=True)
class TransferReservation:
    """What one transfer of a group writes when it is reserved: its record, its idempotency key's
    claim, the transfer itself once the record has its id, and the posting that reserves its amount."""

    record: NewTransaction
    key: uuid.UUID
    request_hash: str
    transfer: Callable[[int], NewTransfer]
    posting: Posting


class TransferGroupStore(Protocol):
    """A group of transfers out of one account reserved with one read and one write, each a single
    statement outside any open transaction: the group is decided on what :meth:`seen`
    read, and :meth:`reserve` writes it only if the decision still holds: the account's available
    balance still covers it and, when the decision refused some transfer for its amount, is still
    exactly what it was decided on (a higher one might have covered it). That is the decision a
    locked balance would have given. When it does not hold (or a key was claimed meanwhile),
    nothing is written and the caller decides again."""

    async def seen(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        """``IdempotencyRepository.find_many_and_lock`` without the lock (and without a transaction):
        the account's committed balance (None if there is no such account) and the taken ``keys``."""
        ...

    async def reserve(
        self,
        account_id: int,
        exactly: int | None,
        reservations: Sequence[TransferReservation],
        at: datetime,
    ) -> list[int] | None:
        """All of ``reservations`` at once, atomically, if the account's available balance covers
        them and (unless ``exactly`` is None) is ``exactly``: each record added (its id in the order
        given), its key claimed, its transfer added and its posting applied, every posting moving
        ``account_id``'s balance only. The records' ids; None, with nothing written, when the balance
        does not cover them or is not ``exactly``, or a key is taken."""
        ...
