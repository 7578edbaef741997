"""A real standby cancelling a read for a recovery conflict: the read is answered by the primary.

Two PostgreSQL servers of the test's own (:mod:`tests.faults.replication`); the standby waits for
no query before replaying (``max_standby_streaming_delay = 0``). A slow read of a table on the
standby is under way when the primary deletes the table's rows and vacuums them away: replaying
that cleanup removes rows the read may still see, so the standby cancels it ("canceling
statement due to conflict with recovery"). The router recognises the cancellation as a conflict,
not an outage, reads the primary instead and keeps the replica.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import asyncpg
import pytest

from pixinfra.postgres.pool import Database
from pixinfra.postgres.replica import ReadRouter, Route, recovery_conflict
from tests.faults.replication import ReplicatedPair, replicated_pair

pytestmark = pytest.mark.faults

SLOW_READ = "SELECT count(*) FROM conflicted, pg_sleep(3)"


@pytest.fixture
def impatient() -> Iterator[ReplicatedPair]:
    with replicated_pair(max_standby_streaming_delay="0", hot_standby_feedback="off") as servers:
        yield servers


async def cleanup_on_primary(url: str, started: asyncio.Event) -> None:
    """Once the standby's read has begun, the rows it reads deleted and vacuumed away."""
    await started.wait()
    await asyncio.sleep(0.5)
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("DELETE FROM conflicted")
        await conn.execute("VACUUM conflicted")
    finally:
        await conn.close()


async def test_a_read_cancelled_by_recovery_is_read_on_the_primary(impatient: ReplicatedPair) -> None:
    await impatient.wait_synchronous()
    setup = await asyncpg.connect(impatient.primary.url())
    try:
        await setup.execute("CREATE TABLE conflicted AS SELECT g AS n FROM generate_series(1, 1000) g")
    finally:
        await setup.close()
    primary, replica = Database(), Database()
    await primary.open(impatient.primary.url(), min_size=0, max_size=2)
    await replica.open(impatient.standby.url(), min_size=0, max_size=2)
    seen: list[Route] = []
    router = ReadRouter(primary, replica, observe=seen.append)
    started = asyncio.Event()
    cancelled: list[BaseException] = []

    async def on_replica() -> int:
        async with replica.acquire() as conn:
            started.set()
            try:
                count: int = await conn.fetchval(SLOW_READ)
            except Exception as exc:
                cancelled.append(exc)
                raise
            return count

    async def quick_on_replica() -> int:
        async with replica.acquire() as conn:
            count: int = await conn.fetchval("SELECT count(*) FROM conflicted")
            return count

    async def on_primary() -> int:
        async with primary.acquire() as conn:
            count: int = await conn.fetchval("SELECT count(*) FROM conflicted")
            return count

    try:
        read, _ = await asyncio.gather(
            router.first_on_replica(on_replica, on_primary),
            cleanup_on_primary(impatient.primary.url(), started),
        )
        again = await router.first_on_replica(quick_on_replica, on_primary)
    finally:
        await primary.close()
        await replica.close()
    assert len(cancelled) == 1, "the standby let the read finish"
    assert "conflict with recovery" in str(cancelled[0])
    assert recovery_conflict(cancelled[0]), repr(cancelled[0])
    assert read == 0  # the primary's answer: the rows are gone there
    assert again == 0
    assert seen == [Route.PRIMARY_CONFLICT, Route.REPLICA]  # the replica is not lost: the next read is its
