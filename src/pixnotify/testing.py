"""``FakeReceiver``: the notifier's :class:`~pixnotify.client.Client` port in memory, for unit tests.

Each POST is handed to a handler, which returns a :class:`Reply` (or an awaitable of one: it may
wait, as a slow receiver does) or raises one of the client's errors
(:class:`~pixnotify.client.ConnectFailed`, :class:`~pixnotify.client.TimedOut`...), as
:class:`~pixnotify.transport.WebhookClient` raises them for a failure of the receiver's side. The
receiver keeps every request (:attr:`FakeReceiver.requests`), the ones that failed too; a URL the
real client cannot send to is refused the same way (:class:`~pixnotify.client.InvalidURL`).

What the fake does not do is the network's: addresses, TLS, timeouts per phase, HTTP parsing.
``tests/unit/notifier/test_webhook_client.py`` runs those on the real client against local servers.

    >>> receiver = FakeReceiver(lambda request: Reply(204))
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Self

from pixnotify.client import Answer, destination

__all__ = ["FakeReceiver", "Handler", "Reply", "Request"]


@dataclass(frozen=True, slots=True)
class Request:
    """A POST as the client was asked to send it."""

    url: str
    content: bytes
    sent_headers: tuple[tuple[str, str], ...]

    @property
    def path(self) -> str:
        return destination(self.url).request.path

    @property
    def headers(self) -> dict[str, str]:
        """The headers by lower-case name (the last value of a repeated one)."""
        return {name.lower(): value for name, value in self.sent_headers}

    def values(self, name: str) -> list[str]:
        """Every value sent under ``name`` (any case), in order."""
        return [value for sent, value in self.sent_headers if sent.lower() == name.lower()]


@dataclass(frozen=True, slots=True)
class Reply:
    """What the receiver answers: the status, headers and the body (one chunk)."""

    status: int
    body: bytes = b"ok"
    headers: Mapping[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Reply | Awaitable[Reply]]


class FakeReceiver:
    """A :class:`~pixnotify.client.Client` whose receiver is ``handler``; an async context manager
    (``closed`` once left, or after :meth:`aclose`)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self.closed = False

    @asynccontextmanager
    async def post(self, url: str, body: bytes, headers: Sequence[tuple[str, str]]) -> AsyncIterator[Answer]:
        destination(url)
        request = Request(url, body, tuple(headers))
        self.requests.append(request)
        reply = self.handler(request)
        if inspect.isawaitable(reply):
            reply = await reply
        by_name = {name.lower(): value for name, value in reply.headers.items()}
        yield Answer(reply.status, lambda name: by_name.get(name.lower()), _chunks(reply.body))

    async def aclose(self) -> None:
        self.closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    if body:
        yield body
