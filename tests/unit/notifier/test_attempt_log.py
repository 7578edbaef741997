"""Every attempt of a delivery is logged (docs/decisions/webhook-deliveries.md): what the notifier reads of
an answer (``pixnotify.sender``), what it stores for each attempt, how the log is pruned, and how the
service clock (which the sandbox moves) makes retries due. In memory: a ``pixnotify.testing.FakeReceiver``
answers, the store is ``InMemoryDeliveryStore``, the clock a ``ManualClock``.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import zlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import pixnotify.worker
from pixcore.clock import ManualClock
from pixcore.testing import InMemoryDeliveryStore
from pixcore.webhooks.delivery import MAX_RESPONSE_BODY, Attempted, Verdict
from pixcore.webhooks.rules import DeliveryAttempt, DeliveryStatus, EventType
from pixinfra.settings import NotifierSettings
from pixnotify import Notifier
from pixnotify.client import ConnectionClosed, TimedOut
from pixnotify.sender import body_text, post
from pixnotify.testing import FakeReceiver, Reply, Request

START = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
ACCOUNT = 1


# ------------------------------------------------------------------------------------ reading an answer


def test_the_body_is_cut_at_its_limit_without_a_broken_character() -> None:
    text = "ã" * MAX_RESPONSE_BODY  # two bytes each
    assert body_text(text.encode()[:2049], None) == "ã" * 1024  # the half character at the end is dropped
    assert body_text(("x" * 5000).encode(), "identity") == "x" * MAX_RESPONSE_BODY


def test_invalid_utf8_is_replaced_not_refused() -> None:
    assert body_text(b"ok \xff\xfe done", None) == "ok \ufffd\ufffd done"


def test_a_compressed_body_is_read_decompressed_and_bounded() -> None:
    assert body_text(gzip.compress(b'{"received": true}'), "gzip") == '{"received": true}'
    assert body_text(zlib.compress(b"deflated"), "deflate") == "deflated"
    bomb = gzip.compress(b"a" * 10_000_000)  # never expanded beyond what is kept
    assert body_text(bomb, "gzip") == "a" * MAX_RESPONSE_BODY
    assert body_text(b"not gzip", "gzip") == "(a gzip body that does not decompress)"
    assert body_text(b"\x00\x01", "br") == "(a body in the br encoding)"


async def test_post_keeps_the_start_of_the_answer() -> None:
    def answer(request: Request) -> Reply:
        return Reply(500, b"E" * 70_000)  # longer than what is read

    async with FakeReceiver(answer) as client:
        outcome = await post(client, "https://hooks.example/x", b"{}", [], deadline=5)
    assert (outcome.status_code, outcome.error) == (500, None)
    assert outcome.body == "E" * MAX_RESPONSE_BODY


async def test_post_without_an_answer_has_no_body_and_says_why() -> None:
    def refuse(request: Request) -> Reply:
        raise ConnectionClosed("connection reset by peer")

    async with FakeReceiver(refuse) as client:
        outcome = await post(client, "https://hooks.example/x", b"{}", [], deadline=5)
    assert outcome.status_code is None
    assert outcome.body is None
    # The words of pixnotify.failures for a connection closed before an answer, over TLS.
    assert outcome.error == (
        "connection closed by hooks.example:443 before an answer (a receiver that requires a client "
        "certificate does this: PIX_WEBHOOK_CLIENT_CERT is not set)"
    )


# ------------------------------------------------------------------------------------ the notifier's log


class Answers:
    """Answers from a plan, in order: a status code and a body, or an exception (no answer)."""

    def __init__(self, *plan: tuple[int, bytes] | Exception) -> None:
        self.plan = list(plan)
        self.seen: list[Request] = []

    async def __call__(self, request: Request) -> Reply:
        self.seen.append(request)
        step = self.plan.pop(0) if self.plan else (200, b"")
        if isinstance(step, Exception):
            raise step
        code, body = step
        return Reply(code, body)


Make = Callable[..., Notifier]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def deliveries() -> InMemoryDeliveryStore:
    store = InMemoryDeliveryStore()
    store.set_secret(ACCOUNT, SECRET)
    return store


@pytest.fixture
async def clients() -> AsyncIterator[list[FakeReceiver]]:
    made: list[FakeReceiver] = []
    yield made
    for client in made:
        await client.aclose()


@pytest.fixture
def make(deliveries: InMemoryDeliveryStore, clock: ManualClock, clients: list[FakeReceiver]) -> Make:
    def make(answers: Answers, **extra: Any) -> Notifier:
        client = FakeReceiver(answers)
        clients.append(client)
        settings = NotifierSettings(timeout=5.0, lease=30.0, poll_interval=0.01, **extra.pop("settings", {}))
        return Notifier(
            deliveries,
            settings,
            clock=clock,
            rng=random.Random(7),  # noqa: S311 - jitter
            client=client,
            **extra,
        )

    return make


def one_event(deliveries: InMemoryDeliveryStore) -> int:
    deliveries.add_webhook(ACCOUNT, "https://hooks.example/log", headers={"X-Api-Key": "k-secret-value"})
    return deliveries.emit(ACCOUNT, {"type": "TRANSFER", "data": {"id": 1}}, EventType.CASH_OUT)


async def test_each_attempt_is_logged_with_its_answer_or_its_error(
    deliveries: InMemoryDeliveryStore, clock: ManualClock, make: Make
) -> None:
    event = one_event(deliveries)
    notifier = make(Answers((500, b'{"error": "database down"}'), TimedOut("connect", "slow"), (204, b"")))
    await notifier.run_once()  # 500
    (delivery,) = deliveries.deliveries_of(event)
    for _ in range(2):  # the retries, each due once the clock reaches it
        clock.advance(3600)
        await notifier.run_once()
    (delivery,) = deliveries.deliveries_of(event)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 3)
    log = deliveries.attempt_log(delivery.id)
    assert [line.attempted_at for line in log] == [
        START,
        START + timedelta(hours=1),
        START + timedelta(hours=2),
    ]
    assert [(line.status_code, line.error, line.response_body) for line in log[::2]] == [
        (500, None, '{"error": "database down"}'),
        (204, None, None),  # an empty answer keeps no body
    ]
    timed_out = log[1]
    assert timed_out.status_code is None
    assert timed_out.response_body is None
    assert timed_out.error is not None
    assert "slow" in timed_out.error or "timed out" in timed_out.error
    assert all(line.duration_ms >= 0 for line in log)
    # Never a secret or a custom header's value.
    assert not any("k-secret-value" in repr(line) or SECRET in repr(line) for line in log)


async def test_a_slow_attempt_is_logged_with_its_duration(
    deliveries: InMemoryDeliveryStore, make: Make
) -> None:
    event = one_event(deliveries)

    class Slow(Answers):
        async def __call__(self, request: Request) -> Reply:
            await asyncio.sleep(0.05)
            return await super().__call__(request)

    await make(Slow((200, b"ok"))).run_once()
    (delivery,) = deliveries.deliveries_of(event)
    (line,) = deliveries.attempt_log(delivery.id)
    assert line.duration_ms >= 50
    assert (line.status_code, line.response_body) == (200, "ok")


# ------------------------------------------------------------------------------------ retention


async def test_the_notifier_prunes_lines_older_than_the_retention_in_batches(
    deliveries: InMemoryDeliveryStore, clock: ManualClock, make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    deliveries.add_webhook(ACCOUNT, "https://hooks.example/prune")
    for n in range(5):
        deliveries.emit(ACCOUNT, {"type": "TRANSFER", "data": {"id": n}}, EventType.CASH_OUT)
    await deliveries.dispatch(START, 10)
    claims = await deliveries.claim_due(START, 10, START + timedelta(seconds=30))
    for day, claim in enumerate(claims):  # one line a day, days 0 to 4
        at = START + timedelta(days=day)
        verdict = Verdict(DeliveryStatus.PENDING, START + timedelta(days=60), reason="HTTP 500")
        assert await deliveries.record_many([Attempted(claim, verdict, at, 500)])
    monkeypatch.setattr(pixnotify.worker, "PRUNE_BATCH", 2)
    clock.advance(
        timedelta(days=32, hours=12).total_seconds()
    )  # lines of days 0, 1 and 2 are older than 30 days

    notifier = make(Answers(), settings={"attempt_retention_days": 30})
    assert await notifier.prune() == 3  # two batches: 2, then 1
    kept = [line for c in claims for line in deliveries.attempt_log(c.id)]
    assert [line.attempted_at for line in kept] == [START + timedelta(days=3), START + timedelta(days=4)]
    assert await notifier.prune() == 0


async def test_the_loop_prunes_soon_after_it_starts_and_not_every_round(
    deliveries: InMemoryDeliveryStore, make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[datetime] = []
    prune = deliveries.prune_attempts

    async def counting(before: datetime, limit: int) -> int:
        calls.append(before)
        return await prune(before, limit)

    monkeypatch.setattr(deliveries, "prune_attempts", counting)
    monkeypatch.setattr(pixnotify.worker, "PRUNE_FIRST", 0.0)
    stop = asyncio.Event()
    notifier = make(Answers(), settings={"attempt_retention_days": 7})
    async with notifier:
        task = asyncio.create_task(notifier.run(stop))
        await asyncio.sleep(0.3)  # some 30 rounds of 0.01 s
        stop.set()
        await task
    assert calls == [START - timedelta(days=7)]


def test_the_retention_is_a_setting_of_at_least_a_day(monkeypatch: pytest.MonkeyPatch) -> None:
    from pixinfra.settings import Settings

    monkeypatch.setenv("PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS", "45")
    assert Settings.from_env().notifier.attempt_retention_days == 45
    assert NotifierSettings().attempt_retention_days == 30
    for bad in ("0", "-3", "many"):
        monkeypatch.setenv("PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS", bad)
        with pytest.raises(ValueError, match="PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS"):
            Settings.from_env()


# ------------------------------------------------------------------------------------ the service clock


async def test_a_retry_is_due_by_the_service_clock_once_it_is_refreshed(
    deliveries: InMemoryDeliveryStore, make: Make
) -> None:
    """The notifier's clock is the service's: when the sandbox moves it (``refresh_clock`` reads
    the move), a retry due by the moved clock is attempted, whatever the wall clock says."""
    service = ManualClock(START)
    moved: list[float] = []

    async def refresh() -> None:  # as ClockKeeper.refresh adopts the stored offset
        while moved:
            service.advance(moved.pop())

    event = one_event(deliveries)
    answers = Answers((503, b"busy"), (200, b"ok"))
    wall = ManualClock(START - timedelta(hours=1))
    notifier = make(answers, refresh_clock=refresh, signing_clock=wall)
    notifier.clock = service
    await notifier.run_once()
    (delivery,) = deliveries.deliveries_of(event)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.PENDING, 1)
    assert delivery.next_attempt_at is not None
    await notifier.run_once()  # not due yet: nothing attempted
    assert deliveries.deliveries_of(event)[0].attempts == 1
    moved.append((delivery.next_attempt_at - START).total_seconds())  # the operator moves the clock
    await notifier.run_once()
    (delivery,) = deliveries.deliveries_of(event)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 2)
    # Signed by the wall clock, not the moved one: receivers check webhook-timestamp against theirs.
    assert [int(r.headers["webhook-timestamp"]) for r in answers.seen] == [int(wall.now().timestamp())] * 2
    assert deliveries.attempt_log(delivery.id)[-1] == DeliveryAttempt(
        service.now(), 200, deliveries.attempt_log(delivery.id)[-1].duration_ms, None, "ok"
    )
