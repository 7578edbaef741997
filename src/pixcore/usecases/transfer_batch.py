"""Group commit of the transfers one account sends (issue 17): one balance row, many requests.

Every transfer out of an account locks that account's balance row until its COMMIT, so
concurrent requests from one hot account queue on that lock one transaction at a time. A
:class:`TransferBatcher` gathers the requests of one process for one account (up to ``size``,
waiting at most ``window`` seconds for more) and applies them in ONE unit of work:

1. the balance row is locked once, and each transfer is decided in arrival order against the
   running available balance: one it does not cover fails alone with ``InsufficientFunds``;
2. the records, idempotency keys, transfers and ledger entries of the covered ones are written
   with one statement each, the balance updated once (guarded, as always), one COMMIT;
3. then every waiting request is answered. Nothing is answered before its COMMIT.

A request whose destination the rules refuse, whose key is taken already, or that repeats the
key of an earlier request of its batch takes the unbatched path
(:func:`~pixcore.usecases.transfers.create_transfer`) on its own, after the batch: its answer
is exactly today's. If the batch's unit of work fails for any reason (a key claimed meanwhile
by another process, a deadlock, a lost connection), its requests are applied one by one on the
unbatched path, so that one bad request never fails the others. ``size`` 1 is the unbatched path itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeAlias

from pixcore import ledger
from pixcore.clock import Clock
from pixcore.errors import AccountNotFound, InsufficientFunds, RuleViolation
from pixcore.ports import KeyDirectory, UnitOfWork, UnitOfWorkFactory
from pixcore.transfers import DirectoryEntry, TransferRequest
from pixcore.usecases.transfers import (
    CreatedTransfer,
    check_destination,
    create_transfer,
    new_records,
    request_fingerprint,
    stored,
)

__all__ = ["TransferBatcher"]

log = logging.getLogger(__name__)

_Outcome: TypeAlias = CreatedTransfer | RuleViolation


class _BatchAbandoned(Exception):
    """The batch cannot be applied as one: its requests go one by one."""


@dataclass(slots=True)
class _Waiting:
    key: uuid.UUID
    fingerprint: str
    request: TransferRequest
    entry: DirectoryEntry
    answer: asyncio.Future[CreatedTransfer]


@dataclass(slots=True)
class _Queue:
    waiting: list[_Waiting] = field(default_factory=list)
    full: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True, slots=True)
class _Decided:
    """What one batch's unit of work decided: answers by position, and who goes alone afterwards."""

    outcomes: dict[int, _Outcome]
    alone: list[int]


