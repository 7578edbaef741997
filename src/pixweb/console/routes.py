"""The console's routes under ``/console`` (and ``/`` sending there), its templates and its static
files. ``create_app`` mounts them when ``PIX_CONSOLE`` is on."""

from __future__ import annotations

from pathlib import Path

from litestar import Router, get
from litestar.datastructures import ResponseHeader
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect
from litestar.static_files import create_static_files_router
from litestar.template.config import TemplateConfig
from litestar.types import ControllerRouterHandler

from pixcore.errors import PixError
from pixweb.console.charges import cancel, charge_detail, charge_qr, charges, create, pay
from pixweb.console.money_forms import receive, receive_form, send, send_form
from pixweb.console.pages import overview, transaction_detail, transactions
from pixweb.console.refunds import cash_in, cash_in_form, refund, refund_detail, refunds
from pixweb.console.sandbox import add_key, advance_clock, decide_med, new_med, sandbox
from pixweb.console.signin import sign_in, sign_in_form, sign_out
from pixweb.console.switch import switch_language
from pixweb.console.templating import console_environment
from pixweb.console.web import CONTENT_SECURITY_POLICY, before_console_request, console_exception
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

__all__ = ["CONSOLE_PATHS", "console_handlers", "console_templates"]

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
            charges,
            create,
            charge_detail,
            charge_qr,
            cancel,
            pay,
            send_form,
            send,
            receive_form,
            receive,
            refunds,
            refund,
            refund_detail,
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
        ],
        before_request=before_console_request,
        exception_handlers={PixError: console_exception},
        response_headers=_HEADERS,
    )
    files = create_static_files_router(
        path="/static", directories=[HERE / "static"], include_in_schema=False, name="console:static"
    )
    static = Router(path="/console", route_handlers=[files], response_headers=_HEADERS)
    return [root, pages, static]
