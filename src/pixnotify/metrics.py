"""The notifier's Prometheus metrics, and the HTTP server ``pixnotify run --metrics-port`` exposes.

``pix_webhook_delivery_attempts_total{result}`` counts the attempts this process made (or settled
without sending), by result:

- ``delivered``: a 2xx answer, stored;
- ``retry``: no success yet, another attempt is scheduled;
- ``failed``: every attempt spent (or an answer that is never retried), the delivery failed;
- ``gone``: the receiver answered 410, the registration went inactive;
- ``inactive``: the registration was deactivated after the fan-out, nothing was sent;
- ``lease_lost``: the attempt was made but its lease had passed, so its outcome was not stored;
- ``error``: the attempt broke unexpectedly (logged with its traceback); retried after the lease.

Inside ``pixweb serve`` the counter lives in the app's registry and shows at ``/metrics``.
"""

from __future__ import annotations

import threading
import weakref
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, ProcessCollector, start_http_server

from pixcore.webhooks.delivery import Verdict
from pixcore.webhooks.rules import DeliveryStatus

__all__ = ["RESULTS", "DeliveryMetrics", "result_of", "serve_metrics"]

RESULTS = ("delivered", "retry", "failed", "gone", "inactive", "lease_lost", "error")

_BY_REGISTRY: weakref.WeakKeyDictionary[CollectorRegistry, DeliveryMetrics] = weakref.WeakKeyDictionary()


def result_of(verdict: Verdict, *, kept: bool) -> str:
    """The ``result`` label of an attempt whose verdict is ``verdict``."""
    if not kept:
        return "lease_lost"
    if verdict.deactivate:
        return "gone"
    return {DeliveryStatus.DELIVERED: "delivered", DeliveryStatus.PENDING: "retry"}.get(
        verdict.status, "failed"
    )


class DeliveryMetrics:
    """The notifier's metrics in ``registry``. Build with :meth:`of` (one set per registry)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.attempts = Counter(
            "pix_webhook_delivery_attempts",
            "Webhook delivery attempts made by this process, by result.",
            ["result"],
            registry=registry,
        )
        for result in RESULTS:  # each at 0 from the start, so that rate() sees the first attempt
            self.attempts.labels(result)

    @classmethod
    def of(cls, registry: CollectorRegistry) -> DeliveryMetrics:
        """The metrics registered in ``registry``, registered there on first use."""
        metrics = _BY_REGISTRY.get(registry)
        if metrics is None:
            metrics = _BY_REGISTRY[registry] = cls(registry)
        return metrics

    def attempted(self, result: str) -> None:
        self.attempts.labels(result).inc()


def serve_metrics(port: int, host: str = "127.0.0.1") -> tuple[DeliveryMetrics, WSGIServer, threading.Thread]:
    """A registry of the process's own (with the process collector), served over HTTP at
    ``http://host:port/metrics`` by a daemon thread. Shut the server down when leaving."""
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    metrics = DeliveryMetrics.of(registry)
    server, thread = start_http_server(port, addr=host, registry=registry)
    return metrics, server, thread
