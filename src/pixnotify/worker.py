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
import functools
import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import httpx
from prometheus_client import CollectorRegistry

from pixcore.clock import Clock, SystemClock, format_timestamp
from pixcore.ports import DeliveryStore
from pixcore.webhook_delivery import Claim, Verdict, encode_body, judge
from pixcore.webhooks import DeliveryStatus
from pixinfra.postgres.availability import FailureStreak, database_unavailable
from pixinfra.postgres.pool import Database
from pixinfra.settings import NotifierSettings, Settings
from pixnotify.metrics import DeliveryMetrics, result_of
from pixnotify.recorder import Recorder
from pixnotify.sender import Outcome, build_headers, post
from pixnotify.store import PostgresDeliveryStore
from pixnotify.transport import Resolver, make_client, system_resolver

__all__ = ["Notifier", "Round", "deliver_in_process"]

log = logging.getLogger("pixnotify.worker")

MAX_BACKOFF = 2.0  # seconds between rounds at most while rounds fail (the database is down)


@dataclass(frozen=True, slots=True)
class Round:
    """What :meth:`Notifier.run_once` did."""

    dispatched: int
    attempted: int
    verdicts: dict[int, DeliveryStatus]  # by delivery id


class Notifier:
    """Delivers webhooks from ``store`` (a :class:`~pixnotify.store.PostgresDeliveryStore` on the
    process's database; in unit tests ``pixcore.testing.InMemoryDeliveryStore``). An async context
    manager (its HTTP client)."""

    def __init__(
        self,
        store: DeliveryStore,
        config: NotifierSettings | None = None,
        *,
        allow_private: bool = False,
        clock: Clock | None = None,
        resolver: Resolver = system_resolver,
        rng: random.Random | None = None,
        client: httpx.AsyncClient | None = None,
        metrics: DeliveryMetrics | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.config = config or NotifierSettings()
        self.clock: Clock = clock or SystemClock()
        self.rng = rng or random.Random()  # noqa: S311 - retry jitter, not a secret
        self._own_client = client is None
        self.client = client or make_client(
            resolver=resolver,
            allow_private=allow_private,
            timeout=self.config.timeout,
            max_connections=self.config.concurrency,
        )
        self.recorder = Recorder(store)
        self._in_flight: dict[asyncio.Task[DeliveryStatus | None], Claim] = {}
        self._sending: set[asyncio.Task[DeliveryStatus | None]] = set()

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
                timestamp=int(started.timestamp()),
                body=body,
                secrets=claim.secrets,
                custom=claim.headers,
            )
            outcome = await post(self.client, claim.url, body, headers, deadline=self.config.timeout)
        else:  # never send unsigned
            outcome = Outcome(None, error="the account has no webhook secret")
        verdict = judge(
            attempts=claim.attempts + 1,
            status_code=outcome.status_code,
            now=self.clock.now(),
            rng=self.rng,
            retry_after=outcome.retry_after,
            error=outcome.error,
        )
        kept = await self._record(claim, verdict, attempted_at=started, status_code=outcome.status_code)
        self._count(result_of(verdict, kept=kept))
        self._log(claim, outcome, verdict, kept=kept)
        return verdict.status if kept else None

    async def _record(
        self, claim: Claim, verdict: Verdict, *, attempted_at: datetime, status_code: int | None
    ) -> bool:
        """Store an attempt's outcome. While the database is unreachable, try again (0.1 s, doubling
        to 2 s) as long as the lease lasts: the request was made, and storing its outcome late beats
        sending it again once the lease has ended. Past the lease the error propagates, and the
        delivery is due again for any notifier."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (claim.lease_until - self.clock.now()).total_seconds()
        pause = 0.1
        while True:
            try:
                return await self.recorder.record(
                    claim, verdict, attempted_at=attempted_at, status_code=status_code
                )
            except Exception as exc:
                if not database_unavailable(exc) or loop.time() + pause >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(2 * pause, 2.0)

    async def run_once(self) -> Round:
        """Fan out everything undispatched, then attempt every delivery due now and wait for them
        (one attempt each: a retry is never due before the next round)."""
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

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until ``stop`` is set; then let deliveries in flight finish within the grace period.

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
                # Wait for the stop, a delivery to finish (when the queue is full), or the poll interval.
                waits = [stop.wait()] + (
                    [finished.wait()] if len(self._in_flight) > config.concurrency else []
                )
                tasks = [asyncio.ensure_future(w) for w in waits]
                pause = failures.pause(config.poll_interval)
                await asyncio.wait(tasks, timeout=pause, return_when=asyncio.FIRST_COMPLETED)
                for pending in tasks:
                    pending.cancel()
        finally:
            await self._drain()
            log.info("notifier stopped")

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


async def deliver_in_process(
    settings: Settings, database: Database, stop: asyncio.Event, registry: CollectorRegistry
) -> None:
    """The loop as ``pixweb serve`` runs it next to settlement (a :data:`pixinfra.runtime.DeliveryLoop`):
    the same settings as ``pixnotify run``, the app's database, attempts counted in the app's
    metrics ``registry``."""
    async with Notifier(
        PostgresDeliveryStore(database.pool),
        settings.notifier,
        allow_private=settings.webhook_allow_private,
        metrics=DeliveryMetrics.of(registry),
    ) as notifier:
        await notifier.run(stop)
