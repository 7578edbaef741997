"""Why an attempt failed, in the words a developer looks for.

One place turns what an attempt got into the text stored as the delivery's ``last_error`` (shown
by ``pixnotify status`` and the deliveries list's ``lastError``) and logged with the attempt:

* :func:`describe_error`: an exception raised while sending (no answer): ``connection refused by
  127.0.0.1:9``, ``TLS verification failed for host X: <reason>``, ``timed out after 15 s ...``,
  ``address refused: 10.0.0.1 is private (PIX_WEBHOOK_ALLOW_PRIVATE is off)``...
* :func:`describe_answer`: an answer that is not a success: ``answered 500``.

The errors are the notifier's own (:mod:`pixnotify.client`); the exception's chain is read (the
``ssl`` or ``OSError`` under them) for the most telling cause; anything not recognised keeps its
name and message.
"""

from __future__ import annotations

import errno
import ssl
from collections.abc import Iterator
from dataclasses import dataclass

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

__all__ = ["INVALID_ANSWER", "Target", "describe_answer", "describe_error"]

INVALID_ANSWER = "invalid HTTP answer"
"""How the text of an answer the client cannot parse (:class:`~pixnotify.client.InvalidAnswer`)
starts: the log says so, not that the connection closed."""

_CLIENT_CERT_ALERTS = ("CERTIFICATE_REQUIRED", "HANDSHAKE_FAILURE", "PEER_DID_NOT_RETURN_A_CERTIFICATE")
_TIMEOUT_PHASES = {"connect": "connecting to {where}", "read": "waiting for the answer of {where}"}


@dataclass(frozen=True, slots=True)
class Target:
    """Where the attempt went, and what the notifier had for it."""

    host: str
    port: int
    timeout: float  # seconds the attempt had
    client_cert: bool = False  # PIX_WEBHOOK_CLIENT_CERT is set

    @classmethod
    def of(cls, url: str, *, timeout: float, client_cert: bool = False) -> Target:
        try:
            parsed = destination(url)
        except InvalidURL:
            return cls(url, 0, timeout, client_cert)
        return cls(parsed.host, parsed.port, timeout, client_cert)

    @property
    def where(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _tls(error: ssl.SSLError, target: Target) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        reason = getattr(error, "verify_message", None) or getattr(error, "reason", None) or str(error)
        return f"TLS verification failed for host {target.host}: {reason}"
    reason = getattr(error, "reason", None) or str(error)  # set by the ssl module, not by every raiser
    if any(alert in reason.upper() for alert in _CLIENT_CERT_ALERTS) and not target.client_cert:
        return (
            f"TLS handshake with {target.where} failed: the receiver asked for a client certificate "
            "(PIX_WEBHOOK_CLIENT_CERT is not set)"
        )
    return f"TLS handshake with {target.where} failed: {reason}"


def _closed(target: Target, *, tls: bool) -> str:
    text = f"connection closed by {target.where} before an answer"
    if tls and not target.client_cert:
        text += (
            " (a receiver that requires a client certificate does this: PIX_WEBHOOK_CLIENT_CERT is not set)"
        )
    return text


def _timeout(exc: BaseException, target: Target) -> str | None:
    if isinstance(exc, TimeoutError):  # the attempt's own deadline
        return f"timed out after {target.timeout:g} s"
    if isinstance(exc, TimedOut):
        return f"timed out after {target.timeout:g} s {_TIMEOUT_PHASES[exc.phase].format(where=target.where)}"
    return None


def _cause(exc: BaseException, target: Target, *, tls: bool) -> str | None:
    """The text of the most telling cause in the chain (TLS, refused, reset), if there is one."""
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLError) and not isinstance(
            cause, ssl.SSLEOFError | ssl.SSLZeroReturnError
        ):
            return _tls(cause, target)
        if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED:
            return f"connection refused by {target.where}"
        if isinstance(cause, ConnectionResetError | ssl.SSLEOFError | BrokenPipeError):
            return _closed(target, tls=tls)
    return None


def describe_error(exc: BaseException, target: Target, *, tls: bool) -> str:
    """The text of an attempt that got no answer because ``exc`` was raised (``tls``: https)."""
    if isinstance(exc, AddressRefused):
        return f"address refused: {exc}"
    if isinstance(exc, InvalidURL):
        return f"invalid URL: {exc}"
    text = _timeout(exc, target) or _cause(exc, target, tls=tls)
    if text is None:
        if isinstance(exc, ConnectFailed) and str(exc).startswith(("cannot resolve", target.host)):
            text = str(exc)  # the resolver's words: "cannot resolve X: ...", "X resolves to no address"
        elif isinstance(exc, InvalidAnswer):
            text = f"{INVALID_ANSWER} from {target.where}: {exc}"
        elif isinstance(exc, ConnectionClosed):
            text = _closed(target, tls=tls)
        elif isinstance(exc, DeliveryError):
            text = f"{exc.label} with {target.where}: {exc or 'no detail'}"
        else:
            text = f"{type(exc).__name__}: {exc}"
    return text


def describe_answer(status_code: int) -> str:
    """The text of an answer that is not a 2xx."""
    if 300 <= status_code <= 399:
        return f"answered {status_code} (a redirect: not followed)"
    return f"answered {status_code}"
