"""``PUT/GET/DELETE /webhookrec`` and ``/webhookcobr``: the account's webhook of its recurrences
and of its recurring charges, one of each. Notifications go to ``{webhookUrl}/rec`` and
``{webhookUrl}/cobr`` (the document's callbacks), signed and retried as every delivery is."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, put
from litestar.handlers import HTTPRouteHandler

from pixcore.clock import Clock, format_timestamp
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.ports import HostResolver
from pixcore.webhooks.recurring_webhook_service import (
    RecurringWebhookField,
    delete_recurring_webhook,
    parse_recurring_webhook,
    read_recurring_webhook,
    set_recurring_webhook,
)
from pixcore.webhooks.rules import EventType
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import json_body
from pixweb.field_paths import wire_paths
from pixweb.recurrences.schemas import RecurringWebhookIn, RecurringWebhookOut
from pixweb.wire import PixResponse

__all__ = ["RecurrenceWebhookController", "RecurringChargeWebhookController"]

WEBHOOK_PATHS = wire_paths({RecurringWebhookField.URL: "webhookUrl"})
_URL = "https://receiver.example.com/api/webhook"


def _handlers(kind: EventType) -> tuple[HTTPRouteHandler, HTTPRouteHandler, HTTPRouteHandler]:
    """The ``PUT``, ``GET`` and ``DELETE`` of the webhook of ``kind`` (``rec`` or ``cobr``)."""
    name = "Recurrence" if kind is EventType.REC else "RecurringCharge"

    @put("/", operation_id=f"set{name}Webhook", status_code=200, summary=f"Set the webhook of {kind.value}")
    async def set_webhook(
        self: Controller,  # noqa: ARG001 - a controller's handler is called as its method
        request: Request[Any, Any, Any],
        data: Annotated[RecurringWebhookIn, json_body("The webhook.", {"webhookUrl": _URL})],
        *,
        clock: Injected[Clock],
        resolver: Injected[HostResolver],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[bytes]:
        allow = settings.webhook_allow_private
        await set_recurring_webhook(
            uow,
            clock,
            resolver,
            account_id=principal_of(request).account_id,
            request=parse_recurring_webhook(kind, webhook_url=data.webhook_url, allow_http=allow),
            allow_private=allow,
        )
        return Response(b"", status_code=200)  # the document's 200 has no body

    @get("/", operation_id=f"get{name}Webhook", summary=f"Read the webhook of {kind.value}")
    async def read_webhook(
        self: Controller,  # noqa: ARG001
        request: Request[Any, Any, Any],
        *,
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecurringWebhookOut]:
        webhook = await read_recurring_webhook(uow, account_id=principal_of(request).account_id, kind=kind)
        url = webhook.webhook_url or webhook.url
        return PixResponse(RecurringWebhookOut(webhook_url=url, criacao=format_timestamp(webhook.created_at)))

    @delete(
        "/",
        operation_id=f"delete{name}Webhook",
        status_code=204,
        summary=f"Delete the webhook of {kind.value}",
    )
    async def delete_webhook(
        self: Controller,  # noqa: ARG001
        request: Request[Any, Any, Any],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> None:
        await delete_recurring_webhook(uow, clock, account_id=principal_of(request).account_id, kind=kind)

    return set_webhook, read_webhook, delete_webhook


class RecurrenceWebhookController(Controller):
    path = "/webhookrec"
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    set_webhook, read_webhook, delete_webhook = _handlers(EventType.REC)


class RecurringChargeWebhookController(Controller):
    path = "/webhookcobr"
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    set_webhook, read_webhook, delete_webhook = _handlers(EventType.COBR)
