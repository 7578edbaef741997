"""``/api/webhooks``: registrations, the signing secret, and the deliveries."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.openapi.spec import Example
from litestar.params import Parameter, QueryParameter

from pixcore.clock import Clock, format_timestamp
from pixcore.errors import ServiceBusy
from pixcore.queries.rules import DATE_PATTERN
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.ports import HostResolver, WebhookProbe
from pixcore.webhooks.rules import (
    HEADER_NAME_PATTERN,
    HEADER_VALUE_PATTERN,
    MAX_HEADER_NAME,
    MAX_HEADER_VALUE,
    MAX_HEADERS,
    MAX_URL_LENGTH,
    REGISTRABLE,
    Delivery,
    DeliveryAttempt,
    DeliveryDetail,
    DeliveryField,
    DeliveryStatus,
    EventType,
    Registration,
    Webhook,
    WebhookField,
    WebhookSecret,
)
from pixcore.webhooks.webhook_service import (
    DEFAULT_DELIVERY_LIMIT,
    MAX_DELIVERY_LIMIT,
    deactivate_webhook,
    delivery_filter,
    get_delivery_detail,
    get_webhook_secret,
    list_deliveries,
    list_webhooks,
    register_webhook,
    replay_delivery,
    rotate_webhook_secret,
    send_test_event,
)
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of, provided
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import MAX_SHORT_CODE, Int64, MaybeTimestamp, Timestamp, doc, whole
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.field_paths import wire_paths

__all__ = ["WebhookController", "WebhookDeliveryController", "WebhookSecretController"]

"""How registration resolves URL hosts (tests replace the event loop's ``getaddrinfo``)."""


class HeaderIn(msgspec.Struct):
    key: Annotated[
        str,
        msgspec.Meta(max_length=MAX_HEADER_NAME),
        doc(
            "A header name (an HTTP token; not one the delivery sets itself).",
            pattern=HEADER_NAME_PATTERN,
            example="X-Api-Key",
        ),
    ]
    value: Annotated[
        str,
        msgspec.Meta(max_length=MAX_HEADER_VALUE),
        doc(
            "Its value: visible ASCII, space and tab.",
            pattern=HEADER_VALUE_PATTERN,
            example="k3y-0f-the-receiver",
        ),
    ]


class WebhookIn(msgspec.Struct, rename="camel"):
    url: Annotated[
        str,
        msgspec.Meta(max_length=MAX_URL_LENGTH),
        doc(
            "An absolute https:// URL (printable ASCII, no credentials, no fragment) whose host"
            " resolves to public addresses; with PIX_WEBHOOK_ALLOW_PRIVATE on, also loopback and"
            " private hosts, over http:// too (docs/webhooks.md).",
            pattern="https://[\x21-\x7e]+",
            example="https://hooks.example.com/pix",
        ),
    ]
    event_type: Annotated[
        str,
        msgspec.Meta(max_length=MAX_SHORT_CODE),
        doc("The event to receive.", enum=[kind.value for kind in REGISTRABLE], example="cash_in"),
    ]
    headers: Annotated[
        list[HeaderIn] | None,
        doc(f"Up to {MAX_HEADERS} headers sent with every delivery.", max_items=MAX_HEADERS),
    ] = None


def allows_private(request: Request[Any, Any, Any]) -> bool:
    """``PIX_WEBHOOK_ALLOW_PRIVATE``, for a body's judge (which runs before the handler is given
    the settings)."""
    settings: Settings = provided(request, "settings")
    return settings.webhook_allow_private


WEBHOOK_PATHS = wire_paths(
    {WebhookField.URL: "url", WebhookField.EVENT_TYPE: "eventType", WebhookField.HEADERS: "headers"}
)
"""Where :class:`WebhookIn` carries the fields ``Registration.parse`` names."""
DELIVERY_PATHS = wire_paths({DeliveryField.WEBHOOK: "webhookId", DeliveryField.LIMIT: "limit"})
"""The query string's names of the deliveries' filters that ``delivery_filter`` names."""


def registration_of(body: WebhookIn, request: Request[Any, Any, Any]) -> Registration:
    """The body judged by ``Registration.parse`` (http:// as the server's setting allows)."""
    return Registration.parse(
        url=body.url,
        event_type=body.event_type,
        headers=[(header.key, header.value) for header in body.headers or []],
        allow_http=allows_private(request),
    )


judge_body(WebhookIn, registration_of)


class ResultOut(msgspec.Struct):
    success: Annotated[bool, doc("Always true (a failure is an error status).")]
    message: Annotated[str, doc("What was done.")]


class RegisteredOut(ResultOut):
    """The spec's ``{success, message}``, with the registration's ``id`` and ``version``."""

    id: Int64
    version: int


class WebhookOut(msgspec.Struct, rename="camel"):
    id: Annotated[Int64, doc("The registration's id.")]
    type: Annotated[EventType, doc("The event type.")]
    url: Annotated[str, doc("The URL, normalised.")]
    headers: Annotated[dict[str, str], doc("The headers sent with every delivery.")]
    is_active: Annotated[bool, doc("false once deactivated.")]
    created_at: Annotated[Timestamp, doc("When it was registered (UTC, ISO 8601).")]
    version: Annotated[int, doc("1, one more per change of its headers.")]
    updated_at: Annotated[Timestamp, doc("When it last changed (UTC, ISO 8601).")]


class WebhookList(msgspec.Struct, rename="camel"):
    account_id: Annotated[Int64, doc("The account.")]
    webhooks: list[WebhookOut]
    total: Annotated[int, doc("How many are listed.")]


class SecretOut(msgspec.Struct, rename="camel"):
    secret: Annotated[str, doc("The signing secret (`whsec_` and base64), Standard Webhooks.")]
    previous_secret_valid_until: Annotated[
        MaybeTimestamp, doc("While a rotated-out secret still signs too: until when (UTC, ISO 8601).")
    ]


class DeliveryOut(msgspec.Struct, rename="camel"):
    id: Annotated[Int64, doc("The delivery's id.")]
    webhook_id: Annotated[Int64, doc("The registration it goes to.")]
    message_id: Annotated[str, doc("The `webhook-id` header: the same on every attempt and replay.")]
    event_type: Annotated[EventType, doc("The event type.")]
    url: Annotated[str, doc("Where it goes.")]
    status: Annotated[DeliveryStatus, doc("pending, delivered or failed.")]
    attempts: Annotated[int, doc("Attempts made.")]
    last_status_code: Annotated[int | None, doc("The HTTP status of the last attempt.")]
    last_error: Annotated[str | None, doc("Why the last attempt failed.")]
    next_attempt_at: Annotated[MaybeTimestamp, doc("When it is tried next (PENDING).")]
    last_attempt_at: Annotated[MaybeTimestamp, doc("When it was last tried.")]
    created_at: Annotated[Timestamp, doc("When the event happened (UTC, ISO 8601).")]
    finished_at: Annotated[MaybeTimestamp, doc("When it was delivered or given up.")]


class AttemptOut(msgspec.Struct, rename="camel"):
    """One attempt of a delivery: ``statusCode`` null when no answer came, ``error`` null on an
    answer, ``responseBody`` the start of the answer (at most 2048 characters) or null."""

    attempted_at: Timestamp
    status_code: int | None
    duration_ms: int
    error: str | None
    response_body: str | None


class NotificationOut(msgspec.Struct):
    """The notification sent: exactly the JSON object of the request's body (for a key's webhook,
    type PIX, the body is ``data`` alone: the standard's ``{"pix": [...]}``)."""

    type: str
    data: dict[str, object]


class DeliveryDetailOut(DeliveryOut):
    """A delivery (the list item's fields), the notification it sends and every attempt, oldest first."""

    payload: NotificationOut
    attempt_log: list[AttemptOut]


class TestEventOut(msgspec.Struct, rename="camel"):
    """What the test event got: ``success`` for a 2xx answer; ``statusCode`` null and ``error``
    set when no answer came."""

    success: bool
    status_code: int | None
    duration_ms: int
    error: str | None


class DeliveryList(msgspec.Struct, rename="camel"):
    account_id: Annotated[Int64, doc("The account.")]
    deliveries: list[DeliveryOut]
    total: Annotated[int, doc("How many are listed.")]


_WEBHOOK_IN = {
    "url": "https://hooks.example.com/pix",
    "eventType": "cash_in",
    "headers": [{"key": "X-Api-Key", "value": "k3y-0f-the-receiver"}],
}
_WEBHOOK = {
    "id": 3,
    "type": "cash_in",
    "url": "https://hooks.example.com/pix",
    "headers": {"X-Api-Key": "k3y-0f-the-receiver"},
    "isActive": True,
    "createdAt": "2026-03-15T14:00:00.000Z",
    "version": 1,
    "updatedAt": "2026-03-15T14:00:00.000Z",
}
_SECRET = {"secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "previousSecretValidUntil": None}
_DELIVERY = {
    "id": 19,
    "webhookId": 3,
    "messageId": "msg_2dQ8zX4vB6nM1kL3jH5gF7dS9aP",
    "eventType": "cash_in",
    "url": "https://hooks.example.com/pix",
    "status": "delivered",
    "attempts": 1,
    "lastStatusCode": 204,
    "lastError": None,
    "nextAttemptAt": None,
    "lastAttemptAt": "2026-03-15T14:40:52.010Z",
    "createdAt": "2026-03-15T14:40:51.310Z",
    "finishedAt": "2026-03-15T14:40:52.010Z",
}
WebhookId = Annotated[int, Parameter(description="The registration's id.", examples=[Example(value=3)])]
DeliveryId = Annotated[int, Parameter(description="The delivery's id.", examples=[Example(value=19)])]


def _timestamp(moment: Any) -> str | None:
    return format_timestamp(moment) if moment is not None else None


def webhook_out(webhook: Webhook) -> WebhookOut:
    return WebhookOut(
        id=webhook.id,
        type=webhook.event_type,
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
        event_type=delivery.event_type,
        url=delivery.url,
        status=delivery.status,
        attempts=delivery.attempts,
        last_status_code=delivery.last_status_code,
        last_error=delivery.last_error,
        next_attempt_at=_timestamp(delivery.next_attempt_at),
        last_attempt_at=_timestamp(delivery.last_attempt_at),
        created_at=format_timestamp(delivery.created_at),
        finished_at=_timestamp(delivery.finished_at),
    )


def attempt_out(attempt: DeliveryAttempt) -> AttemptOut:
    return AttemptOut(
        attempted_at=format_timestamp(attempt.attempted_at),
        status_code=attempt.status_code,
        duration_ms=attempt.duration_ms,
        error=attempt.error,
        response_body=attempt.response_body,
    )


def delivery_detail_out(detail: DeliveryDetail) -> DeliveryDetailOut:
    listed = delivery_out(detail.delivery)
    return DeliveryDetailOut(
        **{field: getattr(listed, field) for field in DeliveryOut.__struct_fields__},
        payload=NotificationOut(type=str(detail.payload["type"]), data=dict(detail.payload["data"])),
        attempt_log=[attempt_out(attempt) for attempt in detail.attempts],
    )


def _secret_out(secret: WebhookSecret, now: datetime) -> SecretOut:
    until = secret.previous_until if secret.previous_until and secret.previous_until > now else None
    return SecretOut(secret=secret.secret, previous_secret_valid_until=_timestamp(until))


class WebhookController(Controller):
    path = "/api/webhooks"
    tags = ["Webhooks"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/",
        operation_id="registerWebhook",
        responses=answer(
            200,
            RegisteredOut,
            "Registered, or updated",
            {"success": True, "message": "Webhook 3 registered for cash_in.", "id": 3, "version": 1},
        )
        | error_responses(400, 401, 413),
        status_code=200,
        summary="Register a webhook URL",
        description=(
            "Register an HTTPS URL for an event type (at most 3 active per type), or update the"
            " headers of a URL registered already, which bumps its version; the answer carries the"
            " registration's `id` and `version`. Deliveries are signed (Standard Webhooks) with the"
            " account's secret (`GET /api/webhooks/secret`). A server with PIX_WEBHOOK_ALLOW_PRIVATE"
            " on (development) also takes URLs of loopback and private hosts, http:// ones too. 400:"
            " the URL, its host (which must resolve to public addresses), a header, or the fourth URL"
            " of a type; a refused private host names the setting."
        ),
    )
    async def register(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[WebhookIn, json_body("The registration.", _WEBHOOK_IN)],
        *,
        resolver: Injected[HostResolver],
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> RegisteredOut:
        """Register an HTTPS URL for an event type (at most 3 active per type), or update the
        headers of a URL registered already, which bumps its version. A server with
        PIX_WEBHOOK_ALLOW_PRIVATE on (development) also takes http:// URLs of loopback and
        private hosts."""
        registered = await register_webhook(
            uow,
            clock,
            resolver,
            account_id=principal_of(request).account_id,
            registration=registration_of(data, request),
            allow_private=settings.webhook_allow_private,
        )
        webhook = registered.webhook
        if registered.created:
            message = f"Webhook {webhook.id} registered for {webhook.event_type}."
        else:
            message = f"Webhook {webhook.id} updated for {webhook.event_type}: version {webhook.version}."
        return RegisteredOut(success=True, message=message, id=webhook.id, version=webhook.version)

    @get(
        "/",
        operation_id="listWebhooks",
        responses=answer(
            200, WebhookList, "The registrations", {"accountId": 42, "webhooks": [_WEBHOOK], "total": 1}
        )
        | error_responses(401),
        summary="List webhook registrations",
        description="Every registration of the account, deactivated ones included, oldest first.",
    )
    async def index(
        self, request: Request[Any, Any, Any], *, uow: Injected[UnitOfWorkFactory]
    ) -> WebhookList:
        """Every registration of the account, deactivated ones included, oldest first."""
        account_id = principal_of(request).account_id
        webhooks = await list_webhooks(uow, account_id=account_id)
        return WebhookList(
            account_id=account_id, webhooks=[webhook_out(w) for w in webhooks], total=len(webhooks)
        )

    @delete(
        "/{webhook_id:int}",
        operation_id="deactivateWebhook",
        responses=answer(
            200, ResultOut, "Deactivated", {"success": True, "message": "Webhook 3 deactivated."}
        )
        | error_responses(400, 401, 404),
        status_code=200,
        summary="Deactivate a webhook registration",
        description=(
            "Deactivate one registration: it receives nothing more. Deactivating it again changes"
            " nothing (200). 404: no such registration of the account."
        ),
    )
    async def deactivate(
        self,
        request: Request[Any, Any, Any],
        webhook_id: WebhookId,
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> ResultOut:
        """Deactivate one registration: it receives nothing more. Deactivating it again changes nothing."""
        changed = await deactivate_webhook(
            uow, clock, account_id=principal_of(request).account_id, webhook_id=webhook_id
        )
        message = "deactivated" if changed else "was deactivated already"
        return ResultOut(success=True, message=f"Webhook {webhook_id} {message}.")

    @post(
        "/{webhook_id:int}/test",
        operation_id="testWebhook",
        responses=answer(
            200,
            TestEventOut,
            "What the receiver did",
            {"success": True, "statusCode": 204, "durationMs": 38, "error": None},
        )
        | error_responses(400, 401, 404, 503),
        status_code=200,
        summary="Send a test event",
    )
    async def test(
        self,
        request: Request[Any, Any, Any],
        webhook_id: WebhookId,
        *,
        probe: Injected[WebhookProbe | None],
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> TestEventOut:
        """Send, now, a signed ``{"type": "PING", "data": {"webhookId", "sentAt"}}`` to the
        registration's URL with its headers, once (never retried, not listed among the deliveries),
        and answer what the receiver did. 404 for an unknown or deactivated registration."""
        if probe is None:
            raise ServiceBusy(
                "Test events are sent by the notifier, which this process was not given: "
                "start the API with the `pixweb` command.",
                retry_after=60,
            )
        result = await send_test_event(
            uow,
            clock,
            probe,
            account_id=principal_of(request).account_id,
            webhook_id=webhook_id,
        )
        return TestEventOut(
            success=result.success,
            status_code=result.status_code,
            duration_ms=result.duration_ms,
            error=result.error,
        )


class WebhookSecretController(Controller):
    path = "/api/webhooks/secret"
    tags = ["Webhooks"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/",
        operation_id="getWebhookSecret",
        responses=answer(200, SecretOut, "The secret", _SECRET) | error_responses(401),
        summary="The signing secret",
        description=(
            "The account's `whsec_` signing secret (Standard Webhooks), created on first use."
            " `previousSecretValidUntil` is set while a rotated-out secret still signs too."
        ),
    )
    async def secret(
        self, request: Request[Any, Any, Any], *, clock: Injected[Clock], uow: Injected[UnitOfWorkFactory]
    ) -> SecretOut:
        """The account's ``whsec_`` signing secret (Standard Webhooks), created on first use.
        ``previousSecretValidUntil`` is set while a rotated-out secret still signs too."""
        secret = await get_webhook_secret(uow, clock, account_id=principal_of(request).account_id)
        return _secret_out(secret, clock.now())

    @post(
        "/rotate",
        operation_id="rotateWebhookSecret",
        responses=answer(
            200,
            SecretOut,
            "The new secret",
            _SECRET | {"previousSecretValidUntil": "2026-03-16T14:00:00.000Z"},
        )
        | error_responses(401),
        status_code=200,
        summary="Rotate the signing secret",
        description="A new signing secret. For 24 hours the previous one signs too (two signatures).",
    )
    async def rotate(
        self, request: Request[Any, Any, Any], *, clock: Injected[Clock], uow: Injected[UnitOfWorkFactory]
    ) -> SecretOut:
        """A new signing secret. For 24 hours the previous one signs too (two signatures)."""
        secret = await rotate_webhook_secret(uow, clock, account_id=principal_of(request).account_id)
        return _secret_out(secret, clock.now())


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
        responses=answer(
            200, DeliveryList, "The deliveries", {"accountId": 42, "deliveries": [_DELIVERY], "total": 1}
        )
        | error_responses(400, 401),
        summary="Recent webhook deliveries",
        description="The account's most recent deliveries, newest first, optionally of one status.",
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        *,
        uow: Injected[UnitOfWorkFactory],
        limit: Limit = DEFAULT_DELIVERY_LIMIT,
        status: Annotated[
            DeliveryStatus | None,
            QueryParameter(
                description="Only deliveries of this status: pending, delivered or failed.",
                examples=[Example(value="failed")],
            ),
        ] = None,
        webhook_id: Annotated[
            int | None,
            QueryParameter(
                name="webhookId", ge=1, le=2**63 - 1, description="Only the deliveries to this registration."
            ),
        ] = None,
        event_type: Annotated[
            EventType | None,
            QueryParameter(name="eventType", description="Only the deliveries of this registration type."),
        ] = None,
        start_date: Annotated[
            str | None,
            QueryParameter(
                name="startDate",
                max_length=40,
                schema_extra={"pattern": whole(DATE_PATTERN)},
                description="ISO 8601 date or date and time (UTC if naive), inclusive: created at or after.",
                examples=[Example(value="2026-11-01T00:00:00Z")],
            ),
        ] = None,
        end_date: Annotated[
            str | None,
            QueryParameter(
                name="endDate",
                max_length=40,
                schema_extra={"pattern": whole(DATE_PATTERN)},
                description="ISO 8601 date or date and time (UTC if naive), inclusive; a date alone means"
                " its whole day.",
                examples=[Example(value="2026-11-30")],
            ),
        ] = None,
    ) -> DeliveryList:
        """The account's most recent deliveries, newest first, narrowed by any of the filters
        (``startDate`` and ``endDate`` read as on ``GET /api/transactions``, without its default window)."""
        account_id = principal_of(request).account_id
        filters = delivery_filter(
            webhook_id=webhook_id,
            status=status,
            event_type=event_type,
            start_date=start_date,
            end_date=end_date,
        )
        deliveries = await list_deliveries(uow, account_id=account_id, limit=limit, filters=filters)
        return DeliveryList(
            account_id=account_id, deliveries=[delivery_out(d) for d in deliveries], total=len(deliveries)
        )

    @get(
        "/{delivery_id:int}",
        operation_id="getWebhookDelivery",
        responses=answer(
            200,
            DeliveryDetailOut,
            "The delivery, what was sent and every attempt",
            _DELIVERY
            | {
                "payload": {"type": "RECEIVE", "data": {"id": 118, "status": "LIQUIDATED"}},
                "attemptLog": [
                    {
                        "attemptedAt": "2026-03-15T14:40:52.010Z",
                        "statusCode": 204,
                        "durationMs": 41,
                        "error": None,
                        "responseBody": None,
                    }
                ],
            },
        )
        | error_responses(400, 401, 404),
        summary="One delivery, with what was sent and every attempt",
    )
    async def show(
        self, request: Request[Any, Any, Any], delivery_id: DeliveryId, *, uow: Injected[UnitOfWorkFactory]
    ) -> DeliveryDetailOut:
        """The delivery as listed, plus ``payload`` (the JSON object sent, exactly) and
        ``attemptLog``: each attempt in order (attempt logs are kept
        ``PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS`` days). 404 for an unknown id or another account's."""
        detail = await get_delivery_detail(
            uow, account_id=principal_of(request).account_id, delivery_id=delivery_id
        )
        return delivery_detail_out(detail)

    @post(
        "/{delivery_id:int}/replay",
        operation_id="replayWebhookDelivery",
        responses=answer(
            200,
            DeliveryOut,
            "The delivery, pending again",
            _DELIVERY
            | {
                "status": "pending",
                "attempts": 0,
                "nextAttemptAt": "2026-03-15T15:00:00.000Z",
                "finishedAt": None,
            },
        )
        | error_responses(400, 401, 404, 422),
        status_code=200,
        summary="Replay a webhook delivery",
        description=(
            "Send a delivered or failed delivery again, now, with a fresh retry schedule and the same"
            " `webhook-id`. 409: it is still pending; 422: its registration is deactivated."
        ),
    )
    async def replay(
        self,
        request: Request[Any, Any, Any],
        delivery_id: DeliveryId,
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> DeliveryOut:
        """Attempt a delivery now, with the same ``webhook-id``: a delivered or failed one with a
        fresh retry schedule, a pending one (waiting for its next retry) at once, its attempts kept.
        422 if its registration is deactivated."""
        delivery = await replay_delivery(
            uow, clock, account_id=principal_of(request).account_id, delivery_id=delivery_id
        )
        return delivery_out(delivery)
