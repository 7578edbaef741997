"""The webhook client's transport (``pixnotify.transport.GuardedTransport``) behaves as httpx's
own: bodies and headers both ways, httpcore's errors raised as httpx's, the pool's limits; and
every connection goes through the checking backend. A receiver on 127.0.0.1, no internet."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator

import httpcore
import httpx
import pytest

from pixinfra.settings import NotifierSettings
from pixnotify.sender import post
from pixnotify.transport import (
    AddressRefused,
    GuardedBackend,
    GuardedTransport,
    WebhookClient,
    make_client,
    make_webhook_client,
)


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


def client(
    *, allow_private: bool = True, timeout: float = 5.0, max_connections: int = 4
) -> httpx.AsyncClient:
    return make_client(
        NotifierSettings(timeout=timeout, concurrency=max_connections),
        allow_private=allow_private,
        resolver=loopback,
    )


async def test_a_request_and_its_answer_cross_the_transport_whole(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with client() as http:
        response = await http.post(
            f"http://hooks.pix.test:{port}/in", content=b'{"a":1}', headers={"x-k": "v"}
        )
    assert (response.status_code, response.content, response.headers["x-echo"]) == (201, b'{"a":1}', "yes")
    sent = state.requests[0]
    assert sent.startswith(b"POST /in HTTP/1.1\r\n")
    assert b"\r\nx-k: v\r\n" in sent
    assert b"\r\nHost: hooks.pix.test:" in sent  # the URL's name, though the connection went to the address
    assert sent.endswith(b'{"a":1}')


async def test_connections_are_kept_alive_and_reused(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with client() as http:
        for _ in range(3):
            assert (await http.post(f"http://hooks.pix.test:{port}/", content=b"x")).status_code == 201
    assert state.connections == 1


async def test_a_non_public_address_is_refused_before_connecting(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with client(allow_private=False) as http:
        with pytest.raises(
            AddressRefused, match=r"hooks\.pix\.test resolves to 127\.0\.0\.1, which is loopback"
        ):
            await http.post(f"https://hooks.pix.test:{port}/", content=b"x")
    assert state.connections == 0


async def test_a_closed_port_is_an_httpx_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with client() as http:
        with pytest.raises(httpx.ConnectError):
            await http.post(f"http://hooks.pix.test:{port}/", content=b"x")


async def test_a_receiver_that_never_answers_is_an_httpx_read_timeout(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    state.stall = True
    async with client(timeout=0.2) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.post(f"http://hooks.pix.test:{port}/", content=b"x")


@pytest.mark.parametrize("limit", [1, 2])
async def test_the_pool_holds_at_most_max_connections(receiver: tuple[Receiver, int], limit: int) -> None:
    state, port = receiver
    state.stall = True
    async with client(max_connections=limit) as http:
        posts = [
            asyncio.create_task(http.post(f"http://hooks.pix.test:{port}/", content=b"x")) for _ in range(3)
        ]
        for _ in range(100):
            await asyncio.sleep(0.01)
            if len(state.requests) >= limit:
                break
        await asyncio.sleep(0.1)  # time for a connection beyond the limit, if there were one
        assert (state.connections, len(state.requests)) == (limit, limit)
        for post in posts:
            post.cancel()
        await asyncio.gather(*posts, return_exceptions=True)


async def test_a_synchronous_body_is_refused() -> None:
    transport = GuardedTransport(GuardedBackend(loopback, allow_private=True), httpx.Limits())
    request = httpx.Request("POST", "http://hooks.pix.test/", stream=httpx.ByteStream(b"x"))
    request.stream = iter([b"x"])  # type: ignore[assignment] - what a synchronous client would hand over
    with pytest.raises(TypeError):
        await transport.handle_async_request(request)
    await transport.aclose()


def test_httpcore_errors_map_to_the_most_specific_httpx_error() -> None:
    from pixnotify.transport import httpx_errors

    cases = [
        (httpcore.ConnectTimeout("t"), httpx.ConnectTimeout),
        (httpcore.ReadError("r"), httpx.ReadError),
        (httpcore.RemoteProtocolError("p"), httpx.RemoteProtocolError),
        (httpcore.PoolTimeout("p"), httpx.PoolTimeout),
    ]
    for raised, expected in cases:
        with pytest.raises(expected) as caught, httpx_errors():
            raise raised
        assert type(caught.value) is expected
        assert caught.value.__cause__ is raised
    with pytest.raises(AddressRefused), httpx_errors():
        raise AddressRefused("as it is")


def test_a_tls_error_after_the_handshake_is_an_httpx_read_error() -> None:
    """httpcore lets an ``ssl.SSLError`` read with the answer (a receiver's alert) through as it is;
    the transport raises it as httpx's, so that the attempt fails in words instead of crashing."""
    from pixnotify.transport import httpx_errors

    alert = ssl.SSLError(1, "[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required")
    with pytest.raises(httpx.ReadError) as caught, httpx_errors():
        raise alert
    assert caught.value.__cause__ is alert


async def test_a_kept_alive_connection_the_receiver_closed_is_not_reused() -> None:
    """The pool asks an idle connection whether the receiver has closed it (``is_readable``, which
    GuardedBackend's streams answer themselves): a closed one is dropped, and the next request gets
    a new connection instead of an error."""
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
    async with server, client() as http:
        for _ in range(3):
            assert (await http.post(f"http://hooks.pix.test:{port}/", content=b"x")).status_code == 204
            await asyncio.sleep(0.05)  # the close arrives
    assert connections == 3


async def test_a_stream_is_readable_once_the_other_side_has_closed() -> None:
    accepted: list[asyncio.StreamWriter] = []
    connected = asyncio.Event()

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)
        connected.set()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        backend = GuardedBackend(loopback, allow_private=True, plain=True)
        stream = await backend.connect_tcp("hooks.pix.test", port)
        try:
            await asyncio.wait_for(connected.wait(), 5)
            assert stream.get_extra_info("is_readable") is False  # open and idle
            assert stream.get_extra_info("socket").fileno() >= 0  # the rest as httpcore's stream says
            accepted[0].close()
            for _ in range(100):  # the close arrives
                if stream.get_extra_info("is_readable"):
                    break
                await asyncio.sleep(0.01)
            assert stream.get_extra_info("is_readable") is True
        finally:
            await stream.aclose()


