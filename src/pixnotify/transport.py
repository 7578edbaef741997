"""The HTTP client of the notifier: it connects only to public addresses, the ones it checked.

A receiver's host name is resolved when a connection is opened, every address it resolves to is
checked (``pixcore.addresses.is_public_address``, the rule of registration too) unless private
addresses are allowed, and the connection goes to one of the checked addresses. The name is not
resolved a second time, so a DNS answer that changes between the check and the connection (DNS
rebinding) cannot point the request elsewhere. TLS still verifies the certificate against the host
name of the URL.

Plain ``http://`` goes through a pool of its own whose backend accepts the opposite: only
loopback and private addresses, and only with ``PIX_WEBHOOK_ALLOW_PRIVATE`` on (decisions §13), so
a name that moves to a public address is never sent to in clear text.

Two clients keep these rules, both built from :class:`~pixinfra.settings.NotifierSettings`:
:func:`make_webhook_client`, the notifier's (:class:`WebhookClient`, on aiohttp: a resolver per
connector calling :meth:`GuardedBackend.addresses`), and :func:`make_client`, an
``httpx.AsyncClient``. Both have one
``ssl.SSLContext`` trusting the public roots (certifi, as httpx does) and the operator's extra CAs
(``PIX_WEBHOOK_CA_FILE``), presenting the notifier's client certificate when one is set
(``PIX_WEBHOOK_CLIENT_CERT``/``PIX_WEBHOOK_CLIENT_KEY``, mutual TLS).

httpx has no public switch for the network layer, so :func:`make_client` gives its client a
transport of its own (:class:`GuardedTransport`, on httpx's public ``AsyncBaseTransport``): an
httpcore connection pool with a checking network backend (httpcore's ``network_backend``), and
what httpx's own transport does around its pool (requests and responses translated, httpcore's
errors raised as httpx's). Proxies from the environment are ignored (a proxy would do its own
resolution) and redirects are not followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import select
import socket
import ssl
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, Self

import aiohttp
import aiohttp.abc
import httpcore
import httpx
import yarl

from pixcore.addresses import embedded_ipv4, is_public_address
from pixcore.dns import SystemResolver
from pixcore.webhooks import ALLOW_PRIVATE_VARIABLE
from pixinfra.settings import NotifierSettings

__all__ = [
    "INVALID_ANSWER",
    "AddressRefused",
    "GuardedBackend",
    "GuardedTransport",
    "Resolver",
    "WebhookClient",
    "make_client",
    "make_webhook_client",
    "system_resolver",
    "webhook_ssl_context",
]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Resolves a host name and port to IP addresses (as text)."""


INVALID_ANSWER = "invalid HTTP answer"
"""How :class:`WebhookClient` starts the message of an answer it cannot parse (a 204 followed by a
body, a bad status line...): ``pixnotify.failures`` says so, not that the connection closed."""


class AddressRefused(Exception):
    """The receiver's host is, or resolves to, an address it may not be sent to: a non-public one
    (``PIX_WEBHOOK_ALLOW_PRIVATE`` off), or a public one over plain ``http://``."""


def address_kind(address: str) -> str:
    """What a non-public address is, in a word a developer knows (loopback, private, link-local...)."""
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and (inner := embedded_ipv4(ip)) is not None:
        ip = inner  # judged by the IPv4 address it carries, as is_public_address does
    for kind in ("loopback", "link_local", "private", "multicast", "unspecified", "reserved"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return "not public"


system_resolver: Resolver = SystemResolver().addresses
"""The operating system's resolver (``pixcore.dns``, shared with registration): addresses in its
order, each once."""


def _literal(host: str) -> str | None:
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(host.strip("[]")))
    return None


def _readable(sock: socket.socket | None) -> bool:  # asyncio gives a TransportSocket, alike
    """Whether ``sock`` has something to read (or is closed): at once, without waiting."""
    if sock is None or sock.fileno() == -1:
        return True
    poll = select.poll()
    poll.register(sock, select.POLLIN)
    return bool(poll.poll(0))


