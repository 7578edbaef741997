"""A real HTTP receiver for webhook tests: HTTP/1.1 with keep-alive on 127.0.0.1, an ephemeral port.

It records every request as it arrives (before answering) and answers each path as planned:
a list of :class:`Reply`, used in turn, the last one repeated (200 when nothing is planned).
A reply may be held until an event is set, to stand for a slow receiver.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from standardwebhooks import Webhook

REASONS = {200: "OK", 204: "No Content", 302: "Found", 410: "Gone", 429: "Too Many Requests", 500: "Error"}


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    hold: asyncio.Event | None = None  # answer only once this is set


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    def verify(self, secret: str) -> object:
        """The event, if the signature verifies with ``secret`` (raises otherwise)."""
        return Webhook(secret).verify(self.body, self.headers)


@dataclass
class Receiver:
    plan: dict[str, list[Reply]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    port: int = 0
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def at(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]

    async def wait_for(self, count: int, path: str | None = None, *, within: float = 30.0) -> None:
        """Until ``count`` requests (to ``path``, or any) have arrived; fails after ``within`` seconds."""

        def enough() -> bool:
            return len(self.at(path) if path else self.received) >= count

        async with asyncio.timeout(within), self._arrived:
            await self._arrived.wait_for(enough)

    def _reply(self, path: str) -> Reply:
        planned = self.plan.get(path)
        if not planned:
            return Reply()
        return planned.pop(0) if len(planned) > 1 else planned[0]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *lines = head.decode("latin-1").split("\r\n")
                path = request_line.split(" ")[1]
                headers = {}
                for line in lines:
                    if line:
                        name, _, value = line.partition(":")
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.received.append(Received(path, headers, body))
                async with self._arrived:
                    self._arrived.notify_all()
                reply = self._reply(path)
                if reply.hold is not None:
                    await reply.hold.wait()
                extra = "".join(f"{name}: {value}\r\n" for name, value in reply.headers.items())
                reason = REASONS.get(reply.status, "Status")
                # 204 and 304 have no body (RFC 9112, 6.3): bytes after one would be the next answer
                body = "" if reply.status in (204, 304) else "ok"
                head = f"HTTP/1.1 {reply.status} {reason}\r\ncontent-length: {len(body)}\r\n{extra}\r\n"
                writer.write((head + body).encode("latin-1"))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


@contextlib.asynccontextmanager
async def running_receiver() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    server = await asyncio.start_server(receiver._serve, "127.0.0.1", 0)
    receiver.port = server.sockets[0].getsockname()[1]
    try:
        yield receiver
    finally:
        server.close()
        for planned in receiver.plan.values():  # let held replies go, so that connections close
            for reply in planned:
                if reply.hold is not None:
                    reply.hold.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await server.wait_closed()
