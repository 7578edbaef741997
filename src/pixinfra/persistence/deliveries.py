"""The notifier's SQL: :class:`PostgresDeliveryStore`, the ``DeliveryStore`` port on PostgreSQL
(fan-out of the outbox, claims of due deliveries, outcomes), :func:`queue_status` and
:func:`listen_for_events`.

The store works on the process's :class:`~pixinfra.postgres.pool.Database`, like every adapter of
this package; every method takes the moment to use, so that one clock rules the schedule.

Fan-out routes each outbox row by its ``webhook_type`` column, the registration type the event's
writer stored with it; the payload is only ever read to be sent.

Fan-out and claims take rows ``FOR UPDATE SKIP LOCKED``: any number of notifiers may run at once,
each outbox row is consumed by exactly one of them (in the transaction that creates its
deliveries), and each due delivery is claimed by one. A claim is a lease: it pushes
``next_attempt_at`` forward past the longest an attempt can take, so a notifier that dies holding
claims only delays them. The outcome of an attempt is written only while its lease is still the
delivery's ``next_attempt_at``: a notifier that lost its lease writes nothing.

``pixcore.testing.InMemoryDeliveryStore`` is the same contract in memory; both run the suite in
``tests/contract/test_delivery_store.py``. :func:`queue_status` (``pixnotify status``) is not the
loop's, so not the port's: it stays a query of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from pixcore.clock import format_timestamp
from pixcore.webhooks.delivery import (
    GONE_REASON,
    INACTIVE_REASON,
    MAX_REASON,
    Attempted,
    Claim,
    Verdict,
    message_id,
)
from pixcore.webhooks.ports import DeliveryStore
from pixcore.webhooks.rules import DeliveryStatus
from pixinfra.persistence.webhooks import DEACTIVATE_WEBHOOK
from pixinfra.postgres.pool import Database

__all__ = [
    "OUTBOX_CHANNEL",
    "Attempted",
    "Claim",
    "FailingUrl",
    "PostgresDeliveryStore",
    "QueueStatus",
    "listen_for_events",
    "queue_status",
]

MAX_ERROR = MAX_REASON  # webhook_deliveries.last_error is varchar(300)
log = logging.getLogger("pixnotify.store")  # the notifier's logger, by the name its lines always had
OUTBOX_CHANNEL = "pix_outbox"
"""Notified by the ``outbox_written`` trigger at the commit of every transaction that wrote events."""
RELISTEN_AFTER = 1.0
"""Seconds before listening again on a new connection once the listening one is lost."""


FAN_OUT = """
INSERT INTO webhook_deliveries
    (message_id, outbox_id, webhook_id, account_id, status, next_attempt_at, created_at)
