"""Faults injected into group commit: a waiter is always answered, and a group behind a write that
did not land (or never began) is decided again on the balance as committed.

Each wait is bounded (``asyncio.wait_for``, generous for a loaded machine): a request left
hanging fails its test instead of hanging the suite."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from pixcore.accounts.rules import Balance
from pixcore.clock import ManualClock
from pixcore.errors import PixError
from pixcore.group_commit.gatherer import Gatherer, GroupCommit, Waiting
from pixcore.group_commit.ports import TransferReservation
from pixcore.group_commit.transfers import TransferGroupCommit
from pixcore.testing import InMemoryStore, InMemoryTransferGroupStore, PlainHasher
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.transfers.transfer_service import CreatedTransfer
from tests.unit.transfer_world import NORM_DELAY, World, assert_books_balance, make_world, transfer_request
from tests.unit.usecase_helpers import ISPB

BOUND = 30.0
"""Seconds a waiter may take to be answered: far above any group's window, so only a waiter
nobody will ever answer reaches it."""


async def _within_bound(*tasks: asyncio.Future[Any]) -> list[object]:
    """The tasks' results (or errors, or ``CancelledError``), all of them done within ``BOUND``."""
    return list(await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), BOUND))


# The Gatherer: a drain cancelled while it applies a group.


async def test_a_drain_cancelled_mid_apply_cancels_every_waiter_and_the_key_starts_afresh() -> None:
    """The drain is cancelled while ``apply`` blocks (on an event never set): the requests of the
    group being applied and those queued behind it are all cancelled, none left waiting; the key's
    next request starts a new drain and is answered."""
    entered = asyncio.Event()
    never = asyncio.Event()
    drains: list[asyncio.Task[Any]] = []
    applied: list[list[int]] = []

    async def apply(key: str, group: list[Waiting[int, int]]) -> None:
        applied.append([waiting.item for waiting in group])
        if len(applied) == 1:
            drain = asyncio.current_task()
            assert drain is not None
            drains.append(drain)
            entered.set()
            await never.wait()
        for waiting in group:
            waiting.give(waiting.item * 10)

    gatherer: Gatherer[str, int, int] = Gatherer(apply, size=2, window=timedelta(milliseconds=10))
    applying = [asyncio.create_task(gatherer.submit("hot", item)) for item in (1, 2)]
    await asyncio.wait_for(entered.wait(), BOUND)
    queued = [asyncio.create_task(gatherer.submit("hot", item)) for item in (3, 4)]
    await asyncio.sleep(0)  # queued behind the group being applied

    drains[0].cancel()
    outcomes = await _within_bound(*applying, *queued)

    assert all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes), outcomes
    assert all(task.cancelled() for task in [*applying, *queued])
    assert applied == [[1, 2]]  # the queued ones were never applied
    assert await asyncio.wait_for(gatherer.submit("hot", 5), BOUND) == 50


def _drain_tasks() -> set[asyncio.Task[Any]]:
    """The drain tasks of every gatherer on the loop (a test takes those it started: the difference)."""
    return {t for t in asyncio.all_tasks() if getattr(t.get_coro(), "__qualname__", "") == "Gatherer._drain"}


async def _turns(count: int = 5) -> None:
    """Let the other tasks run ``count`` turns of the loop (no time passes)."""
    for _ in range(count):
        await asyncio.sleep(0)


def _recording(applied: list[list[int]]) -> Any:
    async def apply(key: str, group: list[Waiting[int, int]]) -> None:
        applied.append([waiting.item for waiting in group])
        for waiting in group:
            waiting.give(waiting.item * 10)

    return apply


@pytest.mark.parametrize("drain_waits_first", [False, True], ids=["full-at-once", "filled-while-waiting"])
async def test_a_full_group_is_applied_without_waiting_for_its_window(drain_waits_first: bool) -> None:
    """With a window of an hour, a group that holds ``size`` requests is applied at once: whether
    they all came before its drain began, or the last one filled it while the drain waited."""
    applied: list[list[int]] = []
    gatherer: Gatherer[str, int, int] = Gatherer(_recording(applied), size=2, window=timedelta(hours=1))
    first = asyncio.create_task(gatherer.submit("hot", 1))
    if drain_waits_first:
        await _turns()
        assert applied == []  # the drain waits for its window, or for a full group
    second = asyncio.create_task(gatherer.submit("hot", 2))

    assert await _within_bound(first, second) == [10, 20]
    assert applied == [[1, 2]]


