"""A request's head (its request line and headers) is capped at ``PIX_MAX_HEADER_BYTES``, in the
HTTP parser, before any of it reaches the app: past the cap the answer is a 431 in the error shape
and the connection is closed, without reading the rest (docs/operations.md, "Limits").

Against ``pixweb serve`` as a real process (``served``: the cap set to 32 KiB). The oversized
headers here never end: a server that waited for the end of the head would never answer, and one
that read it all would take every byte the client offers (64 MiB per connection)."""

from __future__ import annotations

import asyncio
import json

import httpx

from tests.security.conftest import Served

OFFER = 64 * 1024 * 1024  # bytes a flooding client is prepared to send on one connection
CHUNK = 64 * 1024
ANSWER_TIMEOUT = 60.0  # generous: a busy 2-core machine; a server that never answers fails here


async def _answer_of(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection (a reset ends it too)."""
    received = b""
    try:
        while chunk := await reader.read(65_536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


async def _endless_header(port: int, sent_before_answer: int) -> tuple[int, bytes]:
    """Send a request line and one header whose value never ends: ``sent_before_answer`` bytes of
    it, then, while the server has not answered, more, up to ``OFFER``. Returns the bytes sent in
    all and what the server answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answer = asyncio.create_task(_answer_of(reader))
    head = b"GET /health/live HTTP/1.1\r\nHost: pix.test\r\nX-Flood: "
    sent = 0
    try:
        writer.write(head)
        while sent < OFFER and not (answer.done() and sent >= sent_before_answer):
            writer.write(b"a" * CHUNK)
            await writer.drain()
            sent += CHUNK
    except (ConnectionResetError, BrokenPipeError):
        pass  # the server closed the connection: what it said is in `answer`
    try:
        received = await asyncio.wait_for(answer, ANSWER_TIMEOUT)
    finally:
        writer.close()
    return len(head) + sent, received


def _assert_refused_as_too_large(received: bytes) -> None:
    status_line, _, rest = received.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 431 Request Header Fields Too Large", received[:300]
    headers_text, _, body = rest.partition(b"\r\n\r\n")
    headers = dict(line.split(b": ", 1) for line in headers_text.split(b"\r\n"))
    assert headers[b"connection"] == b"close"
    assert headers[b"content-type"] == b"application/json"
    assert int(headers[b"content-length"]) == len(body)
    error = json.loads(body)
    assert set(error) == {"statusCode", "message", "error"}
    assert error["statusCode"] == 431
    assert error["error"] == "Request Header Fields Too Large"
    assert "PIX_MAX_HEADER_BYTES" not in error["message"]  # the client is told the limit, not our settings
    assert "32768 bytes" in error["message"]


async def test_a_header_of_a_megabyte_is_refused_before_it_ends(served: Served) -> None:
    sent, received = await _endless_header(served.port, sent_before_answer=1024 * 1024)
    _assert_refused_as_too_large(received)
    # the server answered a head that had not ended: it did not wait for the whole, let alone read it
    assert sent < OFFER


async def test_a_request_under_the_cap_is_answered(served: Served) -> None:
    async with httpx.AsyncClient(base_url=served.base_url, timeout=30) as http:
        assert (await http.get("/health/live")).json() == {"status": "ok"}
        # several headers adding up to three quarters of the cap, on the same connection
        big = {f"x-filler-{n}": "b" * 2048 for n in range(served.max_header_bytes * 3 // 4 // 2048)}
        response = await http.get("/health/live", headers=big)
        assert response.status_code == 200, response.text
        assert (await http.get("/health/live")).status_code == 200


async def test_a_body_larger_than_the_cap_is_not_counted_as_head(served: Served) -> None:
    body = b"{" + b" " * (served.max_header_bytes * 6) + b"}"  # sent in the same reads as the head
    async with httpx.AsyncClient(base_url=served.base_url, timeout=30) as http:
        response = await http.post("/dict/pix", content=body, headers={"content-type": "application/json"})
        assert response.status_code == 401, response.text  # the app answered: no token
        assert (await http.get("/health/live")).status_code == 200  # and the connection goes on


async def test_a_finished_head_over_the_cap_is_refused_and_the_connection_closed(served: Served) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    filler = b"".join(b"x-filler-%d: %s\r\n" % (n, b"c" * 1000) for n in range(40))  # about 40 KiB
    writer.write(b"GET /health/live HTTP/1.1\r\nHost: pix.test\r\n" + filler + b"\r\n")
    await writer.drain()
    received = await asyncio.wait_for(_answer_of(reader), ANSWER_TIMEOUT)  # ends: the server closed it
    writer.close()
    _assert_refused_as_too_large(received)


async def test_a_long_request_line_counts_toward_the_cap(served: Served) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    path = b"/health/live?" + b"q" * (served.max_header_bytes + 1)
    writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: pix.test\r\n\r\n")
    await writer.drain()
    received = await asyncio.wait_for(_answer_of(reader), ANSWER_TIMEOUT)
    writer.close()
    _assert_refused_as_too_large(received)


async def test_liveness_answers_while_three_endless_headers_are_sent(served: Served) -> None:
    floods = [
        asyncio.create_task(_endless_header(served.port, sent_before_answer=4 * CHUNK)) for _ in range(3)
    ]
    async with httpx.AsyncClient(base_url=served.base_url, timeout=ANSWER_TIMEOUT) as http:
        live = await http.get("/health/live")
    outcomes = await asyncio.gather(*floods)
    assert live.status_code == 200, live.text
    for sent, received in outcomes:
        _assert_refused_as_too_large(received)
        assert sent < OFFER  # each cut off: the server read at most its cap of each