SELECT m, o, w, a, 'pending', $5, $5
FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS t(m, o, w, a)
"""

CLAIM = """
WITH due AS (
    SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= $1
    ORDER BY next_attempt_at, id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
UPDATE webhook_deliveries d SET next_attempt_at = $3
FROM due, outbox o, webhooks w LEFT JOIN webhook_secrets s ON s.account_id = w.account_id
WHERE d.id = due.id AND o.id = d.outbox_id AND w.id = d.webhook_id
RETURNING d.id, d.message_id, d.webhook_id, d.account_id, d.attempts, d.next_attempt_at,
    o.payload::text AS payload, w.url, w.headers::text AS headers, w.is_active,
    s.secret, CASE WHEN s.previous_until > $1 THEN s.previous_secret END AS previous_secret
"""

RECORD_MANY = """
WITH v AS (
    SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::timestamptz[], $5::timestamptz[],
        $6::int[], $7::text[], $8::timestamptz[], $9::int[], $10::text[], $11::text[])
        AS v(id, lease_until, status, next_at, at, code, error, finished, ms, attempt_error, body)
), kept AS (
    UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = v.status, next_attempt_at = v.next_at,
        last_attempt_at = v.at, last_status_code = v.code, last_error = v.error, finished_at = v.finished
    FROM v
    WHERE d.id = ANY($1::bigint[])  -- lets the planner use the primary key, not a scan of the table
        AND d.id = v.id AND d.status = 'pending' AND d.next_attempt_at = v.lease_until
    RETURNING d.id
), logged AS (
    INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
    SELECT v.id, v.at, v.code, v.ms, v.attempt_error, v.body FROM v JOIN kept ON kept.id = v.id
)
SELECT id FROM kept
"""
"""Outcomes and their lines of the attempt log, in one statement (one round trip, one commit): a
delivery whose lease was lost gets neither."""

PRUNE = """
DELETE FROM webhook_attempts WHERE id IN (
    SELECT id FROM webhook_attempts WHERE attempted_at < $1 ORDER BY attempted_at LIMIT $2
)
"""

COLUMNS = 11


def _outcome_row(outcome: Attempted) -> tuple[Any, ...]:
    """One row of :data:`RECORD_MANY`."""
    verdict = outcome.verdict
    return (
        outcome.claim.id,
        outcome.claim.lease_until,
        verdict.status.value,
        verdict.next_attempt_at,
        outcome.attempted_at,
        outcome.status_code,
        verdict.reason[:MAX_ERROR] if verdict.reason else None,
        outcome.attempted_at if verdict.status is not DeliveryStatus.PENDING else None,
        max(0, outcome.duration_ms),
        outcome.log_error(),
        outcome.log_body(),
    )


def _columns(outcomes: Sequence[Attempted]) -> list[list[Any]]:
    columns: list[list[Any]] = [[] for _ in range(COLUMNS)]
    for outcome in outcomes:
        for column, value in zip(columns, _outcome_row(outcome), strict=True):
            column.append(value)
    return columns


class PostgresDeliveryStore:
    """The ``DeliveryStore`` port on the tables of ``database``."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def dispatch(self, now: datetime, limit: int) -> list[int]:
        async with self.database.acquire() as conn, conn.transaction():
            events = await conn.fetch(
                """
                SELECT id, account_id, webhook_type, created_at, pix_key FROM outbox
                WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
                """,
                limit,
            )
            if not events:
                return []
            # Routed by the type stored with the event (NULL: it goes nowhere); the payload is not read.
            routed = [
                (row["id"], row["account_id"], row["webhook_type"], row["created_at"], row["pix_key"])
                for row in events
                if row["webhook_type"]
            ]
            if routed:
                hooks = await conn.fetch(
                    """
                    SELECT w.id, w.account_id, w.event_type, w.created_at, w.pix_key FROM webhooks w
                    WHERE w.is_active AND (w.account_id, w.event_type) IN
                        (SELECT * FROM unnest($1::bigint[], $2::text[]))
                    ORDER BY w.id
                    """,
                    [account for _, account, _, _, _ in routed],
                    [kind for _, _, kind, _, _ in routed],
                )
                # A key's webhook (type pix) gets the PIX of its key only: the key is part of the route.
                targets: dict[tuple[int, str, str | None], list[tuple[int, datetime]]] = {}
                for hook in hooks:
                    key = (hook["account_id"], hook["event_type"], hook["pix_key"])
                    targets.setdefault(key, []).append((hook["id"], hook["created_at"]))
                # A registration receives the events that happened once it existed, not older ones
                # that the notifier had not yet dispatched when it was made.
                deliveries = [
                    (message_id(outbox_id, hook_id), outbox_id, hook_id, account)
                    for outbox_id, account, kind, happened, pix_key in routed
                    for hook_id, registered in targets.get((account, kind, pix_key), [])
                    if registered <= happened
                ]
                if deliveries:
                    await conn.execute(
                        FAN_OUT,
                        *(list(column) for column in zip(*deliveries, strict=True)),
                        now,
                    )
            consumed = [row["id"] for row in events]
            await conn.execute(
                "UPDATE outbox SET dispatched_at = $2 WHERE id = ANY($1::bigint[])", consumed, now
            )
            return consumed

    async def claim_due(self, now: datetime, limit: int, lease_until: datetime) -> list[Claim]:
        async with self.database.acquire() as conn:
            rows = await conn.fetch(CLAIM, now, limit, lease_until)
        return [
            Claim(
                id=row["id"],
                message_id=row["message_id"],
                webhook_id=row["webhook_id"],
                account_id=row["account_id"],
                attempts=row["attempts"],
                lease_until=row["next_attempt_at"],
                event=json.loads(row["payload"]),
                url=row["url"],
                headers={str(k): str(v) for k, v in json.loads(row["headers"]).items()},
                active=row["is_active"],
                secrets=tuple(s for s in (row["secret"], row["previous_secret"]) if s),
            )
            for row in rows
        ]

    async def record(
        self,
        claim: Claim,
        verdict: Verdict,
        *,
        attempted_at: datetime,
        status_code: int | None,
        duration_ms: int = 0,
        error: str | None = None,
        response_body: str | None = None,
    ) -> bool:
        outcome = Attempted(claim, verdict, attempted_at, status_code, duration_ms, error, response_body)
        async with self.database.acquire() as conn:
            if not verdict.deactivate:  # one statement: no transaction block, one round trip
                return bool(await conn.fetch(RECORD_MANY, *_columns([outcome])))
            async with conn.transaction():
                if not await conn.fetch(RECORD_MANY, *_columns([outcome])):
                    return False
                await conn.execute(DEACTIVATE_WEBHOOK, claim.webhook_id, GONE_REASON, attempted_at)
                return True

    async def record_many(self, outcomes: Sequence[Attempted]) -> set[int]:
        if any(outcome.verdict.deactivate for outcome in outcomes):
            raise ValueError("a 410 deactivates its registration: store it with record()")
        async with self.database.acquire() as conn:
            rows = await conn.fetch(RECORD_MANY, *_columns(outcomes))
        return {row["id"] for row in rows}

    async def prune_attempts(self, before: datetime, limit: int) -> int:
        async with self.database.acquire() as conn:
            status = await conn.execute(PRUNE, before, limit)
        return int(status.split()[-1])

    async def finish_inactive(self, claim: Claim, now: datetime) -> bool:
        async with self.database.acquire() as conn:
            status = await conn.execute(
                """
                UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = $3,
                    last_error = $4
                WHERE id = $1 AND status = 'pending' AND next_attempt_at = $2
                """,
                claim.id,
                claim.lease_until,
                now,
                INACTIVE_REASON,
            )
        return bool(status == "UPDATE 1")

    async def release(self, claims: Sequence[Claim], now: datetime) -> int:
        if not claims:
            return 0
        async with self.database.acquire() as conn:
            status = await conn.execute(
                """
                UPDATE webhook_deliveries d SET next_attempt_at = $3
                FROM unnest($1::bigint[], $2::timestamptz[]) AS c(id, lease_until)
                WHERE d.id = c.id AND d.status = 'pending' AND d.next_attempt_at = c.lease_until
                """,
                [claim.id for claim in claims],
                [claim.lease_until for claim in claims],
                now,
            )
        return int(status.split()[-1])


