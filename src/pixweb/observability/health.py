"""For load balancers and monitoring: liveness, readiness and the Prometheus metrics. No token.

``GET /health/live`` answers while the process runs (it touches nothing), except that on an embedded
PostgreSQL it is a 503 once the server has died and could not be restarted within the back-off
budget (``pixinfra.postgres.supervisor``); ``GET /health/ready``
only while the database answers and has every migration applied (503 with the error shape
otherwise); ``GET /metrics`` is the Prometheus text exposition of the app's registry.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from prometheus_client import CONTENT_TYPE_LATEST

from pixcore.clock import Clock
from pixinfra.postgres.supervisor import Supervisor
from pixweb.api.deps import Injected
from pixweb.api.docs import answer
from pixweb.api.fields import doc
from pixweb.errors import ErrorBody, error_response
from pixweb.observability.metrics import Metrics
from pixweb.observability.readiness import ReadinessProbe

__all__ = ["HealthController", "HealthStatus", "MetricsController"]


class HealthStatus(msgspec.Struct):
    status: Annotated[str, doc("Always `ok`.")]


def _not(description: str, message: str) -> ResponseSpec:
    body = {"statusCode": 503, "message": message, "error": "Service Unavailable"}
    return ResponseSpec(
        ErrorBody, description=description, generate_examples=False, examples=[Example(value=body)]
    )


OK = HealthStatus(status="ok")


class HealthController(Controller):
    path = "/health"
    tags = ["Operations"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/live",
        operation_id="getLiveness",
        summary="Liveness: the process runs (and its embedded database could be restarted)",
        description=(
            "For load balancers and orchestrators: 200 while the process runs; 503 (with"
            " `Retry-After`) only when its embedded PostgreSQL died and could not be restarted."
            " Touches nothing else. No token."
        ),
        security=[{}],  # no bearer token: load balancers and orchestrators call it
        responses=answer(200, HealthStatus, "Live", {"status": "ok"})
        | {
            503: _not(
                "Not live: the embedded database cannot be restarted",
                "The embedded PostgreSQL server stopped and could not be restarted.",
            )
        },
    )
    async def live(self, *, supervisor: Injected[Supervisor | None]) -> Response[Any]:
        problem = supervisor.problem() if supervisor is not None else None
        if problem is not None:
            return error_response(503, problem, headers={"Retry-After": "10"})
        return Response(OK)

    @get(
        "/ready",
        operation_id="getReadiness",
        summary="Readiness: the database answers and its migrations are applied",
        description=(
            "200 while the database answers and has every migration applied; otherwise 503 (with"
            " `Retry-After`), whose message says which. No token."
        ),
        security=[{}],
        responses=answer(200, HealthStatus, "Ready", {"status": "ok"})
        | {503: _not("Not ready: the database is unreachable", "The database is unavailable.")},
    )
    async def ready(self, *, readiness: Injected[ReadinessProbe]) -> Response[Any]:
        problem = await readiness.check()
        if problem is not None:
            return error_response(503, problem, headers={"Retry-After": "1"})
        return Response(OK)


class MetricsController(Controller):
    tags = ["Operations"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/metrics",
        operation_id="getMetrics",
        summary="Prometheus metrics (text exposition format)",
        description=(
            "Request latencies and counts, transfers, the webhook queue and the database pool, in"
            " Prometheus' text format. No token: restrict it at the load balancer if it must not be"
            " public."
        ),
        responses=answer(
            200,
            str,
            "The metrics",
            "# HELP pix_http_requests_total Requests answered.\n# TYPE pix_http_requests_total counter\n"
            'pix_http_requests_total{method="GET",route="/balance",status="200"} 12.0\n',
            media_type=CONTENT_TYPE_LATEST,
        ),
        security=[{}],  # restrict it at the load balancer if it must not be public
        media_type=CONTENT_TYPE_LATEST,
    )
    async def metrics(
        self, *, metrics: Injected[Metrics], clock: Injected[Clock], readiness: Injected[ReadinessProbe]
    ) -> Response[bytes]:
        database = readiness.database
        await metrics.refresh_queue(database.pool if database.is_open else None, clock.now())
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
