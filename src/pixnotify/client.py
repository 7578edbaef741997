"""What the notifier sends with: the :class:`Client` port, the :class:`Answer` it hands over, and
the errors it raises when there is no answer.

The notifier's client is :class:`pixnotify.transport.WebhookClient` (aiohttp); unit tests give a
:class:`pixnotify.testing.FakeReceiver` instead. Either raises only the errors below for a failure
of the receiver's side, the error under them (an ``ssl`` or ``OSError``, aiohttp's) kept as their
``__cause__``; :func:`pixnotify.failures.describe_error` turns them into the attempt log's words.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

import yarl

__all__ = [
    "AddressRefused",
    "Answer",
    "Client",
    "ConnectFailed",
    "ConnectionClosed",
    "DeliveryError",
    "Destination",
    "InvalidAnswer",
    "InvalidURL",
    "TLSFailed",
    "TimedOut",
    "destination",
]


class DeliveryError(Exception):
    """An attempt got no answer. ``label``: how the attempt log names an error it has no better
    words for (``<label> with host:port: <message>``)."""

    label = "TransportError"


class ConnectFailed(DeliveryError):
    """No connection was made (refused, unreachable, a name that does not resolve): nothing was
    sent, so :func:`pixnotify.sender.post` tries again within the attempt."""

    label = "ConnectError"


class TLSFailed(ConnectFailed):
    """The TLS handshake failed (a certificate that does not verify, a receiver's alert): the
    ``ssl`` module's error is the cause."""


Phase = Literal["connect", "read"]


class TimedOut(DeliveryError):
    """A phase of the attempt took longer than the notifier's timeout: ``connect`` (resolving,
    connecting, the TLS handshake, a free connection) or ``read`` (waiting for the answer)."""

    def __init__(self, phase: Phase, message: str) -> None:
        super().__init__(message)
        self.phase: Phase = phase


class ConnectionClosed(DeliveryError):
    """The connection broke before the whole answer arrived (closed, reset, a TLS alert read with
    the answer)."""

    label = "ReadError"


class InvalidAnswer(DeliveryError):
    """The receiver's bytes are not an HTTP/1.1 answer (a bad status line, a 204 followed by a
    body): the message is the parser's."""


class InvalidURL(DeliveryError):
    """The URL cannot be sent to: it does not parse, is not ``http``/``https``, or has no host."""


class AddressRefused(DeliveryError):
    """The receiver's host is, or resolves to, an address it may not be sent to: a non-public one
    (``PIX_WEBHOOK_ALLOW_PRIVATE`` off), or a public one over plain ``http://``."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A receiver's answer as a client hands it over: the status, a header by name (any case),
    and the body's chunks as they arrive (raw: not decompressed)."""

    status: int
    header: Callable[[str], str | None]
    chunks: AsyncIterator[bytes]


class Client(Protocol):
    """What an attempt is sent with. ``post`` raises :class:`DeliveryError` (a subclass) for a
    failure of the receiver's side, reading the body included; the answer is released on leaving."""

    def post(
        self, url: str, body: bytes, headers: Sequence[tuple[str, str]]
    ) -> AbstractAsyncContextManager[Answer]: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a URL sends to: its scheme, host (lower case, IPv6 without brackets), port, and the
    URL as it goes on the wire (``request``)."""

    scheme: str
    host: str
    port: int
    request: yarl.URL


# Percent-encoded in a request's path and query (WHATWG's path and query percent-encode sets, as
# far as printable ASCII goes: what a registered URL is made of); '%' and every other character
# is sent as written.
_PATH_QUOTED = str.maketrans({'"': "%22", "<": "%3C", ">": "%3E", "`": "%60", "{": "%7B", "}": "%7D"})
_QUERY_QUOTED = str.maketrans({'"': "%22", "<": "%3C", ">": "%3E"})


def _without_dot_segments(path: str) -> str:
    """``path`` without its ``.`` and ``..`` segments (RFC 3986, 5.2.4)."""
    if "." not in path:
        return path
    segments = path.split("/")
    if "." not in segments and ".." not in segments:
        return path
    kept: list[str] = []
    for segment in segments:
        if segment == "..":
            if kept and kept != [""]:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    return "/".join(kept)


def destination(url: str) -> Destination:
    """Parse ``url`` (:class:`InvalidURL` if it cannot be sent to)."""
    try:
        parsed = yarl.URL(url, encoded=True)
    except (ValueError, TypeError) as exc:
        raise InvalidURL(str(exc)) from None
    if parsed.scheme not in ("http", "https"):
        raise InvalidURL(f"Request URL has an unsupported protocol '{parsed.scheme}://'.")
    if not parsed.host or parsed.host_subcomponent is None:
        raise InvalidURL("Request URL is missing a host.")
    try:
        request = yarl.URL.build(
            scheme=parsed.scheme,
            host=parsed.host_subcomponent.lower(),
            port=parsed.explicit_port,
            path=_without_dot_segments(parsed.raw_path.translate(_PATH_QUOTED)),
            query_string=parsed.raw_query_string.translate(_QUERY_QUOTED),
            encoded=True,
        )
    except (ValueError, TypeError) as exc:
        raise InvalidURL(str(exc)) from None
    port = parsed.explicit_port or (443 if parsed.scheme == "https" else 80)
    return Destination(parsed.scheme, parsed.host, port, request)
