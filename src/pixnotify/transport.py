"""The HTTP client of the notifier: it connects only to public addresses, the ones it checked.

A receiver's host name is resolved when a connection is opened, every address it resolves to is
checked (``pixcore.webhooks.addresses.is_public_address``, the rule of registration too) unless private
addresses are allowed, and the connection goes to one of the checked addresses. The name is not
resolved a second time, so a DNS answer that changes between the check and the connection (DNS
rebinding) cannot point the request elsewhere. TLS still verifies the certificate against the host
name of the URL.

Plain ``http://`` goes through a connector of its own whose backend accepts the opposite: only
loopback and private addresses, and only with ``PIX_WEBHOOK_ALLOW_PRIVATE`` on, so
a name that moves to a public address is never sent to in clear text.

:func:`make_webhook_client` builds the notifier's client (:class:`WebhookClient`, on aiohttp: a
resolver per connector calling :meth:`GuardedBackend.addresses`) from
:class:`~pixinfra.settings.NotifierSettings`: one ``ssl.SSLContext`` trusting the public roots
(certifi) and the operator's extra CAs (``PIX_WEBHOOK_CA_FILE``), presenting the notifier's client
certificate when one is set (``PIX_WEBHOOK_CLIENT_CERT``/``PIX_WEBHOOK_CLIENT_KEY``, mutual TLS).
Proxies from the environment are ignored (a proxy would do its own resolution) and redirects are
not followed. Its errors are the notifier's own (:mod:`pixnotify.client`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Self

import aiohttp
import aiohttp.abc
import certifi

from pixcore.webhooks.addresses import embedded_ipv4, is_public_address
from pixcore.webhooks.rules import ALLOW_PRIVATE_VARIABLE
from pixinfra.dns import SystemResolver
from pixinfra.settings import NotifierSettings
from pixnotify.client import (
    AddressRefused,
    Answer,
    ConnectFailed,
    ConnectionClosed,
    DeliveryError,
    Destination,
    InvalidAnswer,
    InvalidURL,
    TimedOut,
    TLSFailed,
    destination,
)

__all__ = [
    "AddressRefused",
    "GuardedBackend",
    "Resolver",
    "WebhookClient",
    "delivery_errors",
    "make_webhook_client",
    "system_resolver",
    "webhook_ssl_context",
]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Resolves a host name and port to IP addresses (as text)."""


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
"""The operating system's resolver (``pixinfra.dns``, shared with registration): addresses in its
order, each once."""


def _literal(host: str) -> str | None:
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(host.strip("[]")))
    return None


class GuardedBackend:
    """Resolves a host and checks every address it resolves to: the addresses a connection may
    then be made to (:class:`WebhookClient` connects to one of them, not resolving again).

    ``plain``: the backend of plain ``http://`` connections, which go only to loopback and private
    addresses (so only when ``allow_private``), never to a public one."""

    def __init__(self, resolver: Resolver, *, allow_private: bool, plain: bool = False) -> None:
        self.resolver = resolver
        self.allow_private = allow_private
        self.plain = plain

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
            except (OSError, UnicodeError) as exc:  # a resolver out of time too (TimeoutError is an OSError)
                raise ConnectFailed(f"cannot resolve {host}: {exc}") from exc
        if not found:
            raise ConnectFailed(f"{host} resolves to no address")
        self.check(host, found)
        return found