class TransferBatcher:
    """Creates transfers as :func:`~pixcore.usecases.transfers.create_transfer` does, grouping
    the concurrent ones of each sending account into one unit of work (see the module's text).

    One per process (it holds per-account queues); every method runs on one event loop.
    """

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        directory: KeyDirectory,
        clock: Clock,
        *,
        ispb: str,
        norm_delay: timedelta,
        size: int,
        window: timedelta,
    ) -> None:
        if size < 1:
            raise ValueError("a batch holds at least one transfer")
        self._uow, self._directory, self._clock = uow, directory, clock
        self._ispb, self._norm_delay = ispb, norm_delay
        self._size, self._window = size, window.total_seconds()
        self._queues: dict[int, _Queue] = {}
        self._drains: set[asyncio.Task[None]] = set()

    async def create(
        self, *, account_id: int, idempotency_key: uuid.UUID, request: TransferRequest
    ) -> CreatedTransfer:
        """The transfer this request makes (or made, on a retry): the answer of ``create_transfer``."""
        if self._size == 1:
            return await self._alone(account_id, idempotency_key, request)
        entry = await self._directory.lookup(request.pix_key)
        try:
            destination = check_destination(entry, request, account_id)
        except RuleViolation:
            return await self._alone(account_id, idempotency_key, request)
        answer: asyncio.Future[CreatedTransfer] = asyncio.get_running_loop().create_future()
        queue = self._queues.get(account_id)
        if queue is None:
            queue = self._queues[account_id] = _Queue()
            drain = asyncio.create_task(self._drain(account_id, queue))
            self._drains.add(drain)
            drain.add_done_callback(self._drains.discard)
        queue.waiting.append(
            _Waiting(idempotency_key, request_fingerprint(request), request, destination, answer)
        )
        if len(queue.waiting) >= self._size:
            queue.full.set()
        return await answer

    async def _alone(self, account_id: int, key: uuid.UUID, request: TransferRequest) -> CreatedTransfer:
        return await create_transfer(
            self._uow,
            self._directory,
            self._clock,
            account_id=account_id,
            idempotency_key=key,
            request=request,
            ispb=self._ispb,
            norm_delay=self._norm_delay,
        )

    async def _drain(self, account_id: int, queue: _Queue) -> None:
        """Apply the account's waiting requests, a batch at a time, until none waits."""
        batch: list[_Waiting] = []
        try:
            while queue.waiting:
                if len(queue.waiting) < self._size and self._window > 0:
                    queue.full.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(queue.full.wait(), self._window)
                batch = queue.waiting[: self._size]
                del queue.waiting[: self._size]
                # A request cancelled (its client went away) before its batch began is not applied.
                await self._apply(account_id, [w for w in batch if not w.answer.done()])
        finally:
            del self._queues[account_id]  # no await since the loop ended: nobody queued meanwhile
            for waiting in [*batch, *queue.waiting]:  # unanswered only if this task was cancelled
                if not waiting.answer.done():
                    waiting.answer.cancel()

    async def _apply(self, account_id: int, batch: Sequence[_Waiting]) -> None:
        if not batch:
            return
        try:
            decided = await self._commit(account_id, batch)
        except Exception:  # any failure of the batch: each request gets its own chance
            log.warning("a batch of %d transfers failed; applying them one by one", len(batch), exc_info=True)
            decided = _Decided({}, list(range(len(batch))))
        for position, outcome in decided.outcomes.items():
            _answer(batch[position].answer, outcome)
        for position in decided.alone:
            waiting = batch[position]
            if waiting.answer.done():
                continue
            try:
                created = await self._alone(account_id, waiting.key, waiting.request)
            except Exception as error:  # noqa: BLE001 - the request's own error is its answer
                if not waiting.answer.done():
                    waiting.answer.set_exception(error)
            else:
                _answer(waiting.answer, created)

    async def _commit(self, account_id: int, batch: Sequence[_Waiting]) -> _Decided:
        now = self._clock.now()
        outcomes: dict[int, _Outcome] = {}
        alone: list[int] = []
        async with self._uow() as tx:
            taken = await tx.idempotency.find_many(account_id, [w.key for w in batch])
            fresh: list[int] = []
            keys: set[uuid.UUID] = set()
            for position, waiting in enumerate(batch):
                if waiting.key in taken or waiting.key in keys:
                    alone.append(position)  # a retry: it replays (or is refused) as it would alone
                else:
                    keys.add(waiting.key)
                    fresh.append(position)
            balance = await tx.balances.lock(account_id)
            if balance is None:
                raise AccountNotFound()
            running = balance.available
            covered: list[int] = []
            for position in fresh:
                amount = batch[position].request.amount
                if amount > running:
                    outcomes[position] = InsufficientFunds()
                else:
                    running -= amount
                    covered.append(position)
            if covered:
                created = await self._reserve(tx, account_id, [batch[p] for p in covered], now)
                outcomes.update(zip(covered, created, strict=True))
            await tx.commit()
        return _Decided(outcomes, alone)

    async def _reserve(
        self, tx: UnitOfWork, account_id: int, batch: Sequence[_Waiting], now: datetime
    ) -> list[CreatedTransfer]:
        """``_reserve`` of the unbatched path for many transfers, with one statement per table."""
        made = [
            new_records(
                account_id=account_id,
                key=w.key,
                request=w.request,
                entry=w.entry,
                ispb=self._ispb,
                now=now,
                norm_delay=self._norm_delay,
            )
            for w in batch
        ]
        ids = await tx.transactions.add_many([record for record, _ in made])
        claims = [(w.key, w.fingerprint, tid) for w, tid in zip(batch, ids, strict=True)]
        if len(await tx.idempotency.claim_many(account_id, claims, now)) != len(claims):
            raise _BatchAbandoned("a key was claimed meanwhile by another unit of work")
        transfers = [make(tid) for (_, make), tid in zip(made, ids, strict=True)]
        await tx.transfers.add_many(transfers)
        await tx.ledger.post_many(
            [(tid, ledger.reserve(account_id, w.request.amount)) for w, tid in zip(batch, ids, strict=True)],
            now,
        )
        return [CreatedTransfer(stored(new), replayed=False) for new in transfers]


def _answer(answer: asyncio.Future[CreatedTransfer], outcome: _Outcome) -> None:
    if answer.done():  # the request was cancelled while its batch ran: what committed stays
        return
    if isinstance(outcome, CreatedTransfer):
        answer.set_result(outcome)
    else:
        answer.set_exception(outcome)
