"""Fakes of the money ports: transaction records, the ledger, transfers, idempotency keys, the outbox."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pixcore.accounts.rules import Balance, Counterpart
from pixcore.errors import InsufficientFunds
from pixcore.events import Event
from pixcore.ledger import Posting
from pixcore.records import NewTransaction, NewTransfer, TransactionStatus, Transfer
from pixcore.testing._store import IntegrityError, OutboxItem, Repository, StoredEntry
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.transfers.rules import SPI_BEHAVIOR, TransferState

__all__ = [
    "InMemoryIdempotency",
    "InMemoryLedger",
    "InMemoryOutbox",
    "InMemoryTransactions",
    "InMemoryTransfers",
]


class InMemoryTransactions(Repository):
    async def add(self, record: NewTransaction) -> int:
        self._require_account(record.account_id)
        transaction_id = self._uow.store.next_transaction_id()  # spent even on rollback, like a sequence
        self._staged.transactions[transaction_id] = record
        return transaction_id

    async def add_many(self, records: Sequence[NewTransaction]) -> list[int]:
        return [await self.add(record) for record in records]

    async def set_status(self, transaction_id: int, status: TransactionStatus, at: datetime) -> None:
        record = self._require_transaction(transaction_id)
        self._staged.transactions[transaction_id] = dataclasses.replace(
            record, status=status, processed_at=at
        )

    async def set_status_many(self, statuses: Sequence[tuple[int, TransactionStatus]], at: datetime) -> None:
        for transaction_id, status in statuses:
            await self.set_status(transaction_id, status, at)

    async def confirm(
        self, transaction_id: int, end_to_end_id: str, counterpart: Counterpart, at: datetime
    ) -> None:
        record = self._require_transaction(transaction_id)
        self._staged.transactions[transaction_id] = dataclasses.replace(
            record,
            status=TransactionStatus.CONFIRMED,
            end_to_end_id=end_to_end_id,
            counterpart=counterpart,
            processed_at=at,
        )


class InMemoryLedger(Repository):
    async def post_many(self, postings: Sequence[tuple[int, Posting]], at: datetime) -> None:
        """Every posting, or (``InsufficientFunds``) none of them."""
        staged = self._staged
        saved = dict(staged.balances), dict(staged.balance_changes), len(staged.entries)
        try:
            for transaction_id, posting in postings:
                await self.post(transaction_id, posting, at)
        except BaseException:
            staged.balances, staged.balance_changes = saved[0], saved[1]
            del staged.entries[saved[2] :]
            raise

    async def try_post(self, transaction_id: int, posting: Posting, at: datetime) -> bool:
        try:
            await self.post(transaction_id, posting, at)
        except InsufficientFunds:
            return False
        return True

    async def post(self, transaction_id: int, posting: Posting, at: datetime) -> None:
        """Apply the posting to the staged balances, or raise ``InsufficientFunds`` and change nothing."""
        self._require_transaction(transaction_id)
        ours = {a.ispb for a in {**self._committed.accounts, **self._staged.accounts}.values()}
        if any(entry.institution in ours for entry in posting.entries):
            raise IntegrityError("an outside entry names the institution of one of our accounts")
        after: dict[int, Balance] = {}
        for account_id, (available, blocked) in posting.deltas().items():
            balance = self._balance(account_id)
            if balance is None:
                raise IntegrityError(f"account {account_id} has no balance")
            if balance.available + available < 0 or balance.blocked + blocked < 0:
                raise InsufficientFunds()
            after[account_id] = Balance(balance.available + available, balance.blocked + blocked)
        staged = self._staged
        for account_id, (available, blocked) in posting.deltas().items():
            staged.balances[account_id] = after[account_id]
            was_available, was_blocked = staged.balance_changes.get(account_id, (0, 0))
            staged.balance_changes[account_id] = (was_available + available, was_blocked + blocked)
        staged.entries.extend(
            StoredEntry(transaction_id, posting.name, e.account_id, e.bucket, e.amount, at, e.institution)
            for e in posting.entries
        )


def _fields(transfer: NewTransfer) -> dict[str, Any]:
    return {f.name: getattr(transfer, f.name) for f in dataclasses.fields(transfer)}


class InMemoryTransfers(Repository):
    async def add(self, transfer: NewTransfer) -> None:
        t = transfer
        self._require_account(t.account_id)
        self._require_transaction(t.transaction_id)
        if await self.get(t.transaction_id) is not None:
            raise IntegrityError(f"transaction {t.transaction_id} has a transfer already")
        visible = {**self._committed.transfers, **self._staged.transfers}.values()
        if any(other.end_to_end_id == t.end_to_end_id for other in visible):
            raise IntegrityError(f"a transfer with end-to-end id {t.end_to_end_id} exists already")
        self._staged.transfers[t.transaction_id] = Transfer(**_fields(t))

    async def add_many(self, transfers: Sequence[NewTransfer]) -> None:
        for transfer in transfers:
            await self.add(transfer)

    async def get(self, transaction_id: int) -> Transfer | None:
        staged = self._staged.transfers.get(transaction_id)
        return staged if staged is not None else self._committed.transfers.get(transaction_id)

    def _visible(self) -> dict[int, Transfer]:
        return {**self._committed.transfers, **self._staged.transfers}

    async def due(self, now: datetime, limit: int) -> list[int]:
        """PENDING transfers whose settlement time or deadline has come, in the adapter's order."""
        due = [
            t
            for t in self._visible().values()
            if t.state is TransferState.PENDING
            and t.behavior != SPI_BEHAVIOR
            and (t.settle_after <= now or t.deadline <= now)
        ]
        due.sort(key=lambda t: (t.settle_after, t.created_at, t.transaction_id))
        return [t.transaction_id for t in due[:limit]]

    async def due_to_spi(self, now: datetime, resend_before: datetime, limit: int) -> list[int]:
        due = [
            t
            for t in self._visible().values()
            if t.state is TransferState.PENDING
            and t.behavior == SPI_BEHAVIOR
            and t.settle_after <= now
            and (t.sent_at is None or t.sent_at <= resend_before)
        ]
        due.sort(key=lambda t: (t.settle_after, t.transaction_id))
        return [t.transaction_id for t in due[:limit]]

    async def mark_sent(self, transaction_ids: Sequence[int], at: datetime) -> None:
        for transaction_id in transaction_ids:
            transfer = await self.get(transaction_id)
            if transfer is not None:
                self._staged.transfers[transaction_id] = dataclasses.replace(transfer, sent_at=at)

    async def lock_pending_by_end_to_end(self, end_to_end_id: str) -> Transfer | None:
        found = next((t for t in self._visible().values() if t.end_to_end_id == end_to_end_id), None)
        return None if found is None else await self.lock_pending(found.transaction_id)

    async def lock_pending(self, transaction_id: int) -> Transfer | None:
        transfer = await self.get(transaction_id)
        if transfer is None or transfer.state is not TransferState.PENDING:
            return None
        if not self._uow.store.lock_row("transfers", transaction_id, self._uow):
            return None  # another open unit of work holds it: skipped, as SKIP LOCKED does
        return transfer

    async def lock_pending_many(self, transaction_ids: Sequence[int]) -> list[Transfer]:
        locked = [await self.lock_pending(transaction_id) for transaction_id in sorted(set(transaction_ids))]
        return [transfer for transfer in locked if transfer is not None]

    async def finish_many(
        self, finished: Sequence[tuple[int, TransferState, str | None]], at: datetime
    ) -> None:
        for transaction_id, state, error_code in finished:
            await self.finish(transaction_id, state, error_code, at)

    async def finish(
        self, transaction_id: int, state: TransferState, error_code: str | None, at: datetime
    ) -> None:
        transfer = await self.get(transaction_id)
        if transfer is None:
            raise IntegrityError(f"transaction {transaction_id} has no transfer")
        staged = self._staged
        staged.transfers[transaction_id] = dataclasses.replace(transfer, state=state, error_code=error_code)
        staged.finished_at[transaction_id] = at


