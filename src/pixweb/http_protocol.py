"""The HTTP/1.1 protocol ``pixweb serve`` runs: uvicorn's httptools one, with a cap on a request's
head and the parser's own refusals in the error shape (docs/operations.md, "Limits at the edge").

The head (request line and headers) is parsed before the app sees anything, so no ASGI middleware
can bound it; httptools itself has no limit (uvicorn's ``h11_max_incomplete_event_size`` is for
its h11 protocol only, which costs about 1.8 times the CPU a request: docs/performance.md). Here
:meth:`LimitedHttpToolsProtocol.data_received` counts the bytes fed to the parser while a head is
open: once ``PIX_MAX_HEADER_BYTES`` of them have not finished it, the answer is a 431 and the
connection is closed without reading more (after :data:`LINGER` seconds half-closed, so that a
client still sending can read the answer).
The cost on every read is an addition and a comparison.

The parser's refusals (a malformed request line or header, raw bytes outside ASCII in the path
or query) are a plain-text 400 in uvicorn; :meth:`LimitedHttpToolsProtocol.send_400_response`
answers them in the error shape. Both close the connection: the request never reached the app, so
it has no request id, no metrics and no access-log line (a warning of ``pixweb.http`` for the cap,
uvicorn's "Invalid HTTP request received." for the parser's refusal).
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from typing import Any

import msgspec
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from pixinfra.settings import get_settings
from pixweb.errors import ErrorBody

__all__ = ["MALFORMED", "LimitedHttpToolsProtocol", "error_bytes"]

log = logging.getLogger("pixweb.http")

LINGER = 2.0  # seconds a refused connection stays half-closed before it is closed, unread

MALFORMED = (
    "Invalid request: the request line or a header is not valid HTTP/1.1"
    " (bytes outside ASCII in the path or query must be percent-encoded)."
)


def error_bytes(status: int, message: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A whole HTTP/1.1 response of the error shape with ``status``, closing the connection."""
    phrase = HTTPStatus(status).phrase
    body = msgspec.json.encode(ErrorBody(status_code=status, message=message, error=phrase))
    lines = [f"HTTP/1.1 {status} {phrase}".encode("ascii")]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [b"content-type: application/json", b"content-length: %d" % len(body), b"connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with the head of each request capped at
    ``PIX_MAX_HEADER_BYTES`` (431) and its 400 in the error shape."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.head_limit = get_settings().max_header_bytes
        self.in_head = True  # reading a request line and headers (not a body)
        self.head_room = self.head_limit  # bytes the open head may still take

    def data_received(self, data: bytes) -> None:
        if self.in_head and len(data) > self.head_room:
            self.feed_past_the_cap(data)
            return
        if self.in_head:
            self.head_room -= len(data)
        super().data_received(data)

    def feed_past_the_cap(self, data: bytes) -> None:
        """A read that would take the open head past the cap: feed what fits, then refuse the
        request if its head has not ended, or go on with the rest (a body, the next request)."""
        fits, self.head_room = self.head_room, 0
        super().data_received(data[:fits])
        if self.transport.is_closing():
            return
        if self.in_head:
            self.refuse_head()
        else:
            self.data_received(data[fits:])

    def on_headers_complete(self) -> None:
        self.in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # The next bytes are the next request's head. (Those of it that came in the same read as
        # the end of this request are not counted: the cap is exceeded by one read at most.)
        self.in_head = True
        self.head_room = self.head_limit

    def refuse_head(self) -> None:
        log.warning(
            "a request head over %d bytes (PIX_MAX_HEADER_BYTES) refused, from %s",
            self.head_limit,
            self.client,
        )
        message = f"The request line and headers together exceed {self.head_limit} bytes."
        # Closed at once, the socket would be reset (the client is still sending, unread bytes wait)
        # and the client might lose the answer: stop reading, answer, half-close, close a little later.
        self.transport.pause_reading()
        self.transport.write(error_bytes(431, message, self.server_state.default_headers))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER, self.transport.close)

    def send_400_response(self, msg: str) -> None:  # noqa: ARG002 - uvicorn's text, replaced
        """What uvicorn calls when the parser refuses a request (``msg`` is its plain text)."""
        self.transport.write(error_bytes(400, MALFORMED, self.server_state.default_headers))
        self.transport.close()
