"""How one webhook delivery attempt is made and judged (Standard Webhooks).

Pure rules, no I/O: the notifier (``pixnotify``) does the sending and the storing.

* :func:`message_id` names a delivery; it is the ``webhook-id`` of every attempt.
* :func:`encode_body` gives the exact bytes sent, the same on every attempt.
* :func:`signature_header` signs ``id.timestamp.body`` with the account's secret
  (and, during a rotation, with the previous one too: both signatures, space-separated).
* :func:`judge` turns what an attempt got (a status code, or none) into a :class:`Verdict`:
  delivered, retry at a moment, or failed (and whether the registration is to be deactivated).
* :func:`retry_delay` is the jittered schedule (``RETRY_SCHEDULE``);
  :func:`parse_retry_after` reads a ``Retry-After`` header, bounded.
* :class:`Claim` (a due delivery leased to a notifier) and :class:`Attempted` (an attempt and its
  verdict) are what the notifier and its store (``pixcore.webhooks.ports.DeliveryStore``) exchange.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from pixcore.webhooks.rules import RETRY_SCHEDULE, SECRET_PREFIX, DeliveryStatus

__all__ = [
    "GONE_REASON",
    "INACTIVE_REASON",
    "JITTER",
    "MAX_ATTEMPTS",
    "MAX_REASON",
    "MAX_RESPONSE_BODY",
    "MAX_RETRY_AFTER",
    "MIN_RETRY_AFTER",
    "STANDARD_TYPE",
    "STANDARD_TYPES",
    "Attempted",
    "Claim",
    "Verdict",
    "encode_body",
    "judge",
    "message_id",
    "parse_retry_after",
    "retry_delay",
    "secret_key",
    "sign",
    "signature_header",
]

MAX_ATTEMPTS = len(RETRY_SCHEDULE)
JITTER = 0.1
"""Each scheduled delay is moved by up to this fraction either way, so that retries spread out."""
MIN_RETRY_AFTER = timedelta(seconds=1)
MAX_RETRY_AFTER = max(RETRY_SCHEDULE)
"""A receiver's ``Retry-After`` is honoured within these bounds (not sooner, not later than the
schedule's longest step)."""
MAX_REASON = 300
"""A delivery keeps at most this many characters of why its last attempt failed."""
MAX_RESPONSE_BODY = 2048
"""An attempt's log keeps at most this many characters of the receiver's answer."""
GONE_REASON = "gone (HTTP 410)"
"""Why a registration whose receiver answered 410 Gone was deactivated."""
INACTIVE_REASON = "the registration is no longer active"
"""Why a delivery whose registration went inactive after the fan-out failed without an attempt."""


def message_id(outbox_id: int, webhook_id: int) -> str:
    """The ``webhook-id`` of the delivery of one event to one registration: stable across retries,
    no full stop in it (the signed content is ``id.timestamp.body``)."""
    return f"msg_{outbox_id}_{webhook_id}"


STANDARD_TYPE = "PIX"
"""The type of the events sent to a key's webhook (``pixcore.events.NotificationType.PIX``)."""
STANDARD_TYPES = frozenset({STANDARD_TYPE, "REC", "COBR"})
"""The types of the events that are the standard's callbacks, sent without the envelope: a key's
PIX, and Pix Automático's REC and COBR (``pixcore.events.RecurringNotification``)."""


def encode_body(event: Mapping[str, Any]) -> bytes:
    """The envelope ``{type, data}`` as compact JSON: a deterministic function of the event, so
    every attempt sends (and signs) the same bytes. A standard's callback (a key's PIX, a REC, a
    COBR) sends its ``data`` alone: ``{"pix": [...]}``, ``{"recs": [...]}``, ``{"cobsr": [...]}``."""
    standard = event["type"] in STANDARD_TYPES
    sent = event["data"] if standard else {"type": event["type"], "data": event["data"]}
    return json.dumps(sent, separators=(",", ":"), ensure_ascii=False).encode()


