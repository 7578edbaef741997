"""For load balancers and monitoring: liveness, readiness and the Prometheus metrics. No token.

``GET /health/live`` answers while the process runs (it touches nothing), except that on an embedded
PostgreSQL it is a 503 once the server has died and could not be restarted within the back-off
budget (``pixinfra.postgres.supervisor``); ``GET /health/ready``
only while the database answers and has every migration applied (503 with the error shape
otherwise); ``GET /metrics`` is the Prometheus text exposition of the app's registry.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from prometheus_client import CONTENT_TYPE_LATEST

from pixcore.clock import SystemClock
from pixinfra.postgres.supervisor import Supervisor
from pixweb.errors import ErrorBody, error_response
from pixweb.observability.metrics import Metrics
from pixweb.observability.readiness import ReadinessProbe

__all__ = ["HealthController", "HealthStatus", "MetricsController"]


class HealthStatus(msgspec.Struct):
    status: str


OK = HealthStatus(status="ok")


class HealthController(Controller):
    path = "/health"
    tags = ["Operations"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/live",
        operation_id="getLiveness",
        summary="Liveness: the process runs (and its embedded database could be restarted)",
        security=[{}],  # no bearer token: load balancers and orchestrators call it
        responses={
            200: ResponseSpec(HealthStatus, description="Live"),
            503: ResponseSpec(ErrorBody, description="Not live: the embedded database cannot be restarted"),
        },
    )
    async def live(self, request: Request[Any, Any, Any]) -> Response[Any]:
        supervisor: Supervisor | None = request.app.state.get("supervisor")
        problem = supervisor.problem() if supervisor is not None else None
        if problem is not None:
            return error_response(503, problem, headers={"Retry-After": "10"})
        return Response(OK)

    @get(
        "/ready",
        operation_id="getReadiness",
        summary="Readiness: the database answers and its migrations are applied",
        security=[{}],
        responses={
            200: ResponseSpec(HealthStatus, description="Ready"),
            503: ResponseSpec(ErrorBody, description="Not ready: the database is unreachable"),
        },
    )
    async def ready(self, request: Request[Any, Any, Any]) -> Response[Any]:
        probe: ReadinessProbe = request.app.state.readiness
        problem = await probe.check()
        if problem is not None:
            return error_response(503, problem, headers={"Retry-After": "1"})
        return Response(OK)


class MetricsController(Controller):
    tags = ["Operations"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/metrics",
        operation_id="getMetrics",
        summary="Prometheus metrics (text exposition format)",
        security=[{}],  # restrict it at the load balancer if it must not be public
        media_type=CONTENT_TYPE_LATEST,
    )
    async def metrics(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        metrics: Metrics = request.app.state.metrics
        services = getattr(request.app.state, "services", None)
        clock = services.clock if services is not None else SystemClock()
        probe: ReadinessProbe = request.app.state.readiness
        await metrics.refresh_queue(probe.database.pool if probe.database.is_open else None, clock.now())
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
