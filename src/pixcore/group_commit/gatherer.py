"""Group commit: gather the concurrent requests that touch one hot row, and apply them together.

A :class:`Gatherer` keeps one queue per hot row (an account's balance, say) in this process. The
first request of an idle queue starts a drain task; the drain waits at most ``window`` seconds
for the queue to hold ``size`` requests, takes up to ``size`` of them, hands them to ``apply``
(which answers each request's future, typically after one COMMIT), and goes on while requests
wait. Requests that arrive while a group commits form the next one.

:class:`GroupCommit` is the base of the use cases built on it (``TransferGroupCommit``,
``ReceiptGroupCommit``, ``ChargePaymentGroupCommit``): the gatherer, the ungrouped path when a group holds one
request, and the way back when a group cannot be applied as one: its requests applied one by one
on the ungrouped path, each answered its own outcome. A subclass says what one request alone does
(``_alone``) and what one group does (``_apply``).
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Generic, TypeVar

__all__ = ["Gatherer", "GroupCommit", "Waiting", "settle"]

K = TypeVar("K", bound=Hashable)
I = TypeVar("I")  # noqa: E741 - the item a request brings
R = TypeVar("R")


def settle(settled: asyncio.Future[None] | None) -> None:
    """Say that a request's outcome is final (once; None: nobody asked to know)."""
    if settled is not None and not settled.done():
        settled.set_result(None)


@dataclass(slots=True)
class Waiting(Generic[I, R]):
    """A request in a queue: what it asks, and the future its caller awaits."""

    item: I
    answer: asyncio.Future[R]
    settled: asyncio.Future[None] | None = None
    """Done once the request's outcome is final (answered, or dropped before its group began),
    whether or not its caller still waits for the answer."""

    def give(self, outcome: R | Exception) -> None:
        """Answer the request, unless it is answered or cancelled already (its client went away:
        what committed for it stays, and a retry with its idempotency key finds it)."""
        self.settle()
        if self.answer.done():
            return
        if isinstance(outcome, Exception):
            self.answer.set_exception(outcome)
        else:
            self.answer.set_result(outcome)

    def settle(self) -> None:
        settle(self.settled)


@dataclass(slots=True)
class _Queue(Generic[I, R]):
    waiting: list[Waiting[I, R]] = field(default_factory=list)
    full: asyncio.Event = field(default_factory=asyncio.Event)


class Gatherer(Generic[K, I, R]):
    """Per-key queues of requests, drained a group at a time through ``apply``.

    ``apply(key, group)`` must answer every request of the group (``Waiting.give``), when it returns
    or later (a task it started); one it leaves unanswered when it raises is given that error.
    One per process; one event loop.
    """

    def __init__(
        self,
        apply: Callable[[K, list[Waiting[I, R]]], Awaitable[None]],
        *,
        size: int,
        window: timedelta,
    ) -> None:
        if size < 1:
            raise ValueError("a group holds at least one request")
        self._apply, self.size, self._window = apply, size, window.total_seconds()
        self._queues: dict[K, _Queue[I, R]] = {}
        self._drains: set[asyncio.Task[None]] = set()

    async def submit(self, key: K, item: I, settled: asyncio.Future[None] | None = None) -> R:
        """Queue ``item`` under ``key``; its answer, once its group is applied. ``settled``: done
        once the outcome is final, even after the caller stopped waiting (see ``Waiting``)."""
        answer: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = _Queue()
            drain = asyncio.create_task(self._drain(key, queue))
            self._drains.add(drain)
            drain.add_done_callback(self._drains.discard)
        queue.waiting.append(Waiting(item, answer, settled))
        if len(queue.waiting) >= self.size:
            queue.full.set()
        return await answer

    async def _drain(self, key: K, queue: _Queue[I, R]) -> None:
        """Apply the key's waiting requests, a group at a time, until none waits."""
        group: list[Waiting[I, R]] = []
        cancelled = False
        try:
            while queue.waiting:
                if len(queue.waiting) < self.size and self._window > 0:
                    queue.full.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(queue.full.wait(), self._window)
                group = queue.waiting[: self.size]
                del queue.waiting[: self.size]
                # A request cancelled (its client went away) before its group began is not applied.
                for waiting in group:
                    if waiting.answer.done():
                        waiting.settle()
                group = [waiting for waiting in group if not waiting.answer.done()]
                if not group:
                    continue
                try:
                    await self._apply(key, group)
                except Exception as error:  # noqa: BLE001 - handed to the requests it left unanswered
                    for waiting in group:
                        waiting.give(error)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            del self._queues[key]  # no await since the loop ended: nobody queued meanwhile
            # A group may be answered after ``apply`` returned (by a write it left on its way, as
            # ``TransferGroupCommit`` does): only this task's cancellation leaves its requests unanswered.
            for waiting in [*group, *queue.waiting] if cancelled else []:
                waiting.settle()
                if not waiting.answer.done():
                    waiting.answer.cancel()


class GroupCommit(ABC, Generic[K, I, R]):
    """A use case whose concurrent requests under one key are applied a group at a time.

    One per process (it holds per-key queues); every method runs on one event loop."""

    def __init__(self, *, size: int, window: timedelta) -> None:
        self._gatherer: Gatherer[K, I, R] = Gatherer(self._apply, size=size, window=window)

    @property
    def groups(self) -> bool:
        """True when a group may hold more than one request."""
        return self._gatherer.size > 1

    async def _submit(self, key: K, item: I, settled: asyncio.Future[None] | None = None) -> R:
        """The request's answer: alone when groups hold one request, else from its group.
        ``settled``: done once its outcome is final (see ``Waiting``)."""
        if not self.groups:
            try:
                return await self._alone(key, item)
            finally:
                settle(settled)
        return await self._gatherer.submit(key, item, settled)

    @abstractmethod
    async def _alone(self, key: K, item: I) -> R:
        """The ungrouped path: one request in its own unit of work."""

    @abstractmethod
    async def _apply(self, key: K, group: list[Waiting[I, R]]) -> None:
        """Apply a group, answering each of its requests (``Waiting.give``)."""

    async def _one_by_one(self, key: K, group: list[Waiting[I, R]]) -> None:
        """Each request not yet answered on the ungrouped path, answered its own outcome."""
        for waiting in group:
            if waiting.answer.done():
                continue
            try:
                outcome = await self._alone(key, waiting.item)
            except Exception as error:  # noqa: BLE001 - the request's own error is its answer
                waiting.give(error)
            else:
                waiting.give(outcome)
