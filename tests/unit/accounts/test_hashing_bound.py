"""The bounded verifier: slow hashing on threads of its own, never more than its slots at once,
a short queue and then 503 at once, and decoys for unknown client ids that cost time, not CPU."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable

import pytest

from pixcore.errors import ServiceBusy
from pixweb.security.hashing import HASH_NICENESS, MOST_NICE, BoundedVerifier


class GatedHasher:
    """A ``SecretHasher`` whose every call blocks until ``release`` is set; it records how many ran
    at once, on which threads and at which nice value."""

    def __init__(self, *, released: bool = False) -> None:
        self.release = threading.Event()
        if released:
            self.release.set()
        self._lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.calls = 0
        self.threads: set[str] = set()
        self.nice: set[int] = set()

    def _work(self) -> None:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.most = max(self.most, self.running)
            self.threads.add(threading.current_thread().name)
            self.nice.add(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        try:
            if not self.release.wait(10):
                raise TimeoutError("the test never released the hasher")
        finally:
            with self._lock:
                self.running -= 1

    def hash(self, secret: str) -> str:
        self._work()
        return "h:" + secret

    def verify(self, secret_hash: str, secret: str) -> bool:
        self._work()
        return secret_hash == "h:" + secret


async def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.005)


async def test_at_most_slots_hashes_run_and_a_full_queue_is_refused_at_once() -> None:
    hasher = GatedHasher()
    verifier = BoundedVerifier(hasher, slots=2, queue=3)
    try:
        checks = [asyncio.create_task(verifier.verify("h:s", "s")) for _ in range(5)]
        await until(lambda: hasher.running == 2)
        await asyncio.sleep(0.05)  # the three others wait for a slot
        assert (hasher.running, verifier.admitted) == (2, 5)

        with pytest.raises(ServiceBusy):
            verifier.check_room()  # what the token endpoints ask before any database work
        started = time.monotonic()
        with pytest.raises(ServiceBusy) as caught:
            await verifier.verify("h:s", "s")
        assert time.monotonic() - started < 1  # refused at once, not queued
        assert caught.value.retry_after >= 1

        hasher.release.set()
        assert await asyncio.gather(*checks) == [True] * 5
        assert hasher.most == 2
        assert verifier.admitted == 0
        verifier.check_room()  # room again
        assert await verifier.verify("h:s", "wrong") is False
    finally:
        verifier.close()


async def test_hashes_run_on_the_verifiers_own_threads() -> None:
    hasher = GatedHasher(released=True)
    verifier = BoundedVerifier(hasher, slots=1, queue=0)
    try:
        await verifier.verify("h:s", "s")
        await verifier.verify("h:s", "s")
    finally:
        verifier.close()
    [name] = hasher.threads
    assert name.startswith("pix-hash")  # not the default executor that the rest of the process shares


async def test_hashing_threads_yield_the_cpu_to_the_event_loop() -> None:
    hasher = GatedHasher(released=True)
    verifier = BoundedVerifier(hasher, slots=1, queue=0)
    try:
        await verifier.verify("h:s", "s")
    finally:
        verifier.close()
    loop_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    expected = min(MOST_NICE, loop_nice + HASH_NICENESS) if sys.platform == "linux" else loop_nice
    assert hasher.nice == {expected}


async def test_a_request_that_goes_away_keeps_its_slot_until_its_hash_is_done() -> None:
    hasher = GatedHasher()
    verifier = BoundedVerifier(hasher, slots=1, queue=1)
    try:
        first = asyncio.create_task(verifier.verify("h:s", "s"))
        await until(lambda: hasher.running == 1)
        first.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await first

        second = asyncio.create_task(verifier.verify("h:s", "s"))
        await asyncio.sleep(0.05)
        assert hasher.calls == 1  # the second waits: the first hash still runs
        hasher.release.set()
        assert await second is True
        assert hasher.most == 1
        assert verifier.admitted == 0
    finally:
        verifier.close()


async def test_the_first_decoy_spends_a_real_hash_and_learns_its_time() -> None:
    hasher = GatedHasher(released=True)
    verifier = BoundedVerifier(hasher, slots=1, queue=0)
    try:
        assert verifier.typical is None
        await verifier.decoy("secret")
        assert hasher.calls == 1
        assert verifier.typical is not None
    finally:
        verifier.close()


async def test_a_decoy_sleeps_as_long_as_a_check_takes_without_hashing() -> None:
    hasher = GatedHasher(released=True)
    verifier = BoundedVerifier(hasher, slots=1, queue=0)
    try:
        await verifier.verify("h:s", "s")
        verifier.typical = 0.2  # as if checks took 200 ms
        calls = hasher.calls

        started = time.monotonic()
        await verifier.decoy("secret")

        assert time.monotonic() - started >= 0.15
        assert hasher.calls == calls  # no hash, no thread
    finally:
        verifier.close()


async def test_a_decoy_waits_its_turn_and_is_refused_as_a_check_would_be() -> None:
    hasher = GatedHasher()
    verifier = BoundedVerifier(hasher, slots=1, queue=1)
    verifier.typical = 0.01
    try:
        check = asyncio.create_task(verifier.verify("h:s", "s"))
        await until(lambda: hasher.running == 1)
        decoy = asyncio.create_task(verifier.decoy("unknown"))
        await asyncio.sleep(0.05)
        assert not decoy.done()  # in line behind the running check, as a check would be

        with pytest.raises(ServiceBusy):
            await verifier.decoy("another unknown")  # the queue is full: the same 503 as a check
        with pytest.raises(ServiceBusy):
            await verifier.verify("h:s", "s")

        hasher.release.set()
        assert await check is True
        await decoy
        assert hasher.calls == 1  # the decoy never hashed
    finally:
        verifier.close()


async def test_decoys_do_not_hold_the_slots_that_checks_need() -> None:
    hasher = GatedHasher(released=True)
    verifier = BoundedVerifier(hasher, slots=1, queue=0)
    verifier.typical = 5.0
    try:
        decoys = [asyncio.create_task(verifier.decoy(f"unknown {i}")) for i in range(20)]
        await asyncio.sleep(0.05)  # every decoy had its turn and now sleeps

        assert await verifier.verify("h:s", "s") is True  # not refused: the slot is free
        assert not any(decoy.done() for decoy in decoys)
        for decoy in decoys:
            decoy.cancel()
        await asyncio.gather(*decoys, return_exceptions=True)
    finally:
        verifier.close()


def test_bounds_are_checked() -> None:
    hasher = GatedHasher(released=True)
    with pytest.raises(ValueError, match="slot"):
        BoundedVerifier(hasher, slots=0, queue=1)
    with pytest.raises(ValueError, match="queue"):
        BoundedVerifier(hasher, slots=1, queue=-1)
