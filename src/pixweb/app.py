"""The Litestar application, built by :func:`create_app` in small named steps."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.middleware.base import DefineMiddleware
from litestar.openapi.spec import Components, SecurityScheme

from pixcore.clock import SystemClock
from pixcore.webhooks.ports import HostResolver, WebhookProbe
from pixinfra.postgres.pool import Database
from pixinfra.postgres.supervisor import supervising
from pixinfra.runtime import DeliveryLoop, database_ready, replica_ready
from pixinfra.settings import Settings, get_settings
from pixweb.accounts.balance import BalanceController
from pixweb.accounts.tokens import AuthController
from pixweb.allow import answer_options
from pixweb.auth import BearerAuthMiddleware
from pixweb.body_errors import AllBodyErrors
from pixweb.charges.batches import DueBatchController
from pixweb.charges.cashin import CashInController
from pixweb.charges.controllers import (
    ChargeController,
    DueChargeController,
    DuePayloadController,
    PayloadController,
)
from pixweb.charges.locations import LocationController
from pixweb.console.routes import CONSOLE_PATHS, ConsoleNotFound, console_handlers, console_templates
from pixweb.dependencies import Wiring
from pixweb.edge import TextGuard
from pixweb.errors import exception_handlers
from pixweb.observability import (
    Metrics,
    ReadinessProbe,
    RequestObserver,
    configure_logging,
    counting_transfers,
)
from pixweb.observability.health import HealthController, MetricsController
from pixweb.observability.read_marks import ReadMarks
from pixweb.openapi import PixOpenAPIConfig
from pixweb.paths import EncodedSlashes
from pixweb.recurrences import RECURRENCE_HANDLERS, RecurrencePayloadController, RecurrenceSandboxController
from pixweb.reference import assets_router, reference_page
from pixweb.refunds.refunds import RefundController
from pixweb.sandbox.clock_middleware import SharedClockMiddleware
from pixweb.sandbox.returns import SandboxReturnsController
from pixweb.sandbox.routes import SandboxController
from pixweb.services import Services
from pixweb.standard import standard_router
from pixweb.standard.document import DOCUMENT_PATH, standard_document_handler
from pixweb.transfers.received import ReceivedPixController
from pixweb.transfers.transactions import TransactionController
from pixweb.transfers.transfers import TransferController
from pixweb.webhooks.key_webhooks import KeyWebhookController
from pixweb.webhooks.webhooks import WebhookController, WebhookDeliveryController, WebhookSecretController
from pixweb.wire import DecimalAsNumber, PixRequest, PixResponse
from pixweb.workers import settlement_loop

__all__ = ["create_app"]

STANDARD_HANDLERS = (
    ChargeController,
    DueChargeController,
    DueBatchController,
    RefundController,
    ReceivedPixController,
    KeyWebhookController,
    LocationController,
    *RECURRENCE_HANDLERS,
)
"""The operations of the central bank's standard, served again under ``PIX_STANDARD_PREFIX``
(Pix Automático's only there)."""
PUBLIC_PATHS = ["^/schema", "^/.well-known/", "^/qr/v2/", "^/health/", "^/metrics$"]
MAX_BODY = 1_048_576  # bytes; the largest legitimate body (a cash-in with QR data) is far smaller


def _openapi() -> PixOpenAPIConfig:
    return PixOpenAPIConfig(
        title="PIX account service",
        version="0.1.0",
        description="Instant-payment (PIX) account API and sandbox.",
        path="/schema",
        render_plugins=[reference_page()],  # its assets served by the app (pixweb.reference)
        components=Components(
            security_schemes={
                "BearerToken": SecurityScheme(type="http", scheme="bearer", bearer_format="JWT"),
            }
        ),
        security=[{"BearerToken": []}],
        use_handler_docstrings=True,
    )


def _lifespan(
    wiring: Wiring,
    clock: SystemClock | None,
    resolver: HostResolver | None,
    database: Database,
    delivery: DeliveryLoop | None,
) -> object:
    settings, metrics = wiring.settings, wiring.metrics

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with (
            database_ready(settings, database=database),
            replica_ready(settings) as replica,
            supervising(metrics.registry) as supervisor,
        ):
            wiring.supervisor = supervisor  # /health/live asks it (None: nothing to supervise)
            services = Services.build(
                settings, database, clock, resolver, replica=replica, observe_read=metrics.read_routed
            )
            await services.keeper.refresh()
            wiring.services = services
            app.state.services = services  # the middleware's (injection does not reach them)
            stop = asyncio.Event()
            settle = counting_transfers(services.uow, metrics.transfer_finished)
            loops = (
                [asyncio.create_task(settlement_loop(services, stop, settle_with=settle))]
                if settings.run_workers
                else []
            )
            if settings.run_workers and services.network is not None:
                loops.append(asyncio.create_task(services.network.messages.run(stop)))
                loops.append(asyncio.create_task(services.network.claims_loop.run(stop)))
                loops.append(asyncio.create_task(services.network.med_loop.run(stop)))
            if settings.run_workers and settings.run_delivery:
                if delivery is not None:
                    loops.append(
                        asyncio.create_task(
                            delivery(settings, database, stop, metrics.registry, services.keeper)
                        )
                    )
                else:
                    logging.getLogger("pixweb.app").warning(
                        "webhook delivery is off in this process: none was handed to the app "
                        "(run `pixnotify run`, or start the API with the `pixweb` command)"
                    )
            try:
                yield
            finally:
                stop.set()
                await asyncio.gather(*loops)
                services.close()
                if services.network is not None:
                    await services.network.client.close()
                wiring.services = wiring.supervisor = None

    return lifespan


def _observe(app: Litestar, wiring: Wiring) -> Litestar:
    """Every request, routed or not, through the request-id, latency and access-log middleware,
    the one recording each write's read mark (``pixweb.observability.read_marks``), and routed
    with its encoded slashes kept in their segments (``pixweb.paths``).

    It wraps Litestar's own ASGI handler (which holds the router and the exception handlers), so
    unknown routes and wrong methods get an id and a log line too, which route middleware would miss.
    """
    marks = ReadMarks(
        EncodedSlashes(app.asgi_handler), lambda: wiring.services.reads.router if wiring.services else None
    )
    app.asgi_handler = RequestObserver(marks, wiring.metrics)
    return app


def create_app(
    settings: Settings | None = None,
    *,
    clock: SystemClock | None = None,
    database: Database | None = None,
    delivery: DeliveryLoop | None = None,
    probe: WebhookProbe | None = None,
    resolver: HostResolver | None = None,
    overrides: Mapping[str, object] | None = None,
) -> Litestar:
    """The API. ``clock`` replaces the service clock (tests move time with it). ``database``: the
    process's (default: a new one, opened and closed by the app's lifespan; one open already, as
    a test's, is shared and left open). ``delivery``: the webhook delivery loop to run beside
    settlement (``PIX_WORKERS`` and ``PIX_DELIVERY`` on); the composer of the process hands it over
    (``pixservice``: ``pixnotify.deliver_in_process``), since ``pixweb`` does not import ``pixnotify``.
    ``probe``: what sends test events (``POST /api/webhooks/{id}/test``), handed over the same way
    (``pixnotify.probe_for``); without one that route answers 503. ``resolver``: the host resolver
    of webhook registration (default: the operating system's). ``overrides``: values handed to the
    handlers in place of the app's own, by parameter name (``pixweb.dependencies``; tests)."""
    settings = settings or get_settings()
    database = database or Database()
    configure_logging(settings.log_level, settings.log_format)
    metrics = Metrics()
    wiring = Wiring(settings, metrics, ReadinessProbe(database), probe)
    config = AppConfig(
        route_handlers=[
            AuthController,
            BalanceController,
            TransferController,
            TransactionController,
            ChargeController,
            PayloadController,
            DueChargeController,
            DueBatchController,
            DuePayloadController,
            RecurrencePayloadController,
            CashInController,
            RefundController,
            ReceivedPixController,
            KeyWebhookController,
            LocationController,
            WebhookController,
            WebhookSecretController,
            WebhookDeliveryController,
            *(
                [SandboxController, SandboxReturnsController, RecurrenceSandboxController]
                if settings.sandbox
                else []
            ),
            HealthController,
            MetricsController,
            standard_router(settings.standard_prefix, [*STANDARD_HANDLERS, standard_document_handler]),
            *(console_handlers() if settings.console else []),
            assets_router(),
        ],
        template_config=console_templates() if settings.console else None,
        lifespan=[_lifespan(wiring, clock, resolver, database, delivery)],  # type: ignore[list-item]
        dependencies=wiring.providers(overrides),
        # The shared clock first (token expiry reads it), authentication (headers only), then the
        # text checks (docs/decisions/hostile-text.md), then every mistake of a body at once.
        middleware=[
            SharedClockMiddleware(),
            DefineMiddleware(
                BearerAuthMiddleware,
                exclude=[
                    *PUBLIC_PATHS,
                    f"^{settings.standard_prefix}{DOCUMENT_PATH}$",
                    *(CONSOLE_PATHS if settings.console else []),
                ],
            ),
            TextGuard(),
            AllBodyErrors(),
        ],
        exception_handlers=exception_handlers,
        before_request=answer_options,  # OPTIONS lists every method of its path (pixweb.allow)
        request_class=PixRequest,  # JSON numbers read as exact Decimals, never floats
        response_class=PixResponse,
        plugins=[DecimalAsNumber()],
        openapi_config=_openapi(),
        request_max_body_size=MAX_BODY,
        debug=False,
    )
    app = Litestar.from_config(config)
    app.state.standard_prefix = settings.standard_prefix  # unmatched paths under it (pixweb.standard)
    if settings.console:
        app.asgi_handler = ConsoleNotFound(app.asgi_handler)
    return _observe(app, wiring)