async def test_a_drain_cancelled_in_its_window_cancels_its_waiters() -> None:
    """Cancelled while it waits for its group to fill (no group taken yet), the drain cancels the
    requests queued, and the key's next request is answered by a new drain."""
    applied: list[list[int]] = []
    gatherer: Gatherer[str, int, int] = Gatherer(_recording(applied), size=10, window=timedelta(hours=1))
    before = _drain_tasks()
    queued = [asyncio.create_task(gatherer.submit("hot", item)) for item in (1, 2)]
    await _turns()
    (drain,) = _drain_tasks() - before

    drain.cancel()
    outcomes = await _within_bound(*queued)

    assert all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes), outcomes
    assert applied == []
    later = asyncio.create_task(gatherer.submit("hot", 3))
    await _turns()
    for other in _drain_tasks() - before:
        other.cancel()  # its window is an hour: what matters is that a new drain took the request
    assert [type(outcome) for outcome in await _within_bound(later)] == [asyncio.CancelledError]


async def test_a_group_whose_requests_all_went_away_is_skipped_and_the_next_applied() -> None:
    """Both requests of the first group are cancelled (their clients went away) before it begins:
    it is not applied, and the request queued behind it is, by the same drain."""
    applied: list[list[int]] = []
    gatherer: Gatherer[str, int, int] = Gatherer(_recording(applied), size=2, window=timedelta(0))
    tasks = [asyncio.create_task(gatherer.submit("hot", item)) for item in (1, 2, 3)]
    await asyncio.sleep(0)  # all three queued; their drain has not begun
    tasks[0].cancel()
    tasks[1].cancel()

    outcomes = await _within_bound(*tasks)

    assert [type(outcome) for outcome in outcomes[:2]] == [asyncio.CancelledError] * 2
    assert outcomes[2] == 30
    assert applied == [[3]]


@pytest.mark.parametrize("size", [0, -1])
def test_a_group_of_fewer_than_one_request_is_refused(size: int) -> None:
    with pytest.raises(ValueError, match="at least one") as refused:
        Gatherer(_recording([]), size=size, window=timedelta(0))
    assert str(refused.value) == "a group holds at least one request"


class _AloneAfterAGoneClient(GroupCommit[str, int, int]):
    """A use case whose group cannot be applied as one: its first request's client goes away
    (answer cancelled) meanwhile, and the group goes one by one."""

    def __init__(self) -> None:
        super().__init__(size=3, window=timedelta(hours=1))
        self.alone: list[int] = []

    async def _alone(self, _: str, item: int) -> int:
        self.alone.append(item)
        return item * 10

    async def _apply(self, key: str, group: list[Waiting[int, int]]) -> None:
        group[0].answer.cancel()
        await self._one_by_one(key, group)

    async def submit(self, item: int) -> int:
        return await self._submit("hot", item)


async def test_one_by_one_skips_a_request_already_answered_and_applies_the_rest() -> None:
    use_case = _AloneAfterAGoneClient()
    tasks = [asyncio.create_task(use_case.submit(item)) for item in (1, 2, 3)]

    outcomes = await _within_bound(*tasks)

    assert isinstance(outcomes[0], asyncio.CancelledError)
    assert outcomes[1:] == [20, 30]
    assert use_case.alone == [2, 3]


# The transfer group: a write that did not land, or never began, with a group behind it.


async def _fresh_world() -> World:
    clock = ManualClock()
    return await make_world(InMemoryStore(clock=clock), clock, PlainHasher())


def _group_commit(world: World, store: InMemoryTransferGroupStore | None = None) -> TransferGroupCommit:
    return TransferGroupCommit(
        world.store.unit_of_work,
        world.directory,
        world.clock,
        ispb=ISPB,
        norm_delay=NORM_DELAY,
        size=16,
        window=timedelta(milliseconds=20),
        store=store or InMemoryTransferGroupStore(world.store.unit_of_work),
    )


def _send(world: World, group_commit: TransferGroupCommit, amount: str) -> asyncio.Task[CreatedTransfer]:
    request = transfer_request(amount=Decimal(amount))
    return asyncio.create_task(
        group_commit.create(account_id=world.sender.id, idempotency_key=uuid.uuid4(), request=request)
    )


def _outcome(result: object) -> tuple[str, int | None]:
    if isinstance(result, CreatedTransfer):
        return ("created", result.transfer.amount)
    assert isinstance(result, PixError), result
    return (type(result).__name__, None)