def secret_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_<base64>`` secret."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError("a webhook secret starts with whsec_")
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error:
        raise ValueError("a webhook secret is whsec_ and base64") from None
    if not key:
        raise ValueError("a webhook secret is not empty")
    return key


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """``v1,<base64 HMAC-SHA256 of "id.timestamp.body">``."""
    content = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signature_header(secrets: Iterable[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value: one signature per secret, space-separated."""
    return " ".join(sign(secret, msg_id, timestamp, body) for secret in secrets)


def retry_delay(attempts: int, rng: random.Random) -> timedelta | None:
    """The delay before the next attempt, ``attempts`` having been made; None when they are all spent.

    The schedule's step, moved by up to ``JITTER`` of itself either way (a zero step stays zero).
    """
    if attempts < 1:
        raise ValueError("the first attempt is made at once, not scheduled")
    if attempts >= MAX_ATTEMPTS:
        return None
    step = RETRY_SCHEDULE[attempts]
    return step * (1 + rng.uniform(-JITTER, JITTER))


def parse_retry_after(value: str | None, now: datetime) -> timedelta | None:
    """A ``Retry-After`` header (delay in seconds, or an HTTP date) as a delay from ``now``,
    clamped to [``MIN_RETRY_AFTER``, ``MAX_RETRY_AFTER``]; None when absent or unreadable."""
    if value is None or not (text := value.strip()):
        return None
    delay: timedelta
    if text.isascii() and text.isdigit():
        delay = timedelta(seconds=min(int(text), int(MAX_RETRY_AFTER.total_seconds())))
    else:
        try:
            moment = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)  # HTTP dates are GMT
        delay = moment - now
    return min(max(delay, MIN_RETRY_AFTER), MAX_RETRY_AFTER)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to store after an attempt."""

    status: DeliveryStatus
    next_attempt_at: datetime | None  # set iff status is pending
    deactivate: bool = False  # the receiver answered 410 Gone: the registration goes inactive
    reason: str | None = None  # why it was not delivered


def judge(
    *,
    attempts: int,
    status_code: int | None,
    now: datetime,
    rng: random.Random,
    retry_after: str | None = None,
    error: str | None = None,
) -> Verdict:
    """The verdict on attempt number ``attempts`` (1-based) that got ``status_code`` (None: no
    response, ``error`` says why).

    Any 2xx is success. Everything else is a failure, redirects included (they are not followed).
    410 ends the delivery and deactivates the registration. 429 and 503 retry when
    ``Retry-After`` says (bounded), other failures as the schedule says; the last failure is final.
    """
    if status_code is not None and 200 <= status_code <= 299:
        return Verdict(DeliveryStatus.DELIVERED, None)
    reason = error or f"HTTP {status_code}"
    if status_code == 410:
        return Verdict(DeliveryStatus.FAILED, None, deactivate=True, reason="HTTP 410: the receiver is gone")
    delay = retry_delay(attempts, rng)
    if delay is None:
        return Verdict(DeliveryStatus.FAILED, None, reason=reason)
    if status_code in (429, 503) and (asked := parse_retry_after(retry_after, now)) is not None:
        delay = asked
    return Verdict(DeliveryStatus.PENDING, now + delay, reason=reason)


@dataclass(frozen=True, slots=True)
class Claim:
    """A due delivery, leased to one notifier until ``lease_until``, with what it takes to send it."""

    id: int
    message_id: str
    webhook_id: int
    account_id: int
    attempts: int  # made before this one
    lease_until: datetime
    event: dict[str, Any]
    url: str
    headers: dict[str, str]
    active: bool
    secrets: tuple[str, ...]  # the current one first; the previous one during a rotation


@dataclass(frozen=True, slots=True)
class Attempted:
    """An attempt and its verdict, to store; with what its log keeps (``webhook_attempts``): how
    long it took, the error when no answer came, the start of the answer's body."""

    claim: Claim
    verdict: Verdict
    attempted_at: datetime
    status_code: int | None
    duration_ms: int = 0
    error: str | None = None  # None on an answer
    response_body: str | None = None  # at most MAX_RESPONSE_BODY characters

    def log_error(self) -> str | None:
        """The error the attempt log keeps: the outcome's own words, bounded; None on an answer."""
        if self.status_code is not None or self.error is None:
            return None
        return self.error[:MAX_REASON].replace("\x00", "\ufffd")

    def log_body(self) -> str | None:
        """The answer's body the attempt log keeps, bounded (``MAX_RESPONSE_BODY``); no NUL."""
        if self.response_body is None:
            return None
        return self.response_body[:MAX_RESPONSE_BODY].replace("\x00", "\ufffd")
