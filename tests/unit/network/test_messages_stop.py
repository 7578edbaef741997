"""The network's message worker stops at once when asked, even while a long poll waits."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pixcore.clock import ManualClock
from pixcore.testing import InMemoryStore
from pixweb.network.worker import POLL_WAIT, NetworkMessages


class SilentNetwork:
    """A network whose long poll answers only after ``POLL_WAIT`` seconds."""

    def __init__(self) -> None:
        self.polls = 0
        self.polled = asyncio.Event()

    async def call(self, method: str, path: str, **_: Any) -> tuple[int, Any]:
        self.polls += 1
        self.polled.set()
        await asyncio.sleep(POLL_WAIT)
        raise AssertionError(f"{method} {path} was answered: the worker should have stopped")


async def test_a_stop_ends_a_waiting_poll_at_once() -> None:
    network = SilentNetwork()
    worker = NetworkMessages(network, InMemoryStore().unit_of_work, ManualClock(), ispb="11111111")  # type: ignore[arg-type]
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(stop))
    await asyncio.wait_for(network.polled.wait(), timeout=2)
    began = time.monotonic()
    stop.set()
    await asyncio.wait_for(running, timeout=2)
    assert time.monotonic() - began < 1  # not the poll's 10 seconds
    assert network.polls == 1