class _FirstWriteLost(InMemoryTransferGroupStore):
    """A store whose first write waits for ``gate``, then (``meanwhile`` having left the account by
    another way) answers None: it did not land. Every call takes a turn of the event loop, as a
    round trip to the database does, so that the groups' tasks interleave as they would."""

    def __init__(self, world: World, meanwhile: Decimal) -> None:
        super().__init__(world.store.unit_of_work)
        self.world, self.meanwhile = world, meanwhile
        self.gate = asyncio.Event()
        self.reads = self.writes = 0

    async def seen(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        self.reads += 1
        await asyncio.sleep(0)
        return await super().seen(account_id, keys)

    async def reserve(
        self, account_id: int, exactly: int | None, reservations: Sequence[TransferReservation], at: datetime
    ) -> list[int] | None:
        self.writes += 1
        await asyncio.sleep(0)
        if self.writes == 1:
            await self.gate.wait()
            await self.world.send(amount=self.meanwhile)
            return None
        return await super().reserve(account_id, exactly, reservations, at)


async def _until(condition: Callable[[], bool]) -> None:
    """Poll (at most ``BOUND`` seconds) until ``condition()`` holds."""
    for _ in range(int(BOUND / 0.005)):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the group_commit never got there")


async def test_the_group_behind_a_write_that_did_not_land_reads_again() -> None:
    """Maria holds 100.00. The first group (60) is decided on 100; the second (40), pipelined
    behind it, on the 40 the first would leave. The first's write does not land, and 30.00 has
    left meanwhile: both groups must read again, in their order, as if sent one by one
    (30, then 60 on 70, then 40 on 10: refused). Had the second taken the lost write for landed,
    its 40 would be written first (70 covers it) and the first group refused."""
    expected_world = await _fresh_world()
    expected: list[tuple[str, int | None]] = []
    await expected_world.send(amount=Decimal("30.00"))
    for amount in ("60.00", "40.00"):
        try:
            expected.append(_outcome(await expected_world.send(amount=Decimal(amount))))
        except PixError as error:
            expected.append(_outcome(error))
    assert expected == [("created", 6000), ("InsufficientFunds", None)]

    world = await _fresh_world()
    store = _FirstWriteLost(world, meanwhile=Decimal("30.00"))
    group_commit = _group_commit(world, store)
    first = _send(world, group_commit, "60.00")
    await _until(lambda: store.writes == 1)
    second = _send(world, group_commit, "40.00")
    await _until(lambda: store.reads == 2)  # the second group decided, its write behind the first's
    store.gate.set()

    assert [_outcome(r) for r in await _within_bound(first, second)] == expected
    assert world.balance(world.sender) == expected_world.balance(expected_world.sender) == Balance(1000, 9000)
    assert_books_balance(world.store)


@pytest.fixture
async def cancel_first_write() -> AsyncIterator[list[asyncio.Task[Any]]]:
    """A task factory that cancels the first transfer group's write task as it is created, before
    it begins (as a loop shutting down, or a cancelled scope, would): its coroutine never runs.
    Returns the cancelled tasks."""
    loop = asyncio.get_running_loop()
    cancelled: list[asyncio.Task[Any]] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any) -> Any:
        task = asyncio.Task(coro, loop=loop, **kwargs)
        if not cancelled and coro.__qualname__ == "TransferGroupCommit._write":
            task.cancel()
            cancelled.append(task)
        return task

    loop.set_task_factory(factory)
    yield cancelled
    loop.set_task_factory(None)


async def test_the_next_group_of_an_account_whose_write_was_cancelled_before_it_began_is_answered(
    cancel_first_write: list[asyncio.Task[Any]],
) -> None:
    """The first group's write is cancelled before it begins: it never wrote, and must still say
    it did not land, or the account's next group (decided behind it) waits for it forever; and its
    own request is answered (cancelled), never left waiting."""
    world = await _fresh_world()
    group_commit = _group_commit(world)
    first = _send(world, group_commit, "60.00")
    await _until(lambda: bool(cancel_first_write))
    second = _send(world, group_commit, "30.00")

    created = await asyncio.wait_for(second, BOUND)

    assert created.transfer.amount == 3000
    assert world.balance(world.sender) == Balance(7000, 3000)  # the first never wrote
    assert cancel_first_write[0].cancelled()
    await asyncio.wait_for(asyncio.gather(first, return_exceptions=True), BOUND)
    assert first.cancelled()
    assert_books_balance(world.store)