class _Stream(httpcore.AsyncNetworkStream):
    """httpcore's stream with a cheaper ``is_readable``: the socket is looked up once, not on
    each call.

    httpcore's pool asks every connection it holds whether it ``has_expired`` on each request and
    on each response closed (16 connections: 32 questions a request), and an idle connection
    answers with ``get_extra_info("is_readable")``, which anyio's stream answers by building its
    table of attributes anew. That was about a tenth of the notifier's CPU under
    ``bench/webhooks.py``; here it is a poll of a socket known already. Everything else goes to
    the inner stream as it is."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self.inner = inner
        self.socket = inner.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        return await self.inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        await self.inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpcore.AsyncNetworkStream:
        return _Stream(await self.inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return _readable(self.socket)
        return self.inner.get_extra_info(info)


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves, checks, then connects to a checked address (the first that accepts).

    ``plain``: the backend of plain ``http://`` connections, which go only to loopback and private
    addresses (so only when ``allow_private``), never to a public one."""

    def __init__(
        self,
        resolver: Resolver,
        *,
        allow_private: bool,
        plain: bool = False,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.resolver = resolver
        self.allow_private = allow_private
        self.plain = plain
        self.inner = inner or httpcore.AnyIOBackend()

    def check(self, host: str, found: list[str]) -> None:
        """Raise AddressRefused unless every address in ``found`` may be connected to."""

        def which(address: str) -> str:
            return address if _literal(host) is not None else f"{host} resolves to {address}, which"

        if self.plain and (public := [address for address in found if is_public_address(address)]):
            raise AddressRefused(
                f"{which(public[0])} is public: plain http:// is only for loopback and private hosts, "
                "use https://"
            )
        if not self.allow_private:
            refused = [address for address in found if not is_public_address(address)]
            if refused:
                kind = address_kind(refused[0])
                raise AddressRefused(f"{which(refused[0])} is {kind} ({ALLOW_PRIVATE_VARIABLE} is off)")

    async def addresses(self, host: str, port: int, seconds: float | None = None) -> list[str]:
        """The addresses to connect to; AddressRefused if one of them may not be (:meth:`check`)."""
        literal = _literal(host)
        if literal is not None:
            found = [literal]
        else:
            try:
                async with asyncio.timeout(seconds):
                    found = await self.resolver(host, port)
            except (OSError, UnicodeError) as exc:
                raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
            except TimeoutError as exc:
                raise httpcore.ConnectTimeout(f"resolving {host} timed out") from exc
        if not found:
            raise httpcore.ConnectError(f"{host} resolves to no address")
        self.check(host, found)
        return found

    # httpcore's interface names the parameters (hence the noqa).
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        error: Exception | None = None
        for address in await self.addresses(host, port, timeout):
            try:
                stream = await self.inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
            else:
                return _Stream(stream)
        raise error or httpcore.ConnectError(f"cannot connect to {host}")

    async def connect_unix_socket(
        self,
        path: str,  # noqa: ARG002
        timeout: float | None = None,  # noqa: ARG002, ASYNC109
        socket_options: Iterable[Any] | None = None,  # noqa: ARG002
    ) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("webhooks are not sent over Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


# httpcore's errors as httpx raises them (the most specific match wins), as httpx's transport does.
HTTPCORE_ERRORS: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
)


@contextlib.contextmanager
def httpx_errors() -> Iterator[None]:
    """Raise an httpcore error as its httpx counterpart; a TLS error after the handshake (a
    receiver's alert read with its answer, such as "certificate required", which httpcore lets
    through as it is) as httpx's ReadError; anything else (AddressRefused) as it is."""
    try:
        yield
    except ssl.SSLError as exc:
        raise httpx.ReadError(f"TLS: {exc}") from exc
    except Exception as exc:
        mapped: type[httpx.HTTPError] | None = None
        for source, target in HTTPCORE_ERRORS:
            if isinstance(exc, source) and (mapped is None or issubclass(target, mapped)):
                mapped = target
        if mapped is None:
            raise
        raise mapped(str(exc)) from exc


class _Body(httpx.AsyncByteStream):
    """A response body read from httpcore, its errors raised as httpx's."""

    def __init__(self, stream: AsyncIterable[bytes]) -> None:
        self.stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with httpx_errors():
            async for part in self.stream:
                yield part

    async def aclose(self) -> None:
        close = getattr(self.stream, "aclose", None)
        if close is not None:
            await close()


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport on an httpcore pool whose connections go through ``backend``; plain
    ``http://`` requests through ``plain`` instead (a pool of its own) when it is given."""

    def __init__(
        self,
        backend: httpcore.AsyncNetworkBackend,
        limits: httpx.Limits,
        *,
        ssl_context: ssl.SSLContext | None = None,
        plain: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        context = ssl_context or httpx.create_ssl_context(trust_env=False)
        self.pool = self._pool(backend, limits, context)
        self.plain_pool = self._pool(plain, limits, context) if plain is not None else self.pool

    @staticmethod
    def _pool(
        backend: httpcore.AsyncNetworkBackend, limits: httpx.Limits, context: ssl.SSLContext
    ) -> httpcore.AsyncConnectionPool:
        return httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=backend,
        )

    def _pools(self) -> list[httpcore.AsyncConnectionPool]:
        return [self.pool] if self.plain_pool is self.pool else [self.pool, self.plain_pool]

    async def __aenter__(self) -> Self:
        for pool in self._pools():
            await pool.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> None:
        with httpx_errors():
            for pool in self._pools():
                await pool.__aexit__(exc_type, exc, tb)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(request.stream, httpx.AsyncByteStream):
            raise TypeError("the webhook client sends asynchronous bodies only")
        sent = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        pool = self.plain_pool if request.url.scheme == "http" else self.pool
        with httpx_errors():
            answer = await pool.handle_async_request(sent)
        if not isinstance(answer.stream, AsyncIterable):
            raise TypeError("httpcore answered an asynchronous request with a synchronous body")
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        for pool in self._pools():
            await pool.aclose()


def webhook_ssl_context(config: NotifierSettings) -> ssl.SSLContext:
    """The TLS context of every webhook connection: the public roots (certifi, as httpx has them),
    plus the CAs of ``PIX_WEBHOOK_CA_FILE``, presenting ``PIX_WEBHOOK_CLIENT_CERT`` (with its key,
    ``PIX_WEBHOOK_CLIENT_KEY``, or the key in the same file) when it is set.

    ``ValueError`` names the setting whose file cannot be used (the settings have checked already
    that the files exist and hold PEM; this also catches a PEM that is no certificate, or a key
    that does not match its certificate)."""
    context = httpx.create_ssl_context(trust_env=False)
    if config.ca_file is not None:
        try:
            context.load_verify_locations(cafile=config.ca_file)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(
                f"PIX_WEBHOOK_CA_FILE={config.ca_file}: not a PEM certificate bundle ({exc})"
            ) from None
    if config.client_cert is not None:
        try:
            context.load_cert_chain(config.client_cert, config.client_key)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(
                f"PIX_WEBHOOK_CLIENT_CERT={config.client_cert}, PIX_WEBHOOK_CLIENT_KEY={config.client_key}: "
                f"not a certificate and its private key ({exc})"
            ) from None
    return context


def guarded_transport(
    config: NotifierSettings, *, allow_private: bool, resolver: Resolver
) -> GuardedTransport:
    """The transport of both clients: checked addresses only (plain ``http://`` to loopback and
    private hosts only, with ``allow_private``), the TLS context of :func:`webhook_ssl_context`,
    ``config.concurrency`` connections at most."""
    limits = httpx.Limits(max_connections=config.concurrency, max_keepalive_connections=config.concurrency)
    # tests/integration/test_notifier.py proves that the check is in force (a name resolving to
    # 127.0.0.1 is refused); tests/unit/test_guarded_transport.py that the transport behaves as
    # httpx's own (bodies, errors, limits); tests/integration/test_webhook_tls.py the TLS settings.
    return GuardedTransport(
        GuardedBackend(resolver, allow_private=allow_private),
        limits,
        ssl_context=webhook_ssl_context(config),
        plain=GuardedBackend(resolver, allow_private=allow_private, plain=True),
    )


class _CheckingResolver(aiohttp.abc.AbstractResolver):
    """aiohttp's resolver for one connector: the addresses of :meth:`GuardedBackend.addresses`, checked,
    which are the ones the connector then connects to (aiohttp does not resolve again)."""

    def __init__(self, backend: GuardedBackend, timeout: float) -> None:
        self.backend = backend
        self.timeout = timeout

    async def resolve(
        self,
        host: str,
        port: int = 0,
        family: socket.AddressFamily = socket.AF_INET,  # noqa: ARG002 - every address is given
    ) -> list[aiohttp.abc.ResolveResult]:
        found = await self.backend.addresses(host, port, self.timeout)
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
            for address in found
        ]

    async def close(self) -> None:
        pass


