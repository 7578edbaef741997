"""The HTTP client of the notifier: it connects only to public addresses, the ones it checked.

A receiver's host name is resolved when a connection is opened, every address it resolves to is
checked (``pixcore.addresses.is_public_address``, the rule of registration too) unless private
addresses are allowed, and the connection goes to one of the checked addresses. The name is not
resolved a second time, so a DNS answer that changes between the check and the connection (DNS
rebinding) cannot point the request elsewhere. TLS still verifies the certificate against the host
name of the URL.

httpx has no public switch for the network layer, so :func:`make_client` gives the client a
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
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Self

import httpcore
import httpx

from pixcore.addresses import is_public_address
from pixcore.dns import SystemResolver

__all__ = [
    "AddressRefused",
    "GuardedBackend",
    "GuardedTransport",
    "Resolver",
    "make_client",
    "system_resolver",
]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Resolves a host name and port to IP addresses (as text)."""


class AddressRefused(Exception):
    """The receiver's host is, or resolves to, an address that is not public."""


system_resolver: Resolver = SystemResolver().addresses
"""The operating system's resolver (``pixcore.dns``, shared with registration): addresses in its
order, each once."""


def _literal(host: str) -> str | None:
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(host.strip("[]")))
    return None


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves, checks, then connects to a checked address (the first that accepts)."""

    def __init__(
        self,
        resolver: Resolver,
        *,
        allow_private: bool,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.resolver = resolver
        self.allow_private = allow_private
        self.inner = inner or httpcore.AnyIOBackend()

    async def addresses(self, host: str, port: int, seconds: float | None = None) -> list[str]:
        """The addresses to connect to; raises AddressRefused if any of them is not public."""
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
        if not self.allow_private:
            refused = [address for address in found if not is_public_address(address)]
            if refused:
                raise AddressRefused(f"{host} resolves to a non-public address ({refused[0]})")
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
                return await self.inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
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
    """Raise an httpcore error as its httpx counterpart; anything else (AddressRefused) as it is."""
    try:
        yield
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
    """An httpx transport on an httpcore pool whose connections go through ``backend``."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend, limits: httpx.Limits) -> None:
        self.pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=backend,
        )

    async def __aenter__(self) -> Self:
        await self.pool.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> None:
        with httpx_errors():
            await self.pool.__aexit__(exc_type, exc, tb)

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
        with httpx_errors():
            answer = await self.pool.handle_async_request(sent)
        if not isinstance(answer.stream, AsyncIterable):
            raise TypeError("httpcore answered an asynchronous request with a synchronous body")
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()


def make_client(
    *,
    resolver: Resolver = system_resolver,
    allow_private: bool,
    timeout: float,
    max_connections: int,
    user_agent: str = "pixnotify",
) -> httpx.AsyncClient:
    """An HTTP client for webhooks: checked addresses only, no proxies, no redirects, ``timeout``
    for each of connect, write, read and pool wait."""
    limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
    # tests/integration/test_notifier.py proves that the check is in force (a name resolving to
    # 127.0.0.1 is refused); tests/unit/test_guarded_transport.py that the transport behaves as
    # httpx's own (bodies, errors, limits).
    transport = GuardedTransport(GuardedBackend(resolver, allow_private=allow_private), limits)
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
        headers={"user-agent": user_agent},
    )
