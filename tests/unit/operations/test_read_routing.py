"""Where a read goes (``pixinfra.postgres.replica.ReadRouter``): the rules, on fake servers.

The primary keeps the accounts' marks and a WAL position; the replica reports what it has
replayed, or fails as a lost server does (refused, cut, silent).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, cast

import asyncpg
import pytest

from pixinfra.postgres import replica as routing
from pixinfra.postgres.pool import Database
from pixinfra.postgres.replica import MARK, MARK_OF, REPLAYED, RETRY_AFTER, UNMARKED_FOR, ReadRouter, Route


class FakePrimary:
    def __init__(self) -> None:
        self.position = 1000
        self.marks: dict[int, int] = {}
        self.broken = False
        self.calls = 0

    async def fetchval(self, sql: str, *args: Any) -> Any:
        self.calls += 1
        if self.broken:
            raise asyncpg.exceptions.ConnectionDoesNotExistError("the primary is gone")
        if sql == MARK:
            (account,) = args
            self.marks[account] = max(self.marks.get(account, 0), self.position)
            return self.marks[account]
        if sql == MARK_OF:
            return self.marks.get(args[0])
        raise AssertionError(f"unexpected statement on the primary: {sql}")


class FakeReplica:
    def __init__(self) -> None:
        self.replayed = 0
        self.catching_up: int | None = None  # replayed advances by this much at each look
        self.failure: BaseException | None = None
        self.silent = False
        self.calls = 0

    async def fetchval(self, sql: str) -> Any:
        assert sql == REPLAYED
        self.calls += 1
        if self.silent:
            await asyncio.sleep(3600)
        if self.failure is not None:
            raise self.failure
        if self.catching_up:
            self.replayed += self.catching_up
        return self.replayed


class FakeDatabase:
    def __init__(self, pool: object) -> None:
        self.pool = pool


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now + time.monotonic()  # real time passes (the waits sleep), tests move on


@pytest.fixture
def primary() -> FakePrimary:
    return FakePrimary()


@pytest.fixture
def replica() -> FakeReplica:
    return FakeReplica()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def seen() -> list[Route]:
    return []


@pytest.fixture
def router(primary: FakePrimary, replica: FakeReplica, clock: Clock, seen: list[Route]) -> ReadRouter:
    return ReadRouter(
        cast(Database, FakeDatabase(primary)),
        cast(Database, FakeDatabase(replica)),
        wait=0.05,
        observe=seen.append,
        clock=clock,
    )


def where(router: ReadRouter, chosen: Database) -> str:
    return "replica" if chosen is router.replica else "primary"


async def test_without_a_replica_every_read_is_the_primary_and_nothing_is_marked(
    primary: FakePrimary,
) -> None:
    seen: list[Route] = []
    alone = ReadRouter(cast(Database, FakeDatabase(primary)), observe=seen.append)
    await alone.mark(7)
    chosen, route = await alone.database_for(7)
    assert chosen is alone.primary
    assert route is None
    assert primary.calls == 0  # no mark written, none looked up
    assert seen == []


async def test_an_account_with_no_write_reads_the_replica_without_waiting(
    router: ReadRouter, replica: FakeReplica, seen: list[Route]
) -> None:
    chosen, route = await router.database_for(7)
    assert (where(router, chosen), route) == ("replica", Route.REPLICA)
    assert replica.calls == 0  # nothing to wait for: position 0 is replayed by any replica
    assert seen == []  # counted once the read has started there
    router.served()
    assert seen == [Route.REPLICA]


async def test_a_read_after_a_write_waits_until_the_replica_has_replayed_it(
    router: ReadRouter, primary: FakePrimary, replica: FakeReplica
) -> None:
    replica.replayed = 900
    await router.mark(7)
    assert primary.marks == {7: 1000}
    replica.catching_up = 30  # 930, 960, 990, 1020: the fourth look sees the write
    chosen, route = await router.database_for(7)
    assert (where(router, chosen), route) == ("replica", Route.REPLICA)
    assert replica.replayed == 1020
    assert replica.calls == 4


async def test_a_replica_behind_the_bound_sends_the_read_to_the_primary(
    router: ReadRouter, primary: FakePrimary, replica: FakeReplica, seen: list[Route]
) -> None:
    replica.replayed = 999
    await router.mark(7)
    started = time.monotonic()
    chosen, route = await router.database_for(7)
    waited = time.monotonic() - started
    assert (where(router, chosen), route) == ("primary", Route.PRIMARY_LAG)
    assert seen == [Route.PRIMARY_LAG]
    assert 0.05 <= waited < 0.5
    assert replica.calls > 1  # looked again while the bound lasted
    # Another account, never written, still reads the replica.
    chosen, _ = await router.database_for(8)
    assert where(router, chosen) == "replica"


async def test_a_write_by_another_process_is_seen_through_the_primary(
    router: ReadRouter, primary: FakePrimary, replica: FakeReplica
) -> None:
    primary.marks[7] = 5000  # stored by another API process; this one has no mark in memory
    replica.replayed = 4000
    _, route = await router.database_for(7)
    assert route is Route.PRIMARY_LAG
    replica.replayed = 5000
    _, route = await router.database_for(7)
    assert route is Route.REPLICA


async def test_a_position_once_replayed_needs_no_look_at_the_replica(
    router: ReadRouter, replica: FakeReplica
) -> None:
    await router.mark(7)
    replica.replayed = 1000
    await router.database_for(7)
    looks = replica.calls
    _, route = await router.database_for(7)
    assert route is Route.REPLICA
    assert replica.calls == looks  # the replica's position only grows


@pytest.mark.parametrize(
    "failure",
    [
        asyncpg.exceptions.ConnectionDoesNotExistError("the replica is gone"),
        asyncpg.exceptions.CannotConnectNowError("the database system is shutting down"),
        TimeoutError(),
    ],
)
async def test_a_lost_replica_sends_reads_to_the_primary_with_one_log_line(  # noqa: PLR0917 - fixtures
    router: ReadRouter,
    replica: FakeReplica,
    clock: Clock,
    seen: list[Route],
    failure: BaseException,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await router.mark(7)
    replica.failure = failure
    with caplog.at_level(logging.WARNING, logger=routing.__name__):
        for _ in range(3):
            chosen, route = await router.database_for(7)
            assert (where(router, chosen), route) == ("primary", Route.PRIMARY_UNAVAILABLE)
    assert seen == [Route.PRIMARY_UNAVAILABLE] * 3
    assert replica.calls == 1  # left alone for a while after the failure
    assert len([r for r in caplog.records if "out of reach" in r.getMessage()]) == 1
    # After RETRY_AFTER seconds it is tried again, and used once it answers.
    replica.failure = None
    replica.replayed = 1000
    clock.now += RETRY_AFTER
    chosen, route = await router.database_for(7)
    assert (where(router, chosen), route) == ("replica", Route.REPLICA)


async def test_a_silent_replica_costs_a_read_one_check_timeout(
    router: ReadRouter, replica: FakeReplica, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(routing, "CHECK_TIMEOUT", 0.05)
    await router.mark(7)
    replica.silent = True
    started = time.monotonic()
    _, route = await router.database_for(7)
    assert route is Route.PRIMARY_UNAVAILABLE
    assert time.monotonic() - started < 1


async def test_a_replica_failing_as_the_read_starts_counts_for_the_primary(
    router: ReadRouter, seen: list[Route], clock: Clock
) -> None:
    chosen, _ = await router.database_for(7)
    assert where(router, chosen) == "replica"
    router.failed(asyncpg.exceptions.ConnectionDoesNotExistError("cut"))
    assert seen == [Route.PRIMARY_UNAVAILABLE]
    chosen, route = await router.database_for(7)
    assert (where(router, chosen), route) == ("primary", Route.PRIMARY_UNAVAILABLE)
    clock.now += RETRY_AFTER
    chosen, _ = await router.database_for(7)
    assert where(router, chosen) == "replica"


async def test_an_unknown_mark_reads_the_primary(
    router: ReadRouter, primary: FakePrimary, replica: FakeReplica, clock: Clock, seen: list[Route]
) -> None:
    replica.replayed = 10**9
    primary.broken = True
    await router.mark(7)  # the write is done: no error for the client
    primary.broken = False
    _, route = await router.database_for(7)
    assert route is Route.PRIMARY_NO_MARK  # this process knows it wrote and not where
    _, route = await router.database_for(8)
    assert route is Route.REPLICA
    clock.now += UNMARKED_FOR
    _, route = await router.database_for(7)
    assert route is Route.REPLICA
    primary.broken = True  # the mark cannot be looked up: the primary answers (or fails) itself
    _, route = await router.database_for(8)
    assert route is Route.PRIMARY_NO_MARK
    assert seen == [Route.PRIMARY_NO_MARK, Route.PRIMARY_NO_MARK]


@pytest.mark.parametrize(
    "conflict",
    [
        asyncpg.exceptions.SerializationError("canceling statement due to conflict with recovery"),
        asyncpg.exceptions.DeadlockDetectedError("canceling statement due to conflict with recovery"),
    ],
)
async def test_a_read_the_replica_cancels_for_recovery_is_read_on_the_primary(
    router: ReadRouter, seen: list[Route], conflict: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    async def on_replica() -> str:
        raise conflict

    async def on_primary() -> str:
        return "from the primary"

    with caplog.at_level(logging.INFO, logger=routing.__name__):
        assert await router.first_on_replica(on_replica, on_primary) == "from the primary"
    assert seen == [Route.PRIMARY_CONFLICT]
    assert "cancelled by recovery" in caplog.text
    chosen, route = await router.database_for(7)  # the replica is well: the next read is its
    assert (where(router, chosen), route) == ("replica", Route.REPLICA)


async def test_any_other_error_of_a_replica_read_is_the_reads_own(
    router: ReadRouter, seen: list[Route]
) -> None:
    async def on_replica() -> str:
        raise asyncpg.exceptions.UndefinedColumnError("a mistake in the query")

    async def on_primary() -> str:
        raise AssertionError("not retried")

    with pytest.raises(asyncpg.exceptions.UndefinedColumnError):
        await router.first_on_replica(on_replica, on_primary)
    assert seen == []