@contextlib.contextmanager
def _aiohttp_errors() -> Iterator[None]:
    """aiohttp's errors as httpx's (the phase kept: connect, read, protocol), the original as their
    cause, so that :func:`pixnotify.failures.describe_error` reads them as it reads httpx's; the
    resolver's (httpcore's) as :func:`httpx_errors` raises them; AddressRefused as it is."""
    with httpx_errors():  # outside: an aiohttp error may be an ssl one too
        try:
            yield
        except aiohttp.ConnectionTimeoutError as exc:
            raise httpx.ConnectTimeout(str(exc) or "connecting timed out") from exc
        except aiohttp.ServerTimeoutError as exc:
            raise httpx.ReadTimeout(str(exc) or "reading timed out") from exc
        except aiohttp.ClientConnectorCertificateError as exc:  # itself an ssl error, in words of its own
            raise httpx.ConnectError(str(exc)) from exc.certificate_error
        except aiohttp.ClientConnectorError as exc:  # refused, a TLS handshake...: the error under it says
            raise httpx.ConnectError(str(exc)) from exc.os_error
        except aiohttp.ServerDisconnectedError as exc:
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.") from exc
        except aiohttp.ClientResponseError as exc:  # an answer that is not HTTP/1.1, as llhttp reads it
            raise httpx.RemoteProtocolError(f"{INVALID_ANSWER}: {' '.join(exc.message.split())}") from exc
        except aiohttp.ClientPayloadError as exc:
            raise httpx.RemoteProtocolError(str(exc)) from exc
        except aiohttp.InvalidURL as exc:
            raise httpx.InvalidURL(str(exc)) from exc
        except (aiohttp.ClientOSError, aiohttp.ClientConnectionError) as exc:  # reset, a TLS alert read...
            raise httpx.ReadError(str(exc) or type(exc).__name__) from exc
        except aiohttp.ClientError as exc:
            raise httpx.TransportError(str(exc) or type(exc).__name__) from exc


