"""The notifier's loop on the in-memory ``DeliveryStore``: no database, no sockets.

The receiving side is a ``pixnotify.testing.FakeReceiver`` that answers as each test plans and
records what it was sent; the clock is a ``ManualClock`` (a retry is due when a test moves it). What the fake
does, PostgreSQL does too: ``tests/contract/test_delivery_store.py`` runs both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from prometheus_client import CollectorRegistry

from pixcore.clock import ManualClock
from pixcore.testing import InMemoryDeliveryStore
from pixcore.webhooks.delivery import GONE_REASON, INACTIVE_REASON, Attempted, message_id, sign
from pixcore.webhooks.rules import DeliveryStatus, EventType
from pixinfra.settings import NotifierSettings
from pixnotify import DeliveryMetrics, Notifier
from pixnotify.testing import FakeReceiver, Reply, Request

START = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
ACCOUNT = 1


def transfer(n: int) -> dict[str, Any]:
    return {"type": "TRANSFER", "data": {"id": n, "status": "LIQUIDATED"}}


@dataclass
class Receiver:
    """The receiving side: answers each path from its plan (200 once the plan is spent)."""

    plan: dict[str, list[int]] = field(default_factory=dict)
    hold: asyncio.Event | None = None  # when set, every answer waits for it
    received: list[Request] = field(default_factory=list)

    async def __call__(self, request: Request) -> Reply:
        self.received.append(request)
        if self.hold is not None:
            await self.hold.wait()
        answers = self.plan.get(request.path, [])
        return Reply(answers.pop(0) if answers else 200, b"ok")

    def at(self, path: str) -> list[Request]:
        return [r for r in self.received if r.path == path]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def deliveries() -> InMemoryDeliveryStore:
    store = InMemoryDeliveryStore()
    store.set_secret(ACCOUNT, SECRET)
    return store


@pytest.fixture
def receiver() -> Receiver:
    return Receiver()


@pytest.fixture
def registry() -> CollectorRegistry:
    return CollectorRegistry()


Make = Callable[..., Notifier]


@pytest.fixture
async def make(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, clock: ManualClock, registry: CollectorRegistry
) -> AsyncIterator[Make]:
    """Notifiers on the fake store and the mock receiver (``clock=`` for one of its own)."""
    client = FakeReceiver(receiver)
    metrics = DeliveryMetrics.of(registry)

    def make(*, clock_: ManualClock | None = None, **config: Any) -> Notifier:
        settings = NotifierSettings(**{"timeout": 5.0, "lease": 30.0, "poll_interval": 0.01} | config)
        return Notifier(
            deliveries,
            settings,
            clock=clock_ or clock,
            rng=random.Random(7),  # noqa: S311 - jitter
            client=client,
            metrics=metrics,
        )

    try:
        yield make
    finally:
        await client.aclose()


def counted(registry: CollectorRegistry, result: str) -> float | None:
    return registry.get_sample_value("pix_webhook_delivery_attempts_total", {"result": result})


# ------------------------------------------------------------------------------------ fan-out


async def test_an_event_goes_signed_to_each_active_url_of_its_type(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, make: Make
) -> None:
    hooks = [
        deliveries.add_webhook(ACCOUNT, f"https://hooks.example/fan/{n}", headers={"X-Tenant": f"t{n}"})
        for n in range(3)
    ]
    deliveries.add_webhook(ACCOUNT, "https://hooks.example/cash-in", EventType.CASH_IN)
    deliveries.add_webhook(ACCOUNT, "https://hooks.example/inactive", active=False)
    deliveries.add_webhook(ACCOUNT + 1, "https://hooks.example/other-account")
    event = deliveries.emit(ACCOUNT, transfer(1), EventType.CASH_OUT)

    done = await make().run_once()

    assert (done.dispatched, done.attempted) == (1, 3)
    by_webhook = {d.webhook_id: d for d in deliveries.deliveries_of(event)}
    assert set(by_webhook) == set(hooks)
    assert done.verdicts == {d.id: DeliveryStatus.DELIVERED for d in by_webhook.values()}
    assert sorted(r.path for r in receiver.received) == [f"/fan/{n}" for n in range(3)]
    for n, hook in enumerate(hooks):
        (got,) = receiver.at(f"/fan/{n}")
        msg_id = message_id(event, hook)
        assert got.headers["webhook-id"] == msg_id
        assert got.headers["x-tenant"] == f"t{n}"
        timestamp = int(got.headers["webhook-timestamp"])
        assert timestamp == int(START.timestamp())
        assert got.headers["webhook-signature"] == sign(SECRET, msg_id, timestamp, got.content)
        assert json.loads(got.content) == transfer(1)
        row = by_webhook[hook]
        assert (row.status, row.attempts, row.last_status_code) == (DeliveryStatus.DELIVERED, 1, 200)


async def test_nothing_unsigned_is_sent(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, make: Make
) -> None:
    deliveries.add_webhook(ACCOUNT + 1, "https://hooks.example/unsigned")  # that account has no secret
    event = deliveries.emit(ACCOUNT + 1, transfer(2), EventType.CASH_OUT)
    await make().run_once()
    (row,) = deliveries.deliveries_of(event)
    assert (row.status, row.attempts, row.last_error) == (
        DeliveryStatus.PENDING,
        1,
        "the account has no webhook secret",
    )
    assert receiver.received == []


# ------------------------------------------------------------------------------------ retries


async def test_a_5xx_is_retried_on_its_schedule_with_the_same_id_and_body(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, clock: ManualClock, make: Make
) -> None:
    hook = deliveries.add_webhook(ACCOUNT, "https://hooks.example/flaky")
    receiver.plan["/flaky"] = [500, 503, 200]
    event = deliveries.emit(ACCOUNT, transfer(3), EventType.CASH_OUT)
    notifier = make()

    await notifier.run_once()
    row = deliveries.delivery_to(event, hook)
    assert (row.status, row.attempts, row.last_status_code, row.last_error) == (
        DeliveryStatus.PENDING,
        1,
        500,
        "answered 500",
    )
    assert row.next_attempt_at is not None
    assert START + timedelta(seconds=4.5) <= row.next_attempt_at <= START + timedelta(seconds=5.5)

    clock.advance((row.next_attempt_at - START).total_seconds() - 0.001)
    assert (await notifier.run_once()).attempted == 0  # not due yet
    clock.advance(0.001)
    await notifier.run_once()
    row = deliveries.delivery_to(event, hook)
    assert (row.attempts, row.last_status_code) == (2, 503)
    assert row.next_attempt_at is not None
    second_step = row.next_attempt_at - clock.now()  # the schedule's third step: 5 min, jittered
    assert timedelta(minutes=4.5) <= second_step <= timedelta(minutes=5.5)

    clock.advance(second_step.total_seconds())
    done = await notifier.run_once()
    row = deliveries.delivery_to(event, hook)
    assert (row.status, row.attempts, row.finished_at) == (DeliveryStatus.DELIVERED, 3, clock.now())
    assert done.verdicts == {row.id: DeliveryStatus.DELIVERED}
    sent = receiver.at("/flaky")
    assert len(sent) == 3
    assert {r.headers["webhook-id"] for r in sent} == {message_id(event, hook)}
    assert len({r.content for r in sent}) == 1


async def test_the_last_failure_is_final(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, clock: ManualClock, make: Make
) -> None:
    hook = deliveries.add_webhook(ACCOUNT, "https://hooks.example/down")
    receiver.plan["/down"] = [500] * 20
    event = deliveries.emit(ACCOUNT, transfer(4), EventType.CASH_OUT)
    notifier = make()
    for _ in range(20):
        await notifier.run_once()
        row = deliveries.delivery_to(event, hook)
        if row.next_attempt_at is None:
            break
        clock.advance((row.next_attempt_at - clock.now()).total_seconds())
    row = deliveries.delivery_to(event, hook)
    assert (row.status, row.attempts, row.next_attempt_at) == (DeliveryStatus.FAILED, 8, None)
    assert len(receiver.at("/down")) == 8


# ------------------------------------------------------------------------------------ 410


async def test_410_fails_the_delivery_deactivates_the_url_and_fails_its_pending_ones_unsent(
    deliveries: InMemoryDeliveryStore,
    receiver: Receiver,
    clock: ManualClock,
    make: Make,
    registry: CollectorRegistry,
) -> None:
    gone = deliveries.add_webhook(ACCOUNT, "https://hooks.example/gone")
    kept = deliveries.add_webhook(ACCOUNT, "https://hooks.example/kept")
    receiver.plan["/gone"] = [500, 410]
    notifier = make()
    retrying = deliveries.emit(ACCOUNT, transfer(5), EventType.CASH_OUT)
    await notifier.run_once()  # /gone: 500, a retry is scheduled
    answered_410 = deliveries.emit(ACCOUNT, transfer(6), EventType.CASH_OUT)
    await notifier.run_once()  # /gone: 410

    row = deliveries.delivery_to(answered_410, gone)
    assert (row.status, row.attempts, row.last_status_code, row.next_attempt_at) == (
        DeliveryStatus.FAILED,
        1,
        410,
        None,
    )
    hook = deliveries.webhook(gone)
    assert (hook.is_active, hook.deactivation_reason, hook.deactivated_at) == (False, GONE_REASON, START)
    assert deliveries.webhook(kept).is_active

    # The delivery that was waiting for its retry fails, unsent, when it comes due.
    clock.advance(6)
    await notifier.run_once()
    row = deliveries.delivery_to(retrying, gone)
    assert (row.status, row.attempts, row.last_error) == (DeliveryStatus.FAILED, 1, INACTIVE_REASON)
    assert len(receiver.at("/gone")) == 2

    # New events no longer go to it.
    later = deliveries.emit(ACCOUNT, transfer(7), EventType.CASH_OUT)
    await notifier.run_once()
    assert [d.webhook_id for d in deliveries.deliveries_of(later)] == [kept]
    assert len(receiver.at("/gone")) == 2
    assert len(receiver.at("/kept")) == 3
    assert (counted(registry, "retry"), counted(registry, "gone"), counted(registry, "inactive")) == (1, 1, 1)
    assert counted(registry, "delivered") == 3


# ------------------------------------------------------------------------------------ leases


async def test_a_lease_that_ends_makes_the_delivery_claimable_again_and_the_loser_writes_nothing(
    deliveries: InMemoryDeliveryStore,
    receiver: Receiver,
    clock: ManualClock,
    make: Make,
    registry: CollectorRegistry,
) -> None:
    hook = deliveries.add_webhook(ACCOUNT, "https://hooks.example/lease")
    event = deliveries.emit(ACCOUNT, transfer(8), EventType.CASH_OUT)
    stalled = make()  # claims, then stalls (as a process paused or cut off would)
    await stalled.dispatch()
    (claim,) = await stalled.claim(10)
    assert claim.lease_until == START + timedelta(seconds=30)

    other = make(clock_=ManualClock(START + timedelta(seconds=29)))
    assert (await other.run_once()).attempted == 0  # leased: not claimable
    later = ManualClock(START + timedelta(seconds=30))
    done = await make(clock_=later).run_once()  # the lease has ended
    assert done.attempted == 1
    row = deliveries.delivery_to(event, hook)
    assert (row.status, row.attempts) == (DeliveryStatus.DELIVERED, 1)

    # The stalled notifier wakes up with its lease lost: it may send again (at least once), but
    # stores nothing, and the delivery stays as the winner left it.
    assert await stalled.deliver(claim) is None
    assert deliveries.delivery_to(event, hook) == row
    assert len(receiver.at("/lease")) == 2
    assert counted(registry, "lease_lost") == 1
    assert counted(registry, "delivered") == 1


async def test_a_claim_too_close_to_its_lease_end_is_not_sent(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, clock: ManualClock, make: Make
) -> None:
    hook = deliveries.add_webhook(ACCOUNT, "https://hooks.example/late")
    event = deliveries.emit(ACCOUNT, transfer(9), EventType.CASH_OUT)
    notifier = make()
    await notifier.dispatch()
    (claim,) = await notifier.claim(10)
    clock.advance(25.001)  # less than the 5 s timeout left
    assert await notifier.deliver(claim) is None
    assert receiver.received == []
    assert deliveries.delivery_to(event, hook).next_attempt_at == claim.lease_until  # back when it ends


# ------------------------------------------------------------------------------------ stopping


async def test_stopping_lets_deliveries_in_flight_finish_within_the_grace_period(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, make: Make
) -> None:
    hook = deliveries.add_webhook(ACCOUNT, "https://hooks.example/grace")
    event = deliveries.emit(ACCOUNT, transfer(10), EventType.CASH_OUT)
    receiver.hold = asyncio.Event()
    stop = asyncio.Event()
    loop = asyncio.create_task(make(grace_period=30.0).run(stop))
    while not receiver.received:  # noqa: ASYNC110 - the mock receiver has no event to wait on
        await asyncio.sleep(0.001)
    stop.set()
    await asyncio.sleep(0.05)
    assert not loop.done()  # waiting for the delivery in flight
    receiver.hold.set()
    await asyncio.wait_for(loop, 5)
    row = deliveries.delivery_to(event, hook)
    assert (row.status, row.attempts) == (DeliveryStatus.DELIVERED, 1)


async def test_on_stop_deliveries_past_the_grace_period_and_queued_ones_are_given_back_at_once(
    deliveries: InMemoryDeliveryStore, receiver: Receiver, clock: ManualClock, make: Make
) -> None:
    deliveries.add_webhook(ACCOUNT, "https://hooks.example/past-grace")
    events = [deliveries.emit(ACCOUNT, transfer(n), EventType.CASH_OUT) for n in range(2)]
    receiver.hold = asyncio.Event()  # never set: no answer comes
    stop = asyncio.Event()
    loop = asyncio.create_task(make(grace_period=0.05, concurrency=1, batch_size=10).run(stop))
    while not receiver.received:  # noqa: ASYNC110 - the mock receiver has no event to wait on
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    rows = [row for event in events for row in deliveries.deliveries_of(event)]
    leased = START + timedelta(seconds=30)
    assert [row.next_attempt_at for row in rows] == [leased, leased]  # one in flight, one queued
    assert len(receiver.received) == 1
    stop.set()
    await asyncio.wait_for(loop, 5)

    rows = [row for event in events for row in deliveries.deliveries_of(event)]
    assert [(row.status, row.attempts, row.next_attempt_at) for row in rows] == [
        (DeliveryStatus.PENDING, 0, clock.now())
    ] * 2
    assert len(await deliveries.claim_due(clock.now(), 10, clock.now() + timedelta(seconds=30))) == 2


# ------------------------------------------------------------------------------------ outages


class Flaky(InMemoryDeliveryStore):
    """A store whose next ``fail`` calls of ``method`` find the database down."""

    def __init__(self, method: str, fail: int) -> None:
        super().__init__()
        self.method, self.fail = method, fail

    def _down(self, method: str) -> None:
        if method == self.method and self.fail > 0:
            self.fail -= 1
            raise asyncpg.exceptions.CannotConnectNowError("the database system is starting up")

    async def dispatch(self, now: datetime, limit: int) -> list[int]:
        self._down("dispatch")
        return await super().dispatch(now, limit)

    async def record_many(self, outcomes: Sequence[Attempted]) -> set[int]:
        self._down("record_many")
        return await super().record_many(outcomes)


@contextlib.asynccontextmanager
async def flaky_notifier(store: Flaky, receiver: Receiver, clock: ManualClock) -> AsyncIterator[Notifier]:
    settings = NotifierSettings(timeout=5.0, lease=30.0, poll_interval=0.01)
    async with (
        FakeReceiver(receiver) as client,
        Notifier(store, settings, clock=clock, client=client) as notifier,
    ):
        yield notifier


async def test_an_outcome_is_stored_late_rather_than_sent_again_while_the_database_is_down(
    receiver: Receiver, clock: ManualClock
) -> None:
    store = Flaky("record_many", fail=2)
    store.set_secret(ACCOUNT, SECRET)
    hook = store.add_webhook(ACCOUNT, "https://hooks.example/outage")
    event = store.emit(ACCOUNT, transfer(11), EventType.CASH_OUT)
    async with flaky_notifier(store, receiver, clock) as notifier:
        done = await notifier.run_once()
    row = store.delivery_to(event, hook)
    assert (row.status, row.attempts) == (DeliveryStatus.DELIVERED, 1)
    assert done.verdicts == {row.id: DeliveryStatus.DELIVERED}
    assert store.fail == 0
    assert len(receiver.received) == 1


async def test_the_loop_outlives_a_failed_round(receiver: Receiver, clock: ManualClock) -> None:
    store = Flaky("dispatch", fail=1)
    store.set_secret(ACCOUNT, SECRET)
    hook = store.add_webhook(ACCOUNT, "https://hooks.example/after-outage")
    event = store.emit(ACCOUNT, transfer(12), EventType.CASH_OUT)
    stop = asyncio.Event()
    async with flaky_notifier(store, receiver, clock) as notifier:
        loop = asyncio.create_task(notifier.run(stop))
        async with asyncio.timeout(5):
            while not any(d.status is DeliveryStatus.DELIVERED for d in store.deliveries_of(event)):  # noqa: ASYNC110 - polls the fake
                await asyncio.sleep(0.005)
        stop.set()
        await asyncio.wait_for(loop, 5)
    assert store.fail == 0
    assert store.delivery_to(event, hook).status is DeliveryStatus.DELIVERED
