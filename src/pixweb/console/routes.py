"""The console's routes under ``/console`` (and ``/`` sending there), its templates and its static
files. ``create_app`` mounts them when ``PIX_CONSOLE`` is on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Response, Router, get, route
from litestar.datastructures import ResponseHeader
from litestar.enums import ScopeType
from litestar.exceptions import ValidationException
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect
from litestar.static_files import create_static_files_router
from litestar.template.config import TemplateConfig
from litestar.types import ASGIApp, ControllerRouterHandler, Message, Receive, Scope, Send

from pixcore.errors import NotFound, PixError
from pixweb.console.charges import cancel, charge_detail, charge_live, charge_qr, charges, create, pay
from pixweb.console.money_forms import receive, receive_form, send, send_form
from pixweb.console.pages import overview, transaction_detail, transaction_live, transactions
from pixweb.console.recurrences import recurrence_detail, recurrences
from pixweb.console.refunds import cash_in, cash_in_form, refund, refund_detail, refund_live, refunds
from pixweb.console.sandbox import add_key, advance_clock, decide_med, new_med, sandbox
from pixweb.console.search import search
from pixweb.console.signin import sign_in, sign_in_form, sign_out
from pixweb.console.switch import switch_language
from pixweb.console.templating import console_environment
from pixweb.console.web import (
    CONTENT_SECURITY_POLICY,
    before_console_request,
    console_exception,
    console_refusal,
)
from pixweb.console.webhooks import (
    deactivate,
    deliveries,
    delivery,
    register,
    replay,
    reveal_secret,
    rotate_secret,
    test_event,
    webhooks,
)

__all__ = ["CONSOLE_PATHS", "ConsoleNotFound", "console_handlers", "console_templates"]

HERE = Path(__file__).parent
CONSOLE_PATHS = ["^/console", "^/$"]
"""What the bearer-token gate leaves to the console's own session."""

_HEADERS = [
    ResponseHeader(name="Content-Security-Policy", value=CONTENT_SECURITY_POLICY),
    ResponseHeader(name="X-Content-Type-Options", value="nosniff"),
    ResponseHeader(name="Referrer-Policy", value="same-origin"),
    ResponseHeader(name="X-Frame-Options", value="DENY"),
]


@get("/", include_in_schema=False, name="console:root")
async def root() -> Redirect:
    return Redirect(path="/console", status_code=302)


@route(
    "/{rest:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    name="console:unknown",
    include_in_schema=False,
)
async def unknown() -> Response[Any]:
    """Any other ``/console`` path: the console's own "not found" page, in its layout (the
    signed-out go to sign in first, as everywhere in the console)."""
    raise NotFound("There is no such page in the console.")


STATIC = "/console/static/"
"""Files, not pages: a missing one is the API's plain 404."""
NOT_FOUND = "/console/not-found"
"""A path no page has: :func:`unknown` answers it."""


class ConsoleNotFound:
    """ASGI: a console path that no route matches gets the console's "not found" page, not the
    API's JSON. The router finds no route for ``/console/transactions/1/more`` (a deeper path under
    a known page) before :func:`unknown`'s catch-all could match it, so such a 404 is asked again
    as ``GET /console/not-found``, which :func:`unknown` answers with the browser's session.
    A missing static file stays the API's 404: a browser asks for it from a page, not to read it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"] if scope["type"] == ScopeType.HTTP else NOT_FOUND
        if not path.startswith("/console/") or path.startswith(STATIC) or path == NOT_FOUND:
            await self.app(scope, receive, send)
            return
        unrouted = False

        async def watch(message: Message) -> None:
            nonlocal unrouted
            if message["type"] == "http.response.start" and message["status"] == 404:
                kind = dict(message["headers"]).get(b"content-type", b"")
                unrouted = not kind.startswith(b"text/html")  # the console's own 404s are pages
            if not unrouted:
                await send(message)

        await self.app(scope, receive, watch)
        if unrouted:
            again = {
                **scope,
                "method": "GET",
                "path": NOT_FOUND,
                "raw_path": NOT_FOUND.encode(),
                "query_string": b"",
            }
            await self.app(again, receive, send)  # type: ignore[arg-type]


def console_templates() -> TemplateConfig[JinjaTemplateEngine]:
    """The console's templates (``pixweb.console.templating``: compiled once, in the request's language)."""
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(console_environment()))


def console_handlers() -> list[ControllerRouterHandler]:
    pages = Router(
        path="/console",
        route_handlers=[
            overview,
            transactions,
            transaction_detail,
            transaction_live,
            search,
            charges,
            create,
            charge_detail,
            charge_live,
            charge_qr,
            cancel,
            pay,
            recurrences,
            recurrence_detail,
            send_form,
            send,
            receive_form,
            receive,
            refunds,
            refund,
            refund_detail,
            refund_live,
            cash_in_form,
            cash_in,
            sandbox,
            add_key,
            new_med,
            decide_med,
            advance_clock,
            webhooks,
            register,
            deactivate,
            test_event,
            reveal_secret,
            rotate_secret,
            deliveries,
            delivery,
            replay,
            sign_in_form,
            sign_in,
            sign_out,
            switch_language,
            unknown,
        ],
        before_request=before_console_request,
        exception_handlers={PixError: console_exception, ValidationException: console_refusal},
        response_headers=_HEADERS,
    )
    files = create_static_files_router(
        path="/static", directories=[HERE / "static"], include_in_schema=False, name="console:static"
    )
    static = Router(path="/console", route_handlers=[files], response_headers=_HEADERS)
    return [root, pages, static]