_MAX_TARGETS = 1024  # URLs whose parsing is kept


class WebhookClient:
    """The notifier's webhook client, on aiohttp: about a tenth of the CPU per POST of httpx's client
    on the same guard (its C parser, no anyio layer), measured by ``bench/webhooks.py``.

    The rules are :func:`make_client`'s: names resolved when a connection is opened and every
    address checked by a :class:`GuardedBackend` (plain ``http://`` through a connector of its own
    whose backend accepts only loopback and private addresses), the connection made to a checked
    address; a literal address checked before the request (aiohttp does not resolve one). The TLS
    context of :func:`webhook_ssl_context`; no proxies, no redirects, no cookies kept, no
    decompression (the attempt log reads the raw start of a body); ``timeout`` for the connection
    (the pool wait included) and for each read; ``limit`` connections at most per connector. Its
    errors are httpx's (``_aiohttp_errors``), so :mod:`pixnotify.failures` reads them alike. The
    sessions are made on first use (they need the running loop); an async context manager."""

    def __init__(
        self,
        context: ssl.SSLContext,
        *,
        resolver: Resolver,
        allow_private: bool,
        timeout: float,
        limit: int,
        user_agent: str,
    ) -> None:
        self.context = context
        self.backends = {
            "https": GuardedBackend(resolver, allow_private=allow_private),
            "http": GuardedBackend(resolver, allow_private=allow_private, plain=True),
        }
        self.timeout = timeout
        self.limit = limit
        self.headers = {
            "User-Agent": user_agent,
            "Accept": "*/*",
            "Accept-Encoding": "gzip, deflate",  # the encodings body_text reads
            "Connection": "keep-alive",
        }
        self._sessions: dict[str, aiohttp.ClientSession] = {}
        self._targets: dict[str, tuple[str, yarl.URL, str, int]] = {}

    def _session(self, scheme: str) -> aiohttp.ClientSession:
        session = self._sessions.get(scheme)
        if session is None:
            connector = aiohttp.TCPConnector(
                limit=self.limit,
                use_dns_cache=False,  # resolved (and checked) at each new connection
                resolver=_CheckingResolver(self.backends[scheme], self.timeout),
                ssl=self.context if scheme == "https" else False,
                keepalive_timeout=5.0,  # httpx's keep-alive expiry
            )
            session = self._sessions[scheme] = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
                trust_env=False,
                headers=self.headers,
                timeout=aiohttp.ClientTimeout(
                    total=None, connect=self.timeout, sock_connect=self.timeout, sock_read=self.timeout
                ),
            )
        return session

    def target(self, url: str) -> tuple[str, yarl.URL, str, int]:
        """``url``'s scheme, as sent (httpx's parsing and encoding), host and port; parsed once per
        URL (``httpx.InvalidURL``, ``httpx.UnsupportedProtocol``)."""
        found = self._targets.get(url)
        if found is None:
            parsed = httpx.URL(url)
            if parsed.scheme not in self.backends:
                raise httpx.UnsupportedProtocol(
                    f"Request URL has an unsupported protocol '{parsed.scheme}://'."
                )
            if not parsed.host:
                raise httpx.UnsupportedProtocol("Request URL is missing a host.")
            port = parsed.port or (443 if parsed.scheme == "https" else 80)
            if len(self._targets) >= _MAX_TARGETS:
                self._targets.clear()
            found = self._targets[url] = (
                parsed.scheme,
                yarl.URL(str(parsed), encoded=True),
                parsed.host,
                port,
            )
        return found

    @contextlib.asynccontextmanager
    async def post(
        self, url: str, body: bytes, headers: Sequence[tuple[str, str]]
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """POST ``body`` to ``url``: the answer, its body to read from ``content`` (released on
        leaving). Errors, reading the body included, are httpx's; AddressRefused as it is."""
        scheme, target, host, port = self.target(url)
        with _aiohttp_errors():
            if _literal(host) is not None:  # aiohttp connects to a literal address without resolving it
                await self.backends[scheme].addresses(host, port)
            session = self._session(scheme)
            async with session.post(target, data=body, headers=headers, allow_redirects=False) as answer:
                yield answer

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()


def make_webhook_client(
    config: NotifierSettings,
    *,
    allow_private: bool,
    resolver: Resolver = system_resolver,
    user_agent: str = "pixnotify",
) -> WebhookClient:
    """The notifier's client (:class:`WebhookClient`) from its settings: the TLS context of
    :func:`webhook_ssl_context`, ``config.timeout``, ``config.concurrency`` connections at most."""
    return WebhookClient(
        webhook_ssl_context(config),
        resolver=resolver,
        allow_private=allow_private,
        timeout=config.timeout,
        limit=config.concurrency,
        user_agent=user_agent,
    )


def make_client(
    config: NotifierSettings,
    *,
    allow_private: bool,
    resolver: Resolver = system_resolver,
    user_agent: str = "pixnotify",
) -> httpx.AsyncClient:
    """An httpx client for webhooks, from the notifier's settings, on :func:`guarded_transport`: no
    proxies, no redirects, ``config.timeout`` for each of connect, write, read and pool wait. The
    notifier itself sends with :func:`make_webhook_client` (the same checks and TLS context, on
    aiohttp)."""
    transport = guarded_transport(config, allow_private=allow_private, resolver=resolver)
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(config.timeout),
        follow_redirects=False,
        trust_env=False,
        headers={"user-agent": user_agent},
    )
