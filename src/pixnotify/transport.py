"""The HTTP client of the notifier: it connects only to public addresses, the ones it checked.

A receiver's host name is resolved when a connection is opened, every address it resolves to is
checked (``pixcore.addresses.is_public_address``, the rule of registration too) unless private
addresses are allowed, and the connection goes to one of the checked addresses. The name is not
resolved a second time, so a DNS answer that changes between the check and the connection (DNS
rebinding) cannot point the request elsewhere. TLS still verifies the certificate against the host
name of the URL.

httpx has no public switch for the network layer, so :func:`make_client` gives the transport a
connection pool of its own with a checking network backend (httpcore's ``network_backend``).
Proxies from the environment are ignored (a proxy would do its own resolution) and redirects are
not followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import httpx

from pixcore.addresses import is_public_address

__all__ = ["AddressRefused", "GuardedBackend", "Resolver", "make_client", "system_resolver"]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Resolves a host name and port to IP addresses (as text)."""


class AddressRefused(Exception):
    """The receiver's host is, or resolves to, an address that is not public."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's resolver (``getaddrinfo``), addresses in its order, each once."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


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
    transport = httpx.AsyncHTTPTransport(trust_env=False, limits=limits)
    # The one line that reaches under httpx: its transport keeps the httpcore pool in `_pool`
    # and offers no parameter for the network backend. tests/integration/test_notifier.py
    # proves that the check is in force (a name resolving to 127.0.0.1 is refused).
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=httpx.create_ssl_context(trust_env=False),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        http1=True,
        http2=False,
        network_backend=GuardedBackend(resolver, allow_private=allow_private),
    )
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
        headers={"user-agent": user_agent},
    )
