"""Webhooks: register, list, deactivate, the signing secret (reveal, rotate), the deliveries
with their payload and attempts, replay, and a test event. The same use cases as
``/api/webhooks`` (``pixweb.webhooks.webhooks``)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, QueryParameter

from pixcore.clock import Clock
from pixcore.errors import InvalidWebhook, PixError, ValidationError
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.ports import HostResolver, ProbeResult, WebhookProbe
from pixcore.webhooks.rules import REGISTRABLE, DeliveryStatus, EventType, Registration
from pixcore.webhooks.webhook_service import (
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
from pixinfra.event_payloads import end_to_end_id_of
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.console.web import FormErrors, account_of, language_of, missing_fields, page, redirect
from pixweb.errors import status_of
from pixweb.webhooks.webhooks import delivery_detail_out, delivery_out, webhook_out

__all__ = [
    "deactivate",
    "deliveries",
    "delivery",
    "register",
    "replay",
    "reveal_secret",
    "rotate_secret",
    "test_event",
    "webhooks",
]

REGISTER_FIELDS = {"url": ("url",), "event_type": ("eventType",), "headers": ("headers",)}
FILTER_FIELDS = {
    "webhookId": ("webhookId",),
    "status": ("status",),
    "eventType": ("eventType",),
    "endToEndId": ("e2eid", "endToEndId"),
}
LISTED = 50
Query = Annotated[str | None, QueryParameter(max_length=40)]


def _text(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def header_lines(text: str) -> list[tuple[str, str]]:
    """``Name: value`` per line (blank lines skipped); a line without a colon is a name with
    an empty value, for the header rules to refuse with their own words."""
    pairs = []
    for line in text.splitlines():
        if not line.strip():
            continue
        name, _, value = line.partition(":")
        pairs.append((name.strip(), value.strip()))
    return pairs


async def _webhooks_page(
    request: Request[Any, Any, Any],
    uow: UnitOfWorkFactory,
    settings: Settings,
    probe: WebhookProbe | None,
    *,
    typed: dict[str, str] | None = None,
    errors: FormErrors | None = None,
    status_code: int = 200,
    secret: str | None = None,
    notice: str | None = None,
    notice_kind: str = "success",
    test: tuple[int, ProbeResult] | None = None,
) -> Response[Any]:
    listed = await list_webhooks(uow, account_id=account_of(request))
    return page(
        request,
        "webhooks.html",
        status_code=status_code,
        title=language_of(request).gettext("Webhooks"),
        webhooks=[webhook_out(webhook) for webhook in listed],
        typed=typed or {"url": "", "event_type": EventType.CASH_IN.value, "headers": ""},
        errors=errors or FormErrors(),
        event_types=[kind.value for kind in REGISTRABLE],
        secret=secret,
        notice=notice,
        notice_kind=notice_kind,
        test=test,
        can_test=probe is not None,
        allow_http=settings.webhook_allow_private,
    )


@get("/webhooks", name="console:webhooks", include_in_schema=False)
async def webhooks(
    request: Request[Any, Any, Any],
    *,
    uow: Injected[UnitOfWorkFactory],
    settings: Injected[Settings],
    probe: Injected[WebhookProbe | None],
) -> Response[Any]:
    return await _webhooks_page(request, uow, settings, probe)


@post("/webhooks", name="console:webhook-register", include_in_schema=False, status_code=200)
async def register(
    request: Request[Any, Any, Any],
    *,
    resolver: Injected[HostResolver],
    probe: Injected[WebhookProbe | None],
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    form = await request.form()
    raw_headers = form.get("headers")
    typed = {
        "url": _text(form, "url"),
        "event_type": _text(form, "event_type"),
        "headers": raw_headers if isinstance(raw_headers, str) else "",
    }
    if missing := missing_fields(typed, ("url",)):
        return await _webhooks_page(
            request, uow, settings, probe, typed=typed, errors=missing, status_code=400
        )
    try:
        registration = Registration.parse(
            url=typed["url"],
            event_type=typed["event_type"],
            headers=header_lines(typed["headers"]),
            allow_http=settings.webhook_allow_private,
        )
        registered = await register_webhook(
            uow,
            clock,
            resolver,
            account_id=account_of(request),
            registration=registration,
            allow_private=settings.webhook_allow_private,
        )
    except PixError as exc:
        errors = FormErrors(exc, REGISTER_FIELDS, {InvalidWebhook: "url"})
        return await _webhooks_page(
            request, uow, settings, probe, typed=typed, errors=errors, status_code=status_of(exc)
        )
    webhook, lang = registered.webhook, language_of(request)
    if registered.created:
        notice = lang.gettext(
            "Webhook %(id)s registered for %(event)s.", id=webhook.id, event=webhook.event_type
        )
    else:
        notice = lang.gettext(
            "Webhook %(id)s updated for %(event)s: version %(version)s.",
            id=webhook.id,
            event=webhook.event_type,
            version=webhook.version,
        )
    return await _webhooks_page(request, uow, settings, probe, notice=notice)


@post(
    "/webhooks/{webhook_id:int}/deactivate",
    name="console:webhook-deactivate",
    include_in_schema=False,
    status_code=200,
)
async def deactivate(
    request: Request[Any, Any, Any],
    webhook_id: FromPath[int],
    *,
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    account_id = account_of(request)
    await deactivate_webhook(uow, clock, account_id=account_id, webhook_id=webhook_id)
    return redirect(request, "/console/webhooks")


@post(
    "/webhooks/{webhook_id:int}/test", name="console:webhook-test", include_in_schema=False, status_code=200
)
async def test_event(
    request: Request[Any, Any, Any],
    webhook_id: FromPath[int],
    *,
    settings: Injected[Settings],
    probe: Injected[WebhookProbe | None],
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The API's test event; without a notifier handed to the app the page says so (503)."""
    if probe is None:
        return await _webhooks_page(
            request,
            uow,
            settings,
            probe,
            status_code=503,
            notice=language_of(request).gettext("Test events are unavailable: this process has no notifier."),
            notice_kind="error",
        )
    result = await send_test_event(uow, clock, probe, account_id=account_of(request), webhook_id=webhook_id)
    return await _webhooks_page(request, uow, settings, probe, test=(webhook_id, result))


