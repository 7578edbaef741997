"""The delivery worker: fan-out of the outbox, then signed, retried, at-least-once delivery.

:meth:`Notifier.run` loops until its stop event is set. Each round consumes a batch of outbox
rows (fan-out), then leases as many due deliveries as it has free slots (a semaphore bounds the
deliveries in flight) and sends each in a task of its own. When the stop event is set, no more
is claimed; deliveries in flight get ``grace_period`` seconds to finish, the rest are cancelled
and their leases given back, so that any notifier can claim them at once.

Each attempt is logged as one record (logger ``pixnotify.worker``) whose fields (``extra``) are
delivery, message id, registration, attempt number, status code or error, verdict, next attempt:
one JSON line with ``PIX_LOG_FORMAT=json`` (``pixinfra.logs``). Secrets, custom
header values and URLs' paths and queries are never logged. Each attempt is also counted by
result (:mod:`pixnotify.metrics`) when the notifier is given metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry

from pixcore.clock import Clock, SystemClock, format_timestamp
from pixcore.webhooks.delivery import Attempted, Claim, Verdict, encode_body, judge
from pixcore.webhooks.ports import DeliveryStore
from pixcore.webhooks.rules import DeliveryStatus
from pixinfra.persistence.deliveries import PostgresDeliveryStore, listen_for_events
from pixinfra.postgres.availability import FailureStreak, database_unavailable
from pixinfra.postgres.clock import ClockKeeper
from pixinfra.postgres.pool import Database
from pixinfra.settings import NotifierSettings, Settings
from pixnotify.failures import describe_answer
from pixnotify.metrics import DeliveryMetrics, result_of
from pixnotify.recorder import Recorder
from pixnotify.sender import Client, Outcome, build_headers, post
from pixnotify.transport import Resolver, make_webhook_client, system_resolver

__all__ = ["Notifier", "Round", "deliver_in_process"]

log = logging.getLogger("pixnotify.worker")

MAX_BACKOFF = 2.0  # seconds between rounds at most while rounds fail (the database is down)
PRUNE_FIRST = 10.0  # seconds after start before the attempt log is first pruned
PRUNE_EVERY = 600.0  # seconds between prunings of the attempt log
PRUNE_BATCH = 1000  # lines deleted per statement
PRUNE_BATCHES = 20  # statements per pruning at most: a backlog is worked off over several


@dataclass(frozen=True, slots=True)
class Round:
    """What :meth:`Notifier.run_once` did."""

    dispatched: int
    attempted: int
    verdicts: dict[int, DeliveryStatus]  # by delivery id


class Notifier:
    """Delivers webhooks from ``store`` (a
    :class:`~pixinfra.persistence.deliveries.PostgresDeliveryStore` on the process's database; in
    unit tests ``pixcore.testing.InMemoryDeliveryStore``). An async context manager (its HTTP
    client).

    ``clock`` is the service clock: retries are due by it. ``refresh_clock`` brings it up to the
    clock the sandbox moves (``pixinfra.postgres.clock.ClockKeeper.refresh``); the loop calls it
    at most once per poll interval, so a move of the clock makes due retries due within one.
    ``signing_clock`` gives the ``webhook-timestamp`` (default: ``clock``); the processes sign by the
    wall clock, which receivers check the timestamp against, whatever the sandbox's clock says."""

    def __init__(
        self,
        store: DeliveryStore,
        config: NotifierSettings | None = None,
        *,
        allow_private: bool = False,
        clock: Clock | None = None,
        resolver: Resolver = system_resolver,
        rng: random.Random | None = None,
        client: Client | None = None,
        metrics: DeliveryMetrics | None = None,
        refresh_clock: Callable[[], Awaitable[None]] | None = None,
        signing_clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.refresh_clock = refresh_clock
        self.metrics = metrics
        self.config = config or NotifierSettings()
        self.clock: Clock = clock or SystemClock()
        self.signing_clock: Clock = signing_clock or self.clock
        self.rng = rng or random.Random()  # noqa: S311 - retry jitter, not a secret
        self._own_client = client is None
        self.client: Client = client or make_webhook_client(
            self.config, allow_private=allow_private, resolver=resolver
        )
        self.recorder = Recorder(store)
        self._in_flight: dict[asyncio.Task[DeliveryStatus | None], Claim] = {}
        self._sending: set[asyncio.Task[DeliveryStatus | None]] = set()
        self._next_refresh = self._next_prune = 0.0  # moments of the event loop's clock (run)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._own_client:
            await self.client.aclose()

    # ------------------------------------------------------------------------------- steps

    async def dispatch(self) -> int:
        """One fan-out transaction; returns how many outbox rows it consumed."""
        return len(await self.store.dispatch(self.clock.now(), self.config.batch_size))

    async def prune(self) -> int:
        """Delete attempt-log lines older than the retention (``attempt_retention_days``), in
        batches of ``PRUNE_BATCH``, at most ``PRUNE_BATCHES`` of them; how many were deleted."""
        before = self.clock.now() - timedelta(days=self.config.attempt_retention_days)
        deleted = 0
        for _ in range(PRUNE_BATCHES):
            batch = await self.store.prune_attempts(before, PRUNE_BATCH)
            deleted += batch
            if batch < PRUNE_BATCH:
                break
        if deleted:
            log.info("pruned %d webhook attempt lines older than %s", deleted, format_timestamp(before))
        return deleted

    async def claim(self, limit: int) -> list[Claim]:
        """Lease up to ``limit`` deliveries due now."""
        now = self.clock.now()
        return await self.store.claim_due(now, limit, now + timedelta(seconds=self.config.lease))

    async def deliver(self, claim: Claim) -> DeliveryStatus | None:
        """Make one attempt and store its outcome; the delivery's status, None if the lease was lost."""
        started = self.clock.now()
        if claim.lease_until - started < timedelta(seconds=self.config.timeout):
            return None  # too late to finish within the lease: it comes back when the lease ends
        if not claim.active:
            kept = await self.store.finish_inactive(claim, started)
            self._count("inactive" if kept else "lease_lost")
            self._log(claim, Outcome(None, error="registration inactive"), None, kept=kept)
            return DeliveryStatus.FAILED if kept else None
        if claim.secrets:
            body = encode_body(claim.event)
            headers = build_headers(
                msg_id=claim.message_id,
                timestamp=int(self.signing_clock.now().timestamp()),
                body=body,
                secrets=claim.secrets,
                custom=claim.headers,
            )
            outcome = await post(
                self.client,
                claim.url,
                body,
                headers,
                deadline=self.config.timeout,
                client_cert=self.config.client_cert is not None,
            )
        else:  # never send unsigned
            outcome = Outcome(None, error="the account has no webhook secret")
        verdict = judge(
            attempts=claim.attempts + 1,
            status_code=outcome.status_code,
            now=self.clock.now(),
            rng=self.rng,
            retry_after=outcome.retry_after,
            error=outcome.error if outcome.status_code is None else describe_answer(outcome.status_code),
        )
        kept = await self._record(
            Attempted(
                claim,
                verdict,
                started,
                outcome.status_code,
                duration_ms=round(outcome.seconds * 1000),
                error=outcome.error,
                response_body=outcome.body,
            )
        )
        self._count(result_of(verdict, kept=kept))
        self._log(claim, outcome, verdict, kept=kept)
        return verdict.status if kept else None

    async def _record(self, outcome: Attempted) -> bool:
        """Store an attempt's outcome. While the database is unreachable, try again (0.1 s, doubling
        to 2 s) as long as the lease lasts: the request was made, and storing its outcome late beats
        sending it again once the lease has ended. Past the lease the error propagates, and the
        delivery is due again for any notifier."""
        claim = outcome.claim
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (claim.lease_until - self.clock.now()).total_seconds()
        pause = 0.1
        while True:
            try:
                return await self.recorder.record(
                    claim,
                    outcome.verdict,
                    attempted_at=outcome.attempted_at,
                    status_code=outcome.status_code,
                    duration_ms=outcome.duration_ms,
                    error=outcome.error,
                    response_body=outcome.response_body,
                )
            except Exception as exc:
                if not database_unavailable(exc) or loop.time() + pause >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(2 * pause, 2.0)

    async def run_once(self) -> Round:
        """Fan out everything undispatched, then attempt every delivery due now and wait for them
        (one attempt each: a retry is never due before the next round)."""
        if self.refresh_clock is not None:
            await self.refresh_clock()
        dispatched = 0
        while consumed := await self.dispatch():
            dispatched += consumed
        verdicts: dict[int, DeliveryStatus] = {}
        attempted: set[int] = set()
        while claims := await self.claim(self.config.concurrency):
            again = [claim for claim in claims if claim.id in attempted]
            if again:  # due again already (a real clock and a short Retry-After): next round
                await self.store.release(again, self.clock.now())
                claims = [claim for claim in claims if claim.id not in attempted]
                if not claims:
                    break
            attempted |= {claim.id for claim in claims}
            statuses = await asyncio.gather(*(self.deliver(claim) for claim in claims))
            verdicts |= {c.id: s for c, s in zip(claims, statuses, strict=True) if s is not None}
        return Round(dispatched=dispatched, attempted=len(attempted), verdicts=verdicts)

    # ------------------------------------------------------------------------------- the loop

    async def run(self, stop: asyncio.Event, wake: asyncio.Event | None = None) -> None:
        """Deliver until ``stop`` is set; then let deliveries in flight finish within the grace period.

        ``wake``, set when events are committed (:func:`pixinfra.persistence.deliveries.listen_for_events`),
        brings the next fan-out forward to now; without it, or while it is silent, the loop polls.

        Claims run ahead of sending: up to ``concurrency`` claimed deliveries wait for a sending
        slot (the semaphore), and the next claim is made once that queue has drained, so each
        claim fetches many deliveries at once. A queued delivery waits at most one attempt, so a
        lease of more than two timeouts covers it. Fan-out runs every round while it finds
        events, otherwise once per poll interval.
        """
        config = self.config
        sending = asyncio.Semaphore(config.concurrency)
        finished = asyncio.Event()
        loop = asyncio.get_running_loop()
        next_dispatch = 0.0
        self._next_refresh, self._next_prune = 0.0, loop.time() + PRUNE_FIRST
        failures = FailureStreak(log, "notifier", most=MAX_BACKOFF)  # the wait grows during an outage
        log.info(
            "notifier started: concurrency %d, batch %d, poll %.3g s, timeout %.3g s, lease %.3g s",
            config.concurrency,
            config.batch_size,
            config.poll_interval,
            config.timeout,
            config.lease,
        )
        try:
            while not stop.is_set():
                finished.clear()
                more = False
                try:
                    await self._housekeep()
                    if loop.time() >= next_dispatch:
                        if await self.dispatch():
                            more = True
                        else:
                            next_dispatch = loop.time() + config.poll_interval
                    held = len(self._in_flight)
                    if held <= config.concurrency:  # the queue ahead of the semaphore is empty
                        wanted = min(config.batch_size, 2 * config.concurrency - held)
                        claims = await self.claim(wanted)
                        for claim in claims:
                            task = asyncio.create_task(self._deliver_when_free(claim, sending))
                            self._in_flight[task] = claim
                            task.add_done_callback(functools.partial(self._finished, finished))
                        more = more or len(claims) == wanted
                except Exception as exc:  # noqa: BLE001 - logged by the streak, with its traceback if unexpected
                    failures.failed(exc)
                    more = False
                else:
                    failures.succeeded()
                if more and len(self._in_flight) <= config.concurrency:
                    continue
                if await self._pause(stop, finished, wake, failures):
                    next_dispatch = 0.0  # events were committed: fan them out now
        finally:
            await self._drain()
            log.info("notifier stopped")

    async def _pause(
        self,
        stop: asyncio.Event,
        finished: asyncio.Event,
        wake: asyncio.Event | None,
        failures: FailureStreak,
    ) -> bool:
        """Wait for the stop, a delivery to finish (when the queue is full), events committed
        (``wake``, unless an outage's back-off runs) or the poll interval; whether woken by events."""
        waits = [stop.wait()] + ([finished.wait()] if len(self._in_flight) > self.config.concurrency else [])
        if wake is not None and failures.count == 0:
            waits.append(wake.wait())
        tasks = [asyncio.ensure_future(w) for w in waits]
        await asyncio.wait(
            tasks, timeout=failures.pause(self.config.poll_interval), return_when=asyncio.FIRST_COMPLETED
        )
        for pending in tasks:
            pending.cancel()
        if wake is None or not wake.is_set():
            return False
        wake.clear()
        return True

    async def _housekeep(self) -> None:
        """Bring the clock up to the service's (once per poll interval) and prune the attempt log
        (every ``PRUNE_EVERY`` seconds, not every round)."""
        now = asyncio.get_running_loop().time()
        if self.refresh_clock is not None and now >= self._next_refresh:
            await self.refresh_clock()
            self._next_refresh = now + self.config.poll_interval
        if now >= self._next_prune:
            self._next_prune = now + PRUNE_EVERY
            await self.prune()

    def _finished(self, finished: asyncio.Event, task: asyncio.Task[DeliveryStatus | None]) -> None:
        self._in_flight.pop(task, None)
        self._sending.discard(task)
        if len(self._in_flight) <= self.config.concurrency:  # room for the next claim: wake the loop
            finished.set()

    async def _deliver_when_free(self, claim: Claim, sending: asyncio.Semaphore) -> DeliveryStatus | None:
        async with sending:
            task = asyncio.current_task()
            if task is not None:
                self._sending.add(task)
            try:
                return await self.deliver(claim)
            except asyncio.CancelledError:
                raise
            except Exception:
                self._count("error")
                log.exception("delivery %d failed unexpectedly; it is retried after its lease", claim.id)
                return None

    async def _drain(self) -> None:
        """Give back at once the claims still queued; wait up to the grace period for deliveries in
        flight; cancel the rest and give their leases back too."""
        queued = [task for task in self._in_flight if task not in self._sending]
        late: set[asyncio.Task[DeliveryStatus | None]] = set(queued)
        in_flight = [task for task in self._in_flight if task in self._sending]
        if in_flight:
            _, still = await asyncio.wait(in_flight, timeout=self.config.grace_period)
            late |= still
        if not late:
            return
        claims = [self._in_flight[task] for task in late if task in self._in_flight]
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        try:
            released = await self.store.release(claims, self.clock.now())
        except Exception:
            log.exception("could not give %d leases back; they expire by themselves", len(claims))
        else:
            cut = len(late) - len(queued)
            log.warning("stopping: %d queued and %d cut short; %d due again", len(queued), cut, released)

    # ------------------------------------------------------------------------------- logging

    def _count(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.attempted(result)

    def _log(self, claim: Claim, outcome: Outcome, verdict: Verdict | None, *, kept: bool) -> None:
        delivered = verdict is not None and verdict.status is DeliveryStatus.DELIVERED
        level = logging.INFO if delivered and kept else logging.WARNING
        if not log.isEnabledFor(level):
            return
        fields: dict[str, Any] = {
            "event": "webhook.attempt",
            "delivery": claim.id,
            "messageId": claim.message_id,
            "webhook": claim.webhook_id,
            "account": claim.account_id,
            "host": urlsplit(claim.url).hostname,
            "attempt": claim.attempts + (0 if verdict is None else 1),
            "statusCode": outcome.status_code,
            "error": outcome.error,
            "ms": round(outcome.seconds * 1000, 1),
            "result": verdict.status.value if verdict else DeliveryStatus.FAILED.value,
            "nextAttemptAt": format_timestamp(verdict.next_attempt_at)
            if verdict and verdict.next_attempt_at
            else None,
            "deactivated": bool(verdict and verdict.deactivate),
            "leaseLost": not kept,
        }
        log.log(level, "webhook attempt: %s", fields["result"], extra=fields)  # fields: one JSON line


async def run_listening(notifier: Notifier, database: Database, stop: asyncio.Event) -> None:
    """``notifier.run(stop)``, woken as soon as events are committed (``LISTEN pix_outbox`` on a
    connection of ``database``), not only once per poll interval."""
    wake = asyncio.Event()
    listener = asyncio.create_task(listen_for_events(database, wake, stop))
    try:
        await notifier.run(stop, wake)
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener


async def deliver_in_process(
    settings: Settings,
    database: Database,
    stop: asyncio.Event,
    registry: CollectorRegistry,
    keeper: ClockKeeper,
) -> None:
    """The loop as ``pixweb serve`` runs it next to settlement (a :data:`pixinfra.runtime.DeliveryLoop`):
    the same settings as ``pixnotify run``, the app's database, attempts counted in the app's
    metrics ``registry``, retries due by the app's service clock (``keeper``), signed by the wall
    clock."""
    async with Notifier(
        PostgresDeliveryStore(database),
        settings.notifier,
        allow_private=settings.webhook_allow_private,
        clock=keeper.clock,
        refresh_clock=keeper.refresh,
        signing_clock=SystemClock(),
        metrics=DeliveryMetrics.of(registry),
    ) as notifier:
        await run_listening(notifier, database, stop)
