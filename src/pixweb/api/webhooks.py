"""``/api/webhooks``: registrations, the signing secret, and the deliveries (decisions §9)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter

from pixcore.clock import format_timestamp
from pixcore.dns import SystemResolver
from pixcore.usecases.webhooks import (
    DEFAULT_DELIVERY_LIMIT,
    MAX_DELIVERY_LIMIT,
    deactivate_webhook,
    get_webhook_secret,
    list_deliveries,
    list_webhooks,
    register_webhook,
    replay_delivery,
    rotate_webhook_secret,
)
from pixcore.webhooks import (
    MAX_HEADER_NAME,
    MAX_HEADER_VALUE,
    MAX_URL_LENGTH,
    Delivery,
    DeliveryStatus,
    Registration,
    Webhook,
    WebhookSecret,
)
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_SHORT_CODE
from pixweb.errors import error_responses

__all__ = ["WebhookController", "WebhookDeliveryController", "WebhookSecretController"]

RESOLVER = SystemResolver()
"""How registration resolves URL hosts (tests replace the event loop's ``getaddrinfo``)."""


class HeaderIn(msgspec.Struct):
    key: Annotated[str, msgspec.Meta(max_length=MAX_HEADER_NAME)]
    value: Annotated[str, msgspec.Meta(max_length=MAX_HEADER_VALUE)]


class WebhookIn(msgspec.Struct, rename="camel"):
    url: Annotated[str, msgspec.Meta(max_length=MAX_URL_LENGTH)]
    event_type: Annotated[str, msgspec.Meta(max_length=MAX_SHORT_CODE)]
    headers: list[HeaderIn] | None = None


class ResultOut(msgspec.Struct):
    success: bool
    message: str


class WebhookOut(msgspec.Struct, rename="camel"):
    id: int
    type: str
    url: str
    headers: dict[str, str]
    is_active: bool
    created_at: str
    version: int
    updated_at: str


class WebhookList(msgspec.Struct, rename="camel"):
    account_id: int
    webhooks: list[WebhookOut]
    total: int


class SecretOut(msgspec.Struct, rename="camel"):
    secret: str
    previous_secret_valid_until: str | None


class DeliveryOut(msgspec.Struct, rename="camel"):
    id: int
    webhook_id: int
    message_id: str
    event_type: str
    url: str
    status: str
    attempts: int
    last_status_code: int | None
    last_error: str | None
    next_attempt_at: str | None
    last_attempt_at: str | None
    created_at: str
    finished_at: str | None


class DeliveryList(msgspec.Struct, rename="camel"):
    account_id: int
    deliveries: list[DeliveryOut]
    total: int


def _timestamp(moment: Any) -> str | None:
    return format_timestamp(moment) if moment is not None else None


def webhook_out(webhook: Webhook) -> WebhookOut:
    return WebhookOut(
        id=webhook.id,
        type=webhook.event_type.value,
        url=webhook.url,
        headers=dict(webhook.headers),
        is_active=webhook.is_active,
        created_at=format_timestamp(webhook.created_at),
        version=webhook.version,
        updated_at=format_timestamp(webhook.updated_at),
    )


def delivery_out(delivery: Delivery) -> DeliveryOut:
    return DeliveryOut(
        id=delivery.id,
        webhook_id=delivery.webhook_id,
        message_id=delivery.message_id,
        event_type=delivery.event_type.value,
        url=delivery.url,
        status=delivery.status.value,
        attempts=delivery.attempts,
        last_status_code=delivery.last_status_code,
        last_error=delivery.last_error,
        next_attempt_at=_timestamp(delivery.next_attempt_at),
        last_attempt_at=_timestamp(delivery.last_attempt_at),
        created_at=format_timestamp(delivery.created_at),
        finished_at=_timestamp(delivery.finished_at),
    )


def _secret_out(secret: WebhookSecret, request: Request[Any, Any, Any]) -> SecretOut:
    now = services_of(request).clock.now()
    until = secret.previous_until if secret.previous_until and secret.previous_until > now else None
    return SecretOut(secret=secret.secret, previous_secret_valid_until=_timestamp(until))


class WebhookController(Controller):
    path = "/api/webhooks"
    tags = ["Webhooks"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/",
        operation_id="registerWebhook",
        responses=error_responses(400, 401, 413),
        status_code=200,
        summary="Register a webhook URL",
    )
    async def register(self, request: Request[Any, Any, Any], data: JSONBody[WebhookIn]) -> ResultOut:
        """Register an HTTPS URL for an event type (at most 3 active per type), or update the
        headers of a URL registered already, which bumps its version."""
        services = services_of(request)
        registration = Registration.parse(
            url=data.url,
            event_type=data.event_type,
            headers=[(header.key, header.value) for header in data.headers or []],
        )
        registered = await register_webhook(
            services.uow,
            services.clock,
            RESOLVER,
            account_id=principal_of(request).account_id,
            registration=registration,
            allow_private=services.settings.webhook_allow_private,
        )
        webhook = registered.webhook
        if registered.created:
            return ResultOut(
                success=True, message=f"Webhook {webhook.id} registered for {webhook.event_type}."
            )
        return ResultOut(
            success=True,
            message=f"Webhook {webhook.id} updated for {webhook.event_type}: version {webhook.version}.",
        )

    @get(
        "/", operation_id="listWebhooks", responses=error_responses(401), summary="List webhook registrations"
    )
    async def index(self, request: Request[Any, Any, Any]) -> WebhookList:
        """Every registration of the account, deactivated ones included, oldest first."""
        account_id = principal_of(request).account_id
        webhooks = await list_webhooks(services_of(request).uow, account_id=account_id)
        return WebhookList(
            account_id=account_id, webhooks=[webhook_out(w) for w in webhooks], total=len(webhooks)
        )

    @delete(
        "/{webhook_id:int}",
        operation_id="deactivateWebhook",
        responses=error_responses(400, 401, 404),
        status_code=200,
        summary="Deactivate",
    )
    async def deactivate(self, request: Request[Any, Any, Any], webhook_id: FromPath[int]) -> ResultOut:
        """Deactivate one registration: it receives nothing more. Deactivating it again changes nothing."""
        services = services_of(request)
        changed = await deactivate_webhook(
            services.uow, services.clock, account_id=principal_of(request).account_id, webhook_id=webhook_id
        )
        message = "deactivated" if changed else "was deactivated already"
        return ResultOut(success=True, message=f"Webhook {webhook_id} {message}.")


class WebhookSecretController(Controller):
    path = "/api/webhooks/secret"
    tags = ["Webhooks"]  # noqa: RUF012 - Litestar reads class attributes

    @get("/", operation_id="getWebhookSecret", responses=error_responses(401), summary="The signing secret")
    async def secret(self, request: Request[Any, Any, Any]) -> SecretOut:
        """The account's ``whsec_`` signing secret (Standard Webhooks), created on first use.
        ``previousSecretValidUntil`` is set while a rotated-out secret still signs too."""
        services = services_of(request)
        secret = await get_webhook_secret(
            services.uow, services.clock, account_id=principal_of(request).account_id
        )
        return _secret_out(secret, request)

    @post(
        "/rotate",
        operation_id="rotateWebhookSecret",
        responses=error_responses(401),
        status_code=200,
        summary="Rotate the signing secret",
    )
    async def rotate(self, request: Request[Any, Any, Any]) -> SecretOut:
        """A new signing secret. For 24 hours the previous one signs too (two signatures)."""
        services = services_of(request)
        secret = await rotate_webhook_secret(
            services.uow, services.clock, account_id=principal_of(request).account_id
        )
        return _secret_out(secret, request)


Limit = Annotated[
    int,
    QueryParameter(ge=1, le=MAX_DELIVERY_LIMIT, description=f"1 to {MAX_DELIVERY_LIMIT}. Default 20."),
]


class WebhookDeliveryController(Controller):
    path = "/api/webhooks/deliveries"
    tags = ["Webhooks"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/",
        operation_id="listWebhookDeliveries",
        responses=error_responses(400, 401),
        summary="Recent deliveries",
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        limit: Limit = DEFAULT_DELIVERY_LIMIT,
        status: FromQuery[DeliveryStatus | None] = None,
    ) -> DeliveryList:
        """The account's most recent deliveries, newest first, optionally of one status."""
        account_id = principal_of(request).account_id
        deliveries = await list_deliveries(
            services_of(request).uow, account_id=account_id, limit=limit, status=status
        )
        return DeliveryList(
            account_id=account_id, deliveries=[delivery_out(d) for d in deliveries], total=len(deliveries)
        )

    @post(
        "/{delivery_id:int}/replay",
        operation_id="replayWebhookDelivery",
        responses=error_responses(400, 401, 404, 409, 422),
        status_code=200,
        summary="Replay",
    )
    async def replay(self, request: Request[Any, Any, Any], delivery_id: FromPath[int]) -> DeliveryOut:
        """Send a delivered or failed delivery again, now, with a fresh retry schedule and the same
        ``webhook-id``."""
        services = services_of(request)
        delivery = await replay_delivery(
            services.uow, services.clock, account_id=principal_of(request).account_id, delivery_id=delivery_id
        )
        return delivery_out(delivery)
