"""The notifier's HTTP client (``pixnotify.transport.WebhookClient``, on aiohttp) over real sockets:
the bytes it sends, the connections it keeps and how many, its errors (the notifier's own,
``pixnotify.client``) in each phase, and every connection through the address check. A receiver
on 127.0.0.1, no internet; the TLS settings are ``tests/integration/notifier/test_webhook_receivers.py``'s."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator

import aiohttp
import pytest

from pixcore.webhooks.delivery import MAX_RESPONSE_BODY
from pixinfra.settings import NotifierSettings
from pixnotify.client import (
    AddressRefused,
    ConnectFailed,
    ConnectionClosed,
    DeliveryError,
    InvalidAnswer,
    InvalidURL,
    TimedOut,
    destination,
)
from pixnotify.sender import post
from pixnotify.transport import WebhookClient, delivery_errors, make_webhook_client


async def loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


class Receiver:
    """Answers each request with 201, echoing the request's body and a header; ``stall`` makes it
    read the request and never answer."""

    def __init__(self) -> None:
        self.requests: list[bytes] = []
        self.connections = 0
        self.stall = False

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                if self.stall:
                    await asyncio.sleep(3600)
                writer.write(
                    b"HTTP/1.1 201 Created\r\nx-echo: yes\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, int]]:
    state = Receiver()
    server = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield state, port
        server.close()


def client(*, allow_private: bool = True, timeout: float = 5.0, max_connections: int = 4) -> WebhookClient:
    return make_webhook_client(
        NotifierSettings(timeout=timeout, concurrency=max_connections),
        allow_private=allow_private,
        resolver=loopback,
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# -- what goes on the wire ---------------------------------------------------------------------------


async def test_a_request_and_its_answer_cross_whole(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with (
        client() as http,
        http.post(f"http://hooks.pix.test:{port}/in", b'{"a":1}', [("x-k", "v")]) as answer,
    ):
        body = b"".join([chunk async for chunk in answer.chunks])
        assert (answer.status, body, answer.header("X-Echo")) == (201, b'{"a":1}', "yes")
    sent = state.requests[0]
    assert sent.startswith(b"POST /in HTTP/1.1\r\n")
    assert b"\r\nx-k: v\r\n" in sent
    assert b"\r\nHost: hooks.pix.test:" in sent  # the URL's name, though the connection went to the address
    assert sent.endswith(b'{"a":1}')


async def test_the_request_is_these_bytes(receiver: tuple[Receiver, int]) -> None:
    """The request line and header set the notifier has always sent (they were httpx's, but for the
    encodings offered: gzip and deflate, the ones the attempt log reads)."""
    state, port = receiver
    url = f"http://hooks.pix.test:{port}/in?k=1"
    headers = [("webhook-id", "msg_1_2"), ("content-type", "application/json"), ("X-Tenant", "t1")]
    async with client() as direct:
        outcome = await post(direct, url, b'{"a":1}', headers, deadline=5)
    assert (outcome.status_code, outcome.body, outcome.error) == (201, '{"a":1}', None)
    head, _, body = state.requests[0].partition(b"\r\n\r\n")
    first, *fields = head.split(b"\r\n")
    assert (first, body) == (b"POST /in?k=1 HTTP/1.1", b'{"a":1}')
    assert {f.lower() for f in fields} == {
        b"host: hooks.pix.test:%d" % port,
        b"user-agent: pixnotify",
        b"accept: */*",
        b"accept-encoding: gzip, deflate",
        b"connection: keep-alive",
        b"content-length: 7",
        b"webhook-id: msg_1_2",
        b"content-type: application/json",
        b"x-tenant: t1",
    }


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("https://hooks.pix.test/in?k=1", "/in?k=1"),
        ("https://hooks.pix.test", "/"),
        ("https://hooks.pix.test/a/./b/../c", "/a/c"),  # dot segments removed
        ("https://hooks.pix.test/../../x", "/x"),
        ('https://hooks.pix.test/{a}`b"<c>?q="<x>`{}', "/%7Ba%7D%60b%22%3Cc%3E?q=%22%3Cx%3E`{}"),
        ("https://hooks.pix.test/a%2Fb%zz|[]^\\?q=a%20b|%", "/a%2Fb%zz|[]^\\?q=a%20b|%"),  # as written
    ],
)
def test_the_request_target_is_the_url_as_registered_with_a_few_characters_encoded(
    url: str, target: str
) -> None:
    assert destination(url).request.raw_path_qs == target


def test_a_destination_has_the_host_and_port_to_connect_to() -> None:
    assert (destination("HTTPS://Hooks.PIX.test/x").host, destination("https://h.pix.test/").port) == (
        "hooks.pix.test",
        443,
    )
    assert (destination("http://[::1]:8080/").host, destination("http://[::1]:8080/").port) == ("::1", 8080)
    assert destination("https://[::1]/").request.host_port_subcomponent == "[::1]"


async def test_connections_are_kept_alive_and_reused(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with client() as direct:
        for _ in range(3):
            outcome = await post(direct, f"http://hooks.pix.test:{port}/", b"x", [], deadline=5)
            assert outcome.status_code == 201
    assert state.connections == 1


async def test_a_kept_alive_connection_the_receiver_closed_is_not_reused() -> None:
    """A connection the receiver closed while idle is dropped, and the next request gets a new
    connection instead of an error."""
    connections = 0

    async def answer_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(1)
        writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")  # keep-alive, then closed
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer_once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, client() as direct:
        for _ in range(3):
            outcome = await post(direct, f"http://hooks.pix.test:{port}/", b"x", [], deadline=5)
            assert (outcome.status_code, outcome.error) == (204, None)
            await asyncio.sleep(0.05)  # the close arrives
    assert connections == 3


@pytest.mark.parametrize("limit", [1, 2])
async def test_the_pool_holds_at_most_max_connections(receiver: tuple[Receiver, int], limit: int) -> None:
    state, port = receiver
    state.stall = True
    async with client(max_connections=limit) as direct:
        posts = [
            asyncio.create_task(post(direct, f"http://hooks.pix.test:{port}/", b"x", [], deadline=30))
            for _ in range(3)
        ]
        for _ in range(100):
            await asyncio.sleep(0.01)
            if len(state.requests) >= limit:
                break
        await asyncio.sleep(0.1)  # time for a connection beyond the limit, if there were one
        assert (state.connections, len(state.requests)) == (limit, limit)
        for task in posts:
            task.cancel()
        await asyncio.gather(*posts, return_exceptions=True)


async def test_the_answer_is_read_no_further_than_its_cap() -> None:
    """A receiver answering a megabyte: the attempt keeps the start of it (the attempt log's cap)."""

    async def chatty(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(1)
        writer.write(b"HTTP/1.1 500 Oops\r\ncontent-length: 1048576\r\n\r\n" + b"E" * 1_048_576)
        with contextlib.suppress(ConnectionError):  # the client stopped reading and closed it
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(chatty, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, client() as direct:
        outcome = await post(direct, f"http://hooks.pix.test:{port}/", b"x", [], deadline=5)
    assert (outcome.status_code, outcome.error) == (500, None)
    assert outcome.body == "E" * MAX_RESPONSE_BODY


async def test_the_webhook_client_keeps_no_cookie_follows_no_redirect_and_uses_no_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """aiohttp's session would keep a receiver's cookie and send it again, follow a redirect, and
    (with trust_env) go through a proxy of the environment: the notifier's client does none of it."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # a proxy would refuse the connection
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    heads: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            heads.append(head.lower())
            await reader.readexactly(int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0]))
            writer.write(
                b"HTTP/1.1 302 Found\r\nset-cookie: session=s3cret; Path=/\r\n"
                b"location: /elsewhere\r\ncontent-length: 0\r\n\r\n"
            )
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, client() as direct:
        first = await post(direct, f"http://hooks.pix.test:{port}/in", b"{}", [], deadline=5)
        second = await post(direct, f"http://hooks.pix.test:{port}/in", b"{}", [], deadline=5)
    assert (first.status_code, second.status_code) == (302, 302)
    assert len(heads) == 2  # not followed to /elsewhere
    assert all(head.startswith(b"post /in http/1.1") for head in heads)
    assert b"cookie" not in heads[1].replace(b"set-cookie", b"")


# -- the address check ---------------------------------------------------------------------------------


async def test_a_non_public_address_is_refused_before_connecting(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with client(allow_private=False) as direct:
        with pytest.raises(
            AddressRefused, match=r"hooks\.pix\.test resolves to 127\.0\.0\.1, which is loopback"
        ):
            async with direct.post(f"https://hooks.pix.test:{port}/", b"x", []):
                pass
        outcome = await post(direct, f"https://hooks.pix.test:{port}/", b"x", [], deadline=5)
        plain = await post(direct, f"http://8.8.8.8:{port}/", b"x", [], deadline=5)
    assert outcome.error == (
        "address refused: hooks.pix.test resolves to 127.0.0.1, which is loopback "
        "(PIX_WEBHOOK_ALLOW_PRIVATE is off)"
    )
    assert plain.error is not None
    assert plain.error.startswith("address refused: 8.8.8.8 is public: plain http://")
    assert state.connections == 0


# -- errors, by phase -----------------------------------------------------------------------------------


async def test_a_closed_port_is_connect_failed_refused_under_it() -> None:
    async with client() as direct:
        with pytest.raises(ConnectFailed) as caught:
            async with direct.post(f"http://hooks.pix.test:{closed_port()}/", b"x", []):
                pass
    assert isinstance(caught.value.__cause__, ConnectionRefusedError)


async def test_a_receiver_that_never_answers_timed_out_reading(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    state.stall = True
    async with client(timeout=0.2) as direct:
        with pytest.raises(TimedOut) as caught:
            async with direct.post(f"http://hooks.pix.test:{port}/", b"x", []):
                pass
    assert caught.value.phase == "read"


async def test_a_resolver_that_never_answers_timed_out_connecting() -> None:
    async def silent(host: str, port: int) -> list[str]:
        await asyncio.sleep(30)
        return ["127.0.0.1"]

    config = NotifierSettings(timeout=0.2)
    async with make_webhook_client(config, allow_private=True, resolver=silent) as direct:
        with pytest.raises(TimedOut) as caught:  # aiohttp's deadline for connecting, set first
            async with direct.post("http://hooks.pix.test:8080/", b"x", []):
                pass
        outcome = await post(direct, "http://hooks.pix.test:8080/", b"x", [], deadline=5)
    assert caught.value.phase == "connect"
    assert outcome.error == "timed out after 5 s connecting to hooks.pix.test:8080"


async def test_a_url_it_cannot_send_to_is_invalid() -> None:
    async with client() as direct:
        for url, words in [
            ("ftp://hooks.pix.test/", "unsupported protocol 'ftp://'"),
            ("http:///x", "missing a host"),
            ("http://[::1/", "Invalid IPv6 URL"),
        ]:
            with pytest.raises(InvalidURL, match=words):
                async with direct.post(url, b"x", []):
                    pass


def test_aiohttps_errors_become_the_notifiers_own_the_original_under_them() -> None:
    alert = ssl.SSLError(1, "[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required")
    cases: list[tuple[BaseException, type[DeliveryError], str]] = [
        (
            aiohttp.ServerDisconnectedError(),
            ConnectionClosed,
            "Server disconnected without sending a response.",
        ),
        (aiohttp.ClientPayloadError("cut short"), ConnectionClosed, "cut short"),
        (aiohttp.ClientOSError(104, "reset"), ConnectionClosed, "[Errno 104] reset"),
        (alert, ConnectionClosed, f"TLS: {alert}"),  # a receiver's alert read with the answer
        (aiohttp.ClientError(), DeliveryError, "ClientError"),
    ]
    for raised, expected, message in cases:
        with pytest.raises(expected) as caught, delivery_errors():
            raise raised
        assert (type(caught.value), str(caught.value)) == (expected, message)
        assert caught.value.__cause__ is raised
    with pytest.raises(AddressRefused), delivery_errors():
        raise AddressRefused("as it is")


async def test_an_answer_that_is_not_http_is_invalid() -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"SPEAK FRIEND\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(garbage, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, client() as direct:
        with pytest.raises(InvalidAnswer, match="Bad status line"):
            async with direct.post(f"http://hooks.pix.test:{port}/", b"x", []):
                pass
