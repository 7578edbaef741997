"""Outcomes that finish together are stored together, and every waiter hears how it went."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from pixcore.testing import InMemoryDeliveryStore
from pixcore.webhooks.delivery import Attempted, Claim, Verdict
from pixcore.webhooks.rules import DeliveryStatus
from pixnotify.recorder import Recorder

NOW = datetime(2026, 11, 22, tzinfo=UTC)
DELIVERED = Verdict(DeliveryStatus.DELIVERED, None)


def claim(n: int) -> Claim:
    return Claim(
        id=n,
        message_id=f"msg_{n}_1",
        webhook_id=1,
        account_id=1,
        attempts=0,
        lease_until=NOW,
        event={"type": "TRANSFER", "data": {}},
        url="https://hooks.example/",
        headers={},
        active=True,
        secrets=("whsec_a2V5",),
    )


class FakeWrites(InMemoryDeliveryStore):
    """A store whose ``record_many`` the test holds: the first write waits for ``release``;
    ``lost`` ids lost their lease."""

    def __init__(self, lost: frozenset[int] = frozenset(), error: Exception | None = None) -> None:
        super().__init__()
        self.groups: list[list[int]] = []
        self.release = asyncio.Event()
        self.lost = lost
        self.error = error

    async def record_many(self, outcomes: Sequence[Attempted]) -> set[int]:
        self.groups.append([o.claim.id for o in outcomes])
        if len(self.groups) == 1:
            await self.release.wait()
        if self.error is not None:
            raise self.error
        return {o.claim.id for o in outcomes} - self.lost


async def test_outcomes_arriving_during_a_write_go_together_in_the_next() -> None:
    writes = FakeWrites(lost=frozenset({4}))
    recorder = Recorder(writes)
    calls = [
        asyncio.create_task(recorder.record(claim(n), DELIVERED, attempted_at=NOW, status_code=200))
        for n in range(1, 6)
    ]
    await asyncio.sleep(0)  # all five have handed their outcome in
    writes.release.set()
    kept = await asyncio.gather(*calls)
    assert writes.groups == [[1], [2, 3, 4, 5]]
    assert kept == [True, True, True, False, True]


async def test_a_failed_write_reaches_every_waiter_of_its_group() -> None:
    writes = FakeWrites(error=ConnectionError("database gone"))
    recorder = Recorder(writes)
    calls = [
        asyncio.create_task(recorder.record(claim(n), DELIVERED, attempted_at=NOW, status_code=200))
        for n in range(1, 4)
    ]
    await asyncio.sleep(0)
    writes.release.set()
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert all(isinstance(result, ConnectionError) for result in results)
    assert writes.groups == [[1], [2, 3]]


async def test_a_cancelled_writer_leaves_no_waiter_hanging() -> None:
    writes = FakeWrites()
    recorder = Recorder(writes)
    writer = asyncio.create_task(recorder.record(claim(1), DELIVERED, attempted_at=NOW, status_code=200))
    await asyncio.sleep(0)
    follower = asyncio.create_task(recorder.record(claim(2), DELIVERED, attempted_at=NOW, status_code=200))
    await asyncio.sleep(0)
    writer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await writer
    with pytest.raises(RuntimeError, match="interrupted"):
        await follower
    # The next outcome is written again: the recorder is not stuck "writing".
    writes.release.set()
    assert await recorder.record(claim(3), DELIVERED, attempted_at=NOW, status_code=200) is True