@post("/webhooks/secret", name="console:webhook-secret", include_in_schema=False, status_code=200)
async def reveal_secret(
    request: Request[Any, Any, Any],
    *,
    settings: Injected[Settings],
    probe: Injected[WebhookProbe | None],
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The secret is shown on demand, in the answer to a form (never in a URL)."""
    secret = await get_webhook_secret(uow, clock, account_id=account_of(request))
    return await _webhooks_page(request, uow, settings, probe, secret=secret.secret)


@post("/webhooks/secret/rotate", name="console:webhook-rotate", include_in_schema=False, status_code=200)
async def rotate_secret(
    request: Request[Any, Any, Any],
    *,
    settings: Injected[Settings],
    probe: Injected[WebhookProbe | None],
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    secret = await rotate_webhook_secret(uow, clock, account_id=account_of(request))
    return await _webhooks_page(
        request,
        uow,
        settings,
        probe,
        secret=secret.secret,
        notice=language_of(request).gettext("A new signing secret: for 24 hours the previous one signs too."),
    )


def _delivery_filters(given: dict[str, str]) -> dict[str, Any]:
    """The list's filters as ``GET /api/webhooks/deliveries`` reads them, each problem named by
    its query parameter."""
    problems = []
    webhook_id: int | None = None
    status: DeliveryStatus | None = None
    event_type: EventType | None = None
    if text := given.get("webhookId"):
        if text.isascii() and text.isdigit():
            webhook_id = int(text)
        else:
            problems.append("webhookId: must be a whole number")
    if text := given.get("status"):
        try:
            status = DeliveryStatus(text)
        except ValueError:
            problems.append(f"status: must be one of {', '.join(s.value for s in DeliveryStatus)}")
    if text := given.get("eventType"):
        try:
            event_type = EventType(text)
        except ValueError:
            problems.append(f"eventType: must be one of {', '.join(t.value for t in EventType)}")
    if problems:
        raise ValidationError("Invalid filters: " + "; ".join(problems), details=problems)
    e2e = given.get("endToEndId")
    return {"webhook_id": webhook_id, "status": status, "event_type": event_type, "end_to_end_id": e2e}


@get("/webhooks/deliveries", name="console:webhook-deliveries", include_in_schema=False)
async def deliveries(
    request: Request[Any, Any, Any],
    *,
    uow: Injected[UnitOfWorkFactory],
    webhook_id: Annotated[str | None, QueryParameter(name="webhookId", max_length=40)] = None,
    status: Query = None,
    event_type: Annotated[str | None, QueryParameter(name="eventType", max_length=40)] = None,
    end_to_end_id: Annotated[str | None, QueryParameter(name="endToEndId", max_length=40)] = None,
) -> Response[Any]:
    raw = {"webhookId": webhook_id, "status": status, "eventType": event_type, "endToEndId": end_to_end_id}
    given = {name: value for name, value in raw.items() if value}
    context: dict[str, Any] = {
        "title": language_of(request).gettext("Webhook deliveries"),
        "filters": given,
        "delivery_states": [s.value for s in DeliveryStatus],
        "event_types": [t.value for t in EventType],
    }
    try:
        filters = delivery_filter(**_delivery_filters(given))
    except PixError as exc:
        return page(
            request,
            "deliveries.html",
            status_code=status_of(exc),
            errors=FormErrors(exc, FILTER_FIELDS),
            rows=None,
            **context,
        )
    found = await list_deliveries(uow, account_id=account_of(request), limit=LISTED, filters=filters)
    return page(
        request,
        "deliveries.html",
        errors=FormErrors(),
        rows=[delivery_out(item) for item in found],
        listed=LISTED,
        **context,
    )


@get("/webhooks/deliveries/{delivery_id:int}", name="console:webhook-delivery", include_in_schema=False)
async def delivery(
    request: Request[Any, Any, Any], delivery_id: FromPath[int], *, uow: Injected[UnitOfWorkFactory]
) -> Response[Any]:
    """``GET /api/webhooks/deliveries/{id}``: the payload as sent and every attempt."""
    detail = delivery_detail_out(
        await get_delivery_detail(uow, account_id=account_of(request), delivery_id=delivery_id)
    )
    payload = {"type": detail.payload.type, "data": detail.payload.data}
    return page(
        request,
        "delivery.html",
        title=language_of(request).gettext("Delivery %(id)s", id=detail.id),
        item=detail,
        about=end_to_end_id_of(payload),
        payload=json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=True, default=str),
    )


@post(
    "/webhooks/deliveries/{delivery_id:int}/replay",
    name="console:webhook-replay",
    include_in_schema=False,
    status_code=200,
)
async def replay(
    request: Request[Any, Any, Any],
    delivery_id: FromPath[int],
    *,
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    account_id = account_of(request)
    await replay_delivery(uow, clock, account_id=account_id, delivery_id=delivery_id)
    return redirect(request, f"/console/webhooks/deliveries/{delivery_id}")