def webhook_ssl_context(config: NotifierSettings) -> ssl.SSLContext:
    """The TLS context of every webhook connection: the public roots (certifi),
    plus the CAs of ``PIX_WEBHOOK_CA_FILE``, presenting ``PIX_WEBHOOK_CLIENT_CERT`` (with its key,
    ``PIX_WEBHOOK_CLIENT_KEY``, or the key in the same file) when it is set.

    ``ValueError`` names the setting whose file cannot be used (the settings have checked already
    that the files exist and hold PEM; this also catches a PEM that is no certificate, or a key
    that does not match its certificate)."""
    context = ssl.create_default_context(cafile=certifi.where())
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
def delivery_errors() -> Iterator[None]:
    """aiohttp's errors as the notifier's (:mod:`pixnotify.client`), the phase kept (connect, read,
    the answer), the error under them as their cause; the resolver's (already the notifier's) and
    anything else as they are."""
    try:
        yield
    except aiohttp.ConnectionTimeoutError as exc:
        raise TimedOut("connect", str(exc) or "connecting timed out") from exc
    except aiohttp.ServerTimeoutError as exc:
        raise TimedOut("read", str(exc) or "reading timed out") from exc
    except aiohttp.ClientConnectorCertificateError as exc:  # itself an ssl error, in words of its own
        raise TLSFailed(str(exc)) from exc.certificate_error
    except aiohttp.ClientSSLError as exc:  # a handshake the receiver ended (an alert, a hang-up)
        raise TLSFailed(str(exc)) from exc.os_error
    except aiohttp.ClientConnectorError as exc:  # refused, unreachable: the error under it says
        raise ConnectFailed(str(exc)) from exc.os_error
    except aiohttp.ServerDisconnectedError as exc:
        raise ConnectionClosed("Server disconnected without sending a response.") from exc
    except aiohttp.ClientResponseError as exc:  # an answer that is not HTTP/1.1, as llhttp reads it
        raise InvalidAnswer(" ".join(exc.message.split())) from exc
    except aiohttp.ClientPayloadError as exc:
        raise ConnectionClosed(str(exc)) from exc
    except aiohttp.InvalidURL as exc:
        raise InvalidURL(str(exc)) from exc
    except (aiohttp.ClientOSError, aiohttp.ClientConnectionError) as exc:  # reset, a TLS alert read...
        raise ConnectionClosed(str(exc) or type(exc).__name__) from exc
    except aiohttp.ClientError as exc:
        raise DeliveryError(str(exc) or type(exc).__name__) from exc
    except ssl.SSLError as exc:  # read with the answer (a receiver's alert): aiohttp lets it through
        raise ConnectionClosed(f"TLS: {exc}") from exc


_MAX_TARGETS = 1024  # URLs whose parsing is kept


class WebhookClient:
    """The notifier's webhook client (:class:`pixnotify.client.Client`), on aiohttp.

    Names resolved when a connection is opened and every
    address checked by a :class:`GuardedBackend` (plain ``http://`` through a connector of its own
    whose backend accepts only loopback and private addresses), the connection made to a checked
    address; a literal address checked before the request (aiohttp does not resolve one). The TLS
    context of :func:`webhook_ssl_context`; no proxies, no redirects, no cookies kept, no
    decompression (the attempt log reads the raw start of a body); ``timeout`` for the connection
    (the pool wait included) and for each read; ``limit`` connections at most per connector. Its
    errors are the notifier's own (:func:`delivery_errors`). The sessions are made on first use (they need the
    running loop); an async context manager."""

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
        self._targets: dict[str, Destination] = {}

    def _session(self, scheme: str) -> aiohttp.ClientSession:
        session = self._sessions.get(scheme)
        if session is None:
            connector = aiohttp.TCPConnector(
                limit=self.limit,
                use_dns_cache=False,  # resolved (and checked) at each new connection
                resolver=_CheckingResolver(self.backends[scheme], self.timeout),
                ssl=self.context if scheme == "https" else False,
                keepalive_timeout=5.0,  # seconds an idle connection is kept
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

    def target(self, url: str) -> Destination:
        """Where ``url`` sends to (:func:`pixnotify.client.destination`), parsed once per URL."""
        found = self._targets.get(url)
        if found is None:
            found = destination(url)
            if len(self._targets) >= _MAX_TARGETS:
                self._targets.clear()
            self._targets[url] = found
        return found

    @contextlib.asynccontextmanager
    async def post(self, url: str, body: bytes, headers: Sequence[tuple[str, str]]) -> AsyncIterator[Answer]:
        """POST ``body`` to ``url``: the answer, its body to read from ``chunks`` (released on
        leaving). Errors, reading the body included, are :class:`~pixnotify.client.DeliveryError`."""
        target = self.target(url)
        with delivery_errors():
            if (
                _literal(target.host) is not None
            ):  # aiohttp connects to a literal address without resolving it
                await self.backends[target.scheme].addresses(target.host, target.port)
            session = self._session(target.scheme)
            async with session.post(
                target.request, data=body, headers=headers, allow_redirects=False
            ) as answer:
                yield Answer(answer.status, answer.headers.get, answer.content.iter_any())

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