# -- the notifier's client (WebhookClient, on aiohttp): the same checks, the same bytes ---------------


def webhook_client(*, allow_private: bool = True, timeout: float = 5.0) -> WebhookClient:
    return make_webhook_client(
        NotifierSettings(timeout=timeout, concurrency=4), allow_private=allow_private, resolver=loopback
    )


async def test_the_webhook_client_sends_the_bytes_httpx_sends(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    url = f"http://hooks.pix.test:{port}/in?k=1"
    headers = [("webhook-id", "msg_1_2"), ("content-type", "application/json"), ("X-Tenant", "t1")]
    async with client() as http:
        await http.post(url, content=b'{"a":1}', headers=headers)
    async with webhook_client() as direct:
        outcome = await post(direct, url, b'{"a":1}', headers, deadline=5)
    assert (outcome.status_code, outcome.body, outcome.error) == (201, '{"a":1}', None)
    by_httpx, ours = state.requests

    def lines(request: bytes) -> tuple[bytes, set[bytes]]:
        head, _, body = request.partition(b"\r\n\r\n")
        first, *fields = head.split(b"\r\n")
        # httpx may offer more encodings (br, zstd) than the attempt log can read: gzip and deflate
        return first + b"|" + body, {
            f.lower() for f in fields if not f.lower().startswith(b"accept-encoding")
        }

    assert lines(ours) == lines(by_httpx)
    assert b"\r\naccept-encoding: gzip, deflate\r\n" in ours.lower()
    assert ours.startswith(b"POST /in?k=1 HTTP/1.1\r\n")


async def test_the_webhook_client_keeps_connections_alive(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with webhook_client() as direct:
        for _ in range(3):
            outcome = await post(direct, f"http://hooks.pix.test:{port}/", b"x", [], deadline=5)
            assert outcome.status_code == 201
    assert state.connections == 1


async def test_the_webhook_client_refuses_a_non_public_address(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    async with webhook_client(allow_private=False) as direct:
        outcome = await post(direct, f"https://hooks.pix.test:{port}/", b"x", [], deadline=5)
        plain = await post(direct, f"http://8.8.8.8:{port}/", b"x", [], deadline=5)
    assert outcome.error == (
        "address refused: hooks.pix.test resolves to 127.0.0.1, which is loopback "
        "(PIX_WEBHOOK_ALLOW_PRIVATE is off)"
    )
    assert plain.error is not None
    assert plain.error.startswith("address refused: 8.8.8.8 is public: plain http://")
    assert state.connections == 0


async def test_the_webhook_client_raises_httpx_errors(receiver: tuple[Receiver, int]) -> None:
    state, port = receiver
    state.stall = True
    async with webhook_client(timeout=0.2) as direct:
        with pytest.raises(httpx.ReadTimeout):
            async with direct.post(f"http://hooks.pix.test:{port}/", b"x", []):
                pass
        with pytest.raises(httpx.UnsupportedProtocol):
            async with direct.post("ftp://hooks.pix.test/", b"x", []):
                pass
        with pytest.raises(httpx.InvalidURL):
            async with direct.post("http://[::1/", b"x", []):
                pass


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
    async with server, webhook_client() as direct:
        first = await post(direct, f"http://hooks.pix.test:{port}/in", b"{}", [], deadline=5)
        second = await post(direct, f"http://hooks.pix.test:{port}/in", b"{}", [], deadline=5)
    assert (first.status_code, second.status_code) == (302, 302)
    assert len(heads) == 2  # not followed to /elsewhere
    assert all(head.startswith(b"post /in http/1.1") for head in heads)
    assert b"cookie" not in heads[1].replace(b"set-cookie", b"")
