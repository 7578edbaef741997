"""What the service tells its operators: structured logs, request ids, metrics, readiness.

- :mod:`pixinfra.logs` (shared with the notifier): JSON (or text) log lines, configured in one place.
- :mod:`~pixweb.observability.requests`: the ASGI middleware giving each request an id, a
  latency observation and an access log line.
- :mod:`~pixweb.observability.metrics`: the app's Prometheus registry and metrics.
- :mod:`~pixweb.observability.settlement`: counting the transfers settlement finishes.
- :mod:`~pixweb.observability.readiness`: the database check behind ``/health/ready``.
"""

from __future__ import annotations

from pixinfra.logs import (
    REQUEST_ID,
    JsonFormatter,
    TextFormatter,
    configure_logging,
    current_request_id,
)
from pixweb.observability.metrics import Metrics
from pixweb.observability.readiness import ReadinessProbe
from pixweb.observability.requests import RequestObserver
from pixweb.observability.settlement import counting_transfers

__all__ = [
    "REQUEST_ID",
    "JsonFormatter",
    "Metrics",
    "ReadinessProbe",
    "RequestObserver",
    "TextFormatter",
    "configure_logging",
    "counting_transfers",
    "current_request_id",
]
