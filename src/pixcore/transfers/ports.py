"""The ports of transfers: the transfers we send, their idempotency keys, and the key directory
(DICT) that resolves a key to an account.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pixcore.accounts.rules import (
    Balance,
)
from pixcore.keys import PixKey
from pixcore.records import NewTransaction, NewTransfer, Transfer
from pixcore.transfers.rules import DirectoryEntry, TransferState

__all__ = ["IdempotencyRecord", "IdempotencyRepository", "KeyDirectory", "TransferRepository"]


class TransferRepository(Protocol):
    async def add(self, transfer: NewTransfer) -> None: ...

    async def add_many(self, transfers: Sequence[NewTransfer]) -> None:
        """Store several transfers with one statement."""
        ...

    async def get(self, transaction_id: int) -> Transfer | None: ...

    async def due(self, now: datetime, limit: int) -> list[int]:
        """Ids of PENDING transfers whose settlement time or deadline has come (not those the SPI
        settles: behavior ``spi``)."""
        ...

    async def due_to_spi(self, now: datetime, resend_before: datetime, limit: int) -> list[int]:
        """Ids of PENDING transfers the SPI settles whose settlement time has come and that were
        never sent, or last sent before ``resend_before``."""
        ...

    async def mark_sent(self, transaction_ids: Sequence[int], at: datetime) -> None:
        """Record that these transfers were sent to the SPI at ``at``."""
        ...

    async def lock_pending_by_end_to_end(self, end_to_end_id: str) -> Transfer | None:
        """:meth:`lock_pending` of the transfer with this end-to-end id."""
        ...

    async def lock_pending(self, transaction_id: int) -> Transfer | None:
        """Lock a PENDING transfer for this unit of work; None if it is not pending or
        another worker holds it (``FOR UPDATE SKIP LOCKED``)."""
        ...

    async def lock_pending_many(self, transaction_ids: Sequence[int]) -> list[Transfer]:
        """:meth:`lock_pending` for several ids with one statement: those still PENDING that no
        other worker holds, in ascending id order."""
        ...

    async def finish(
        self, transaction_id: int, state: TransferState, error_code: str | None, at: datetime
    ) -> None: ...

    async def finish_many(
        self, finished: Sequence[tuple[int, TransferState, str | None]], at: datetime
    ) -> None:
        """:meth:`finish` for several ``(transaction_id, state, error_code)`` with one statement."""
        ...


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    request_hash: str
    transaction_id: int


class IdempotencyRepository(Protocol):
    async def find(self, account_id: int, key: uuid.UUID) -> IdempotencyRecord | None: ...

    async def claim(
        self, account_id: int, key: uuid.UUID, request_hash: str, transaction_id: int, at: datetime
    ) -> bool:
        """Bind the key to the transaction. False if the key is taken (waits for a
        concurrent claimant to finish first)."""
        ...

    async def find_many(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, IdempotencyRecord]:
        """The records of those of ``keys`` that are taken."""
        ...

    async def find_many_and_lock(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        """The account's balance, its row locked as ``BalanceRepository.lock`` locks it (None if there
        is no such account), and :meth:`find_many` of ``keys``: one round trip (a transfer group)."""
        ...

    async def claim_many(
        self, account_id: int, claims: Sequence[tuple[uuid.UUID, str, int]], at: datetime
    ) -> set[uuid.UUID]:
        """:meth:`claim` for several ``(key, request_hash, transaction_id)`` with one statement:
        the keys claimed (a taken one is left out)."""
        ...

    async def add_and_claim_many(
        self,
        account_id: int,
        records: Sequence[NewTransaction],
        claims: Sequence[tuple[uuid.UUID, str]],
        at: datetime,
    ) -> tuple[list[int], set[uuid.UUID]]:
        """``TransactionRepository.add_many(records)``, then :meth:`claim_many` of each ``(key,
        request_hash)`` with the id of the record at its place, in one round trip: the records'
        ids in their order, and the keys claimed (a taken one is left out; its record stays)."""
        ...


class KeyDirectory(Protocol):
    """The DICT: who owns a PIX key.

    A key is looked up for a payer: ``payer`` is the CPF or CNPJ of the holder of the account that
    pays (the DICT's ``PI-PayerId``, whose anti-scan policy keeps a bucket per payer)."""

    async def lookup(self, key: PixKey, *, payer: str) -> DirectoryEntry | None: ...

    async def lookup_many(self, keys: Sequence[PixKey], *, payer: str) -> dict[str, DirectoryEntry]:
        """:meth:`lookup` for several keys of one payer with one round trip: the entries found, by
        key value."""
        ...
