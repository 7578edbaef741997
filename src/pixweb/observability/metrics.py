"""The API process's Prometheus metrics, in a registry the app owns (never the global default one).

Every metric's name and labels are listed in ``docs/operations.md``. Request latency is labelled
by the route's template (``/cob/{txid}``), never the raw path, so the number of series is bounded;
a request that matched no route is labelled ``unmatched``. The queue gauges are read from the
database when ``/metrics`` is scraped, with queries that the partial indexes on pending rows answer.
"""

from __future__ import annotations

import asyncio
import logging
import os
from datetime import datetime

import asyncpg
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    ProcessCollector,
    generate_latest,
)

from pixcore.transfers.rules import SpiError
from pixinfra.postgres.replica import Route

__all__ = ["LATENCY_BUCKETS", "QUEUE_QUERY", "Metrics"]

log = logging.getLogger("pixweb.metrics")

QUEUE_TIMEOUT = 2.0  # seconds; a scrape must not hang on a database that does not answer
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

QUEUE_QUERY = """
SELECT
    (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL) AS undispatched,
    (SELECT created_at FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT 1) AS oldest_undispatched,
    (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending,
    (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1) AS due,
    (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending') AS next_due
"""


def _age(now: datetime, then: datetime | None) -> float:
    return max(0.0, (now - then).total_seconds()) if then is not None else 0.0


class Metrics:
    """The metrics of one app. ``registry`` is what ``/metrics`` exposes."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        # With `pixweb serve --workers N` each scrape is answered by one of the N processes: this
        # says which (the other figures are that process's alone).
        Info("pix_process", "The API process that answered this scrape.", registry=self.registry).info(
            {"pid": str(os.getpid())}
        )
        self.request_duration = Histogram(
            "pix_http_request_duration_seconds",
            "Time to answer an HTTP request, by method, route template and status class.",
            ["method", "route", "status"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.transfers_finished = Counter(
            "pix_transfers_finished",
            "Transfers settlement finished in this process, by outcome and SPI error code.",
            ["outcome", "error_code"],
            registry=self.registry,
        )
        self.outbox_undispatched = Gauge(
            "pix_outbox_undispatched_events",
            "Outbox events not yet fanned out to webhook deliveries.",
            registry=self.registry,
        )
        self.outbox_lag = Gauge(
            "pix_outbox_oldest_undispatched_age_seconds",
            "Age of the oldest outbox event not yet fanned out (0 when none).",
            registry=self.registry,
        )
        self.deliveries_pending = Gauge(
            "pix_webhook_deliveries_pending",
            "Webhook deliveries not yet delivered or failed (waiting for a retry or in flight).",
            registry=self.registry,
        )
        self.deliveries_due = Gauge(
            "pix_webhook_deliveries_due",
            "Pending webhook deliveries whose next attempt is due now.",
            registry=self.registry,
        )
        self.delivery_lag = Gauge(
            "pix_webhook_delivery_lag_seconds",
            "How long the most overdue pending delivery has waited past its due time (0 when none).",
            registry=self.registry,
        )
        self.reads = Counter(
            "pix_reads",
            "Reads of the query endpoints, by the database that answered (replica, primary) and why"
            " (caught_up, lag, replica_unavailable, mark_unknown, recovery_conflict); counted only"
            " with a read replica.",
            ["database", "reason"],
            registry=self.registry,
        )
        self._children: dict[tuple[str, str, int], Histogram] = {}
        # Every known outcome from the start at 0, so that rate() sees the first increment.
        self.transfers_finished.labels("completed", "")
        for code in SpiError:
            self.transfers_finished.labels("error", code.value)
        for route in Route:
            self.reads.labels(*route.value)

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status // 100)
        child = self._children.get(key)
        if child is None:  # labels() takes a lock and builds a tuple: once per series
            child = self._children[key] = self.request_duration.labels(method, route, f"{key[2]}xx")
        child.observe(seconds)

    def read_routed(self, route: Route) -> None:
        self.reads.labels(*route.value).inc()

    def transfer_finished(self, outcome: str, error_code: str | None) -> None:
        self.transfers_finished.labels(outcome.lower(), error_code or "").inc()

    async def refresh_queue(self, pool: asyncpg.Pool[asyncpg.Record] | None, now: datetime) -> bool:
        """Read the outbox and delivery queue into the gauges; False (gauges unchanged) if the
        database did not answer within ``QUEUE_TIMEOUT`` seconds."""
        if pool is None:
            return False
        try:
            async with asyncio.timeout(QUEUE_TIMEOUT), pool.acquire() as conn:
                row = await conn.fetchrow(QUEUE_QUERY, now)
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            log.warning("metrics: the queue could not be read: %s", type(exc).__name__)
            return False
        if row is None:
            return False
        self.outbox_undispatched.set(row["undispatched"])
        self.outbox_lag.set(_age(now, row["oldest_undispatched"]))
        self.deliveries_pending.set(row["pending"])
        self.deliveries_due.set(row["due"])
        next_due = row["next_due"]
        self.delivery_lag.set(_age(now, next_due) if next_due is not None and next_due <= now else 0.0)
        return True

    def exposition(self) -> bytes:
        """The registry in Prometheus's text format."""
        return generate_latest(self.registry)