class InMemoryIdempotency(Repository):
    async def find(self, account_id: int, key: uuid.UUID) -> IdempotencyRecord | None:
        staged = self._staged.idempotency.get((account_id, key))
        return staged if staged is not None else self._committed.idempotency.get((account_id, key))

    async def claim(
        self, account_id: int, key: uuid.UUID, request_hash: str, transaction_id: int, at: datetime
    ) -> bool:
        if await self.find(account_id, key) is not None:
            return False
        self._require_account(account_id)
        self._require_transaction(transaction_id)
        staged = self._staged
        staged.idempotency[(account_id, key)] = IdempotencyRecord(request_hash, transaction_id)
        staged.claimed_at[(account_id, key)] = at
        return True

    async def find_many(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, IdempotencyRecord]:
        found = {key: await self.find(account_id, key) for key in keys}
        return {key: record for key, record in found.items() if record is not None}

    async def find_many_and_lock(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        """One unit of work runs at a time here: the balance is read, nothing else is locked out."""
        balance = self._balance(account_id)
        return balance, (await self.find_many(account_id, keys) if balance is not None else {})

    async def add_and_claim_many(
        self,
        account_id: int,
        records: Sequence[NewTransaction],
        claims: Sequence[tuple[uuid.UUID, str]],
        at: datetime,
    ) -> tuple[list[int], set[uuid.UUID]]:
        if len(claims) != len(records):
            raise ValueError("one claim a record")
        ids = await self._uow.transactions.add_many(records)
        together = [(key, request_hash, tid) for (key, request_hash), tid in zip(claims, ids, strict=True)]
        return ids, await self.claim_many(account_id, together, at)

    async def claim_many(
        self, account_id: int, claims: Sequence[tuple[uuid.UUID, str, int]], at: datetime
    ) -> set[uuid.UUID]:
        return {
            key
            for key, request_hash, transaction_id in claims
            if await self.claim(account_id, key, request_hash, transaction_id, at)
        }


class InMemoryOutbox(Repository):
    async def add(self, account_id: int, event: Event, at: datetime) -> None:
        self._require_account(account_id)
        self._staged.outbox.append(OutboxItem(account_id, event, event.webhook_type, at))

    async def add_many(self, account_id: int, events: Sequence[Event], at: datetime) -> None:
        for event in events:
            await self.add(account_id, event, at)

    async def add_each(self, events: Sequence[tuple[int, Event]], at: datetime) -> None:
        for account_id, event in events:
            await self.add(account_id, event, at)
