"""Oversized request bodies: above ``MAX_BODY`` every route that reads a body answers 413 in the
error shape, whatever the client announces: an honest Content-Length, a lying one, or none at
all (chunked transfer encoding). Over ASGI first, then through a real HTTP server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
import uvicorn

from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.app import MAX_BODY, create_app
from tests.e2e.conftest import Api
from tests.security.conftest import Signed, assert_error, signed_in

TOO_LARGE = ("Request Entity Too Large", "Content Too Large")
CHUNK = 65_536


def padded(size: int, value: dict[str, Any] | None = None) -> bytes:
    """A JSON object of exactly ``size`` bytes (whitespace after the value)."""
    text = json.dumps(value or {}).encode()
    assert len(text) <= size
    return text + b" " * (size - len(text))


async def chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), CHUNK):
        yield body[start : start + CHUNK]


def routes_with_bodies(who: Signed) -> list[tuple[str, str, dict[str, str]]]:
    return [
        ("POST", "/api/auth/token", {}),
        ("POST", "/oauth/token", {}),
        ("POST", "/dict/pix", who.auth | {"x-idempotency-key": str(uuid.uuid4())}),
        ("PUT", f"/cob/{uuid.uuid4().hex[:30]}", who.auth),
        ("POST", "/api/pix/cash-in", who.auth),
        ("POST", "/api/webhooks", who.auth),
        ("POST", "/sandbox/payments", who.auth),
    ]


async def test_a_body_over_the_limit_is_413_however_it_is_sent(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    who = await signed_in(pg_uow, api.client)
    large = padded(MAX_BODY + 1)
    for method, path, headers in routes_with_bodies(who):
        json_headers = headers | {"content-type": "application/json"}
        honest = await api.client.request(method, path, content=large, headers=json_headers)
        assert_error(honest, 413, reasons=TOO_LARGE)
        lying = await api.client.request(
            method, path, content=large, headers=json_headers | {"content-length": "2"}
        )
        assert_error(lying, 413, reasons=TOO_LARGE)
        chunked = await api.client.request(method, path, content=chunks(large * 3), headers=json_headers)
        assert_error(chunked, 413, reasons=TOO_LARGE)
        announced = await api.client.request(
            method, path, content=b"{}", headers=json_headers | {"content-length": str(10 * MAX_BODY)}
        )
        assert_error(announced, 413, reasons=TOO_LARGE)


async def test_the_limit_is_exactly_max_body(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    who = await signed_in(pg_uow, api.client)
    at_limit = padded(MAX_BODY, {"url": "https://93.184.216.34/hook", "eventType": "nothing"})
    headers = who.auth | {"content-type": "application/json"}
    within = await api.client.post("/api/webhooks", content=at_limit, headers=headers)
    assert_error(within, 400)  # read and judged: the event type is wrong
    over = await api.client.post("/api/webhooks", content=at_limit + b" ", headers=headers)
    assert_error(over, 413, reasons=TOO_LARGE)


# -- through a real server ------------------------------------------------------------------------------


@pytest.fixture
async def server(api: Api) -> AsyncIterator[int]:
    """The app under uvicorn on an ephemeral port of 127.0.0.1 (it shares the run's pool)."""
    app = create_app(replace(api.settings), clock=api.clock)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, lifespan="on", log_config=None, log_level="warning"
    )
    running = uvicorn.Server(config)
    task = asyncio.create_task(running.serve())
    async with asyncio.timeout(30):
        while not running.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
    try:
        yield running.servers[0].sockets[0].getsockname()[1]
    finally:
        running.should_exit = True
        await task


async def raw_exchange(
    port: int, head: bytes, body: AsyncIterator[bytes] | None
) -> tuple[int, dict[str, str], bytes]:
    """Send a request as raw bytes (the body while the answer is read) and read one response."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def send_body() -> None:
        with contextlib.suppress(ConnectionError):
            writer.write(head)
            if body is not None:
                async for piece in body:
                    writer.write(piece)
                    await writer.drain()
            await writer.drain()

    sending = asyncio.create_task(send_body())
    try:
        async with asyncio.timeout(30):
            status_line, _, rest = (await reader.readuntil(b"\r\n\r\n")).partition(b"\r\n")
            headers = {}
            for line in rest.decode("latin-1").split("\r\n"):
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            content = await reader.readexactly(int(headers["content-length"]))
    finally:
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sending
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    return int(status_line.split(b" ")[1]), headers, content


async def chunked_encoding(body: bytes) -> AsyncIterator[bytes]:
    async for piece in chunks(body):
        yield f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    yield b"0\r\n\r\n"


def assert_413(status: int, content: bytes) -> None:
    assert status == 413, content
    body = json.loads(content)
    assert set(body) == {"statusCode", "message", "error"}
    assert body["statusCode"] == 413
    assert body["error"] in TOO_LARGE


async def test_a_real_server_answers_413_to_chunked_and_announced_bodies(server: int) -> None:
    large = padded(3 * MAX_BODY)
    head = (
        b"POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    status, _, content = await raw_exchange(server, head, chunked_encoding(large))
    assert_413(status, content)

    announced = (
        b"POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(large)}\r\n\r\n".encode()
    )
    status, _, content = await raw_exchange(server, announced, None)  # answered before any body
    assert_413(status, content)

    # The control: a small body on the same server is read and judged.
    small = b'{"clientId": "nobody", "clientSecret": "x"}'
    ok_head = (
        b"POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(small)}\r\n\r\n".encode()
        + small
    )
    status, _, content = await raw_exchange(server, ok_head, None)
    assert status == 400, content  # no certificate header


async def test_httpx_through_the_real_server(server: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server}") as http:
        response = await http.post(
            "/api/auth/token",
            content=chunks(padded(2 * MAX_BODY)),
            headers={"content-type": "application/json"},
        )
    assert_error(response, 413, reasons=TOO_LARGE)
