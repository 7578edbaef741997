"""Every HTTP request gets an id, a latency observation and one access log line.

:class:`RequestObserver` is a plain ASGI middleware placed around the whole Litestar app
(outside its routing), so that it sees every response: errors, unknown routes and wrong methods
included. The id is the client's ``X-Request-Id`` when that is a sane token (1 to 128 visible
ASCII characters), otherwise a new one (a UUID4 in hex); it is set in :data:`REQUEST_ID` for the
logs while the request runs and returned in the ``X-Request-Id`` response header.

The access log line (logger ``pixweb.access``, INFO) carries the method, the route template, the
status, the duration in milliseconds, the request id and, once authenticated, the account id.
Never a header value, a query string or a body.
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any

from litestar.enums import ScopeType

from pixinfra.logs import REQUEST_ID

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Message, Receive, Scope, Send

    from pixweb.observability.metrics import Metrics

__all__ = ["HEADER", "UNMATCHED", "RequestObserver", "new_request_id", "request_id_from"]

log = logging.getLogger("pixweb.access")

HEADER = b"x-request-id"
UNMATCHED = "unmatched"  # the route label of a request that matched no route
_SANE = re.compile(rb"[\x21-\x7e]{1,128}")


def new_request_id() -> str:
    """A random UUID4 in hex; ``uuid.uuid4().hex`` is the same, at twice the cost."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC 4122 variant
    return raw.hex()


def request_id_from(headers: Any) -> str:
    """The client's request id if it is a sane token, else a new one."""
    for name, value in headers:
        if name == HEADER:
            if _SANE.fullmatch(value):
                return str(value.decode("ascii"))
            break
    return new_request_id()


class RequestObserver:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(scope["headers"])
        echoed = (HEADER, request_id.encode("ascii"))
        status = 500  # if the app fails without answering, the server answers 500
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != HEADER]
                headers.append(echoed)
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            self._observe(scope, status, seconds)
            REQUEST_ID.reset(token)

    def _observe(self, scope: Scope, status: int, seconds: float) -> None:
        method = str(scope.get("method", ""))
        route = str(scope.get("path_template") or UNMATCHED)  # set by Litestar's router once a route matched
        self.metrics.observe_request(method, route, status, seconds)
        if log.isEnabledFor(logging.INFO):
            user = scope.get("user")
            log.info(
                "%s %s %d",
                method,
                route,
                status,
                extra={
                    "method": method,
                    "route": route,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                    "account_id": getattr(user, "account_id", None),
                },
            )