def _is_a_delivery_store(store: PostgresDeliveryStore) -> DeliveryStore:
    """Never called: mypy checks here that the adapter fits its port."""
    return store


@dataclass(frozen=True, slots=True)
class FailingUrl:
    """An active registration whose latest attempt failed, and why (``pixnotify.failures``' words)."""

    webhook_id: int
    account_id: int
    origin: str  # scheme, host and port: a URL's path and query may carry a token, never shown
    last_error: str
    last_status_code: int | None
    last_attempt_at: datetime
    pending: int  # its deliveries waiting for a retry

    def as_json(self) -> dict[str, Any]:
        return {
            "webhookId": self.webhook_id,
            "accountId": self.account_id,
            "url": self.origin,
            "lastError": self.last_error,
            "lastStatusCode": self.last_status_code,
            "lastAttemptAt": format_timestamp(self.last_attempt_at),
            "pendingDeliveries": self.pending,
        }


@dataclass(frozen=True, slots=True)
class QueueStatus:
    undispatched_events: int
    pending_deliveries: int
    due_now: int
    failed_deliveries: int
    oldest_pending_age_seconds: float | None
    failing: tuple[FailingUrl, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "undispatchedEvents": self.undispatched_events,
            "pendingDeliveries": self.pending_deliveries,
            "dueNow": self.due_now,
            "failedDeliveries": self.failed_deliveries,
            "oldestPendingAgeSeconds": self.oldest_pending_age_seconds,
            "failingUrls": [url.as_json() for url in self.failing],
        }


