"""Argon2 within bounds: a flood of token requests cannot starve the rest of the API.

:class:`BoundedVerifier` is the ``SecretVerifier`` of ``pixweb serve``:

* Checks run on a pool of their own, ``slots`` threads (``PIX_HASH_SLOTS``), never
  on the default executor that other work of the process shares. A check waits
  its turn for a slot; at most ``queue`` (``PIX_HASH_QUEUE``) wait, and the next
  one is refused at once with ``ServiceBusy`` (503 with ``Retry-After``) instead of
  queueing without bound.
* On Linux the pool's threads run at a lower CPU priority (``nice`` +10; the lanes
  libargon2 starts inherit it), so that the event loop gets the CPU first when both
  want it: hashing takes the time the API leaves over.
* A slot is held until its thread has finished, even if the request that asked is
  gone: no more than ``slots`` hashes ever run at once.
* An unknown client id (:meth:`decoy`) waits its turn exactly as a check does (and
  is refused the same way when the queue is full), gives the slot back at once,
  then sleeps as long as recent checks took. It costs its caller the time of a
  check, without spending a thread or the CPU: a flood of made-up client ids does
  not hold the slots that real clients need. The first decoy, before any check
  was timed, spends a real hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from pixcore.accounts.ports import SecretHasher
from pixcore.errors import ServiceBusy

__all__ = ["HASH_NICENESS", "BoundedVerifier"]

HASH_NICENESS = 10  # added to the process's nice value, up to MOST_NICE
MOST_NICE = 19
RETRY_AFTER_SECONDS = 1
_T = TypeVar("_T")


def _lower_priority() -> None:
    """Runs in each hashing thread as it starts: on Linux a nice value is per thread."""
    if sys.platform == "linux":
        thread = threading.get_native_id()
        with contextlib.suppress(OSError):
            nice = os.getpriority(os.PRIO_PROCESS, thread)
            os.setpriority(os.PRIO_PROCESS, thread, min(MOST_NICE, nice + HASH_NICENESS))


def _timed(work: Callable[[], _T]) -> tuple[_T, float]:
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


class BoundedVerifier:
    """Checks secrets with ``hasher`` on ``slots`` threads; at most ``queue`` checks wait."""

    def __init__(self, hasher: SecretHasher, *, slots: int, queue: int) -> None:
        if slots < 1 or queue < 0:
            raise ValueError("hashing needs at least 1 slot and a queue of at least 0")
        self.slots, self.queue = slots, queue
        self._hasher = hasher
        self._pool = ThreadPoolExecutor(slots, thread_name_prefix="pix-hash", initializer=_lower_priority)
        self._turns = asyncio.Semaphore(slots)
        self._admitted = 0  # running or waiting for a slot
        self.running = 0  # hashes running on the pool now
        self.typical: float | None = None  # seconds a check takes, smoothed

    @property
    def admitted(self) -> int:
        return self._admitted

    async def verify(self, secret_hash: str, secret: str) -> bool:
        return await self._run(lambda: self._hasher.verify(secret_hash, secret))

    async def decoy(self, secret: str) -> None:
        if self.typical is None:
            await self._run(lambda: self._hasher.hash(secret))
            return
        self._admit()
        try:
            async with self._turns:
                pass  # its turn, as a check would wait for it; the slot goes back at once
        finally:
            self._admitted -= 1
        await asyncio.sleep(self.typical)

    def check_room(self) -> None:
        """Refuse at once (``ServiceBusy``) if a check asked now would be: callers ask before they
        spend anything else on a request that could not be checked anyway."""
        if self._admitted >= self.slots + self.queue:
            raise self._busy()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _admit(self) -> None:
        self.check_room()
        self._admitted += 1

    @staticmethod
    def _busy() -> ServiceBusy:
        return ServiceBusy(
            "Too many credential checks are waiting: retry shortly.", retry_after=RETRY_AFTER_SECONDS
        )

    async def _run(self, work: Callable[[], _T]) -> _T:
        self._admit()
        try:
            await self._turns.acquire()
        except BaseException:
            self._admitted -= 1
            raise
        loop = asyncio.get_running_loop()
        try:
            job = self._pool.submit(_timed, work)
        except BaseException:
            self._release()
            raise
        self.running += 1
        # Released when the thread is done, not when the request is: a request that goes away
        # (a client that hangs up) does not free a slot while its hash still runs.
        job.add_done_callback(lambda done: self._finished_in(loop, done))
        result, _ = await asyncio.wrap_future(job)
        return result

    def _finished_in(self, loop: asyncio.AbstractEventLoop, job: Future[tuple[_T, float]]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing waits any more
            loop.call_soon_threadsafe(self._finished, job)

    def _finished(self, job: Future[tuple[_T, float]]) -> None:
        self.running -= 1
        if not job.cancelled() and job.exception() is None:
            seconds = job.result()[1]
            self.typical = seconds if self.typical is None else 0.8 * self.typical + 0.2 * seconds
        self._release()

    def _release(self) -> None:
        self._admitted -= 1
        self._turns.release()