FAILING = """
SELECT w.id, w.account_id, w.url, last.last_error, last.last_status_code, last.last_attempt_at,
    (SELECT count(*) FROM webhook_deliveries p
        WHERE p.webhook_id = w.id AND p.status = 'pending' AND p.attempts > 0) AS pending
FROM webhooks w
CROSS JOIN LATERAL (
    SELECT d.status, d.last_error, d.last_status_code, d.last_attempt_at FROM webhook_deliveries d
    WHERE d.webhook_id = w.id AND d.last_attempt_at IS NOT NULL
    ORDER BY d.last_attempt_at DESC, d.id DESC LIMIT 1
) AS last
WHERE w.is_active AND last.status <> 'delivered' AND last.last_error IS NOT NULL
ORDER BY last.last_attempt_at DESC
LIMIT $1
"""
"""Each active registration whose latest attempt did not deliver (a later success clears it)."""

MAX_FAILING = 50
"""``pixnotify status`` lists at most this many failing URLs, the most recent failures first."""


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/"


async def queue_status(database: Database, now: datetime) -> QueueStatus:
    async with database.acquire() as conn:
        row = await conn.fetchrow(
            """
            SELECT
                (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL) AS undispatched,
                (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending,
                (SELECT count(*) FROM webhook_deliveries
                    WHERE status = 'pending' AND next_attempt_at <= $1) AS due,
                (SELECT count(*) FROM webhook_deliveries WHERE status = 'failed') AS failed,
                (SELECT min(created_at) FROM webhook_deliveries WHERE status = 'pending') AS oldest
            """,
            now,
        )
    if row is None:
        raise RuntimeError("SELECT returned no row")
    oldest = row["oldest"]
    async with database.acquire() as conn:
        failing = await conn.fetch(FAILING, MAX_FAILING)
    return QueueStatus(
        undispatched_events=row["undispatched"],
        pending_deliveries=row["pending"],
        due_now=row["due"],
        failed_deliveries=row["failed"],
        oldest_pending_age_seconds=round((now - oldest).total_seconds(), 3) if oldest else None,
        failing=tuple(
            FailingUrl(
                webhook_id=r["id"],
                account_id=r["account_id"],
                origin=_origin(r["url"]),
                last_error=r["last_error"],
                last_status_code=r["last_status_code"],
                last_attempt_at=r["last_attempt_at"],
                pending=r["pending"],
            )
            for r in failing
        ),
    )


async def listen_for_events(database: Database, wake: asyncio.Event, stop: asyncio.Event) -> None:
    """Set ``wake`` whenever events are committed to the outbox (``LISTEN pix_outbox`` on a
    connection of ``database``), until ``stop``. A lost connection (a restarted server) is replaced
    after :data:`RELISTEN_AFTER` seconds; meanwhile the notifier's polling finds the events."""
    while not stop.is_set():
        try:
            await _listen_until_lost(database, wake, stop)
        except Exception as exc:  # noqa: BLE001 - a speed-up only: polling carries on without it
            log.debug("listening on %s failed: %s", OUTBOX_CHANNEL, exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), RELISTEN_AFTER)


async def _listen_until_lost(database: Database, wake: asyncio.Event, stop: asyncio.Event) -> None:
    lost = asyncio.Event()

    def notified(*_: object) -> None:
        wake.set()

    async with database.acquire() as conn:
        conn.add_termination_listener(lambda _conn: lost.set())
        await conn.add_listener(OUTBOX_CHANNEL, notified)
        wake.set()  # events written before the listening began are found at once
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(lost.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
            if not conn.is_closed():
                await conn.remove_listener(OUTBOX_CHANNEL, notified)
