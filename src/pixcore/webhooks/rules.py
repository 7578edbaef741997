"""Webhook rules: the registrable event types, whose addresses may receive
notifications, and the retry schedule. Which registration type a notification goes to is the typed
event's ``webhook_type`` (``pixcore.events``), stored with it in the outbox.

Registration rules live here too: ``Registration.parse`` checks a ``POST /api/webhooks``
body (HTTPS URL, or ``http://`` with ``PIX_WEBHOOK_ALLOW_PRIVATE`` for a loopback or private host,
event type, at most 5 custom headers whose names are HTTP tokens,
not blocked in any letter case, and whose values carry no control characters) and
reports every broken rule at once. Whether the URL's host resolves to public
addresses is I/O: ``refused_addresses`` judges what a ``HostResolver`` returned.
"""

from __future__ import annotations

import base64
import enum
import ipaddress
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pixcore.errors import InvalidWebhook
from pixcore.problems import Field, Problem
from pixcore.webhooks.addresses import is_public_address

__all__ = [
    "ALLOW_PRIVATE_VARIABLE",
    "BLOCKED_HEADERS",
    "HEADER_NAME_PATTERN",
    "HEADER_VALUE_PATTERN",
    "MAX_ACTIVE_URLS",
    "MAX_HEADERS",
    "MAX_HEADER_NAME",
    "MAX_HEADER_VALUE",
    "MAX_URL_LENGTH",
    "REGISTRABLE",
    "RESERVED_HEADERS",
    "RETRY_SCHEDULE",
    "SECRET_GRACE",
    "SECRET_PREFIX",
    "STANDARD_SUFFIX",
    "STANDARD_TYPES",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryDetail",
    "DeliveryField",
    "DeliveryFilter",
    "DeliveryStatus",
    "EventType",
    "NewWebhook",
    "Registration",
    "Webhook",
    "WebhookField",
    "WebhookSecret",
    "WebhookUrl",
    "header_problems",
    "is_public_address",
    "is_secret",
    "new_webhook_secret",
    "parse_event_type",
    "parse_headers",
    "parse_webhook_url",
    "refused_addresses",
    "standard_target",
]


class WebhookField(Field):
    """The fields of a registration, as :meth:`Registration.parse` and the host check name them."""

    URL = enum.auto()
    EVENT_TYPE = enum.auto()
    HEADERS = enum.auto()


class DeliveryField(Field):
    """The filters of the deliveries list that its rules name in their problems."""

    WEBHOOK = enum.auto()
    LIMIT = enum.auto()


class EventType(enum.StrEnum):
    CASH_IN = "cash_in"
    CASH_OUT = "cash_out"
    REFUND_IN = "refund_in"
    REFUND_OUT = "refund_out"
    MED_CREATED = "med_created"
    MED_ACCEPTED = "med_accepted"
    MED_REJECTED = "med_rejected"
    PIX = "pix"
    """The standard's webhook of one key (``PUT /webhook/{chave}``): not registrable at
    ``/api/webhooks`` (see :data:`REGISTRABLE`)."""
    REC = "rec"
    """The standard's webhook of the account's recurrences (``PUT /webhookrec``), not registrable
    at ``/api/webhooks``."""
    COBR = "cobr"
    """The standard's webhook of the account's recurring charges (``PUT /webhookcobr``), not
    registrable at ``/api/webhooks``."""


STANDARD_TYPES = frozenset({EventType.PIX, EventType.REC, EventType.COBR})
"""The registrations the standard's own operations make (``/webhook/{chave}``, ``/webhookrec``,
``/webhookcobr``): each has the ``webhookUrl`` its client gave, and ``/api/webhooks`` never shows them."""
REGISTRABLE: tuple[EventType, ...] = tuple(kind for kind in EventType if kind not in STANDARD_TYPES)
"""The event types ``POST /api/webhooks`` takes."""


RETRY_SCHEDULE: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
"""Delay before each attempt (Standard Webhooks): the first at once, the eighth 10 h after the
seventh. Jitter is added by the notifier; after the last attempt the delivery is failed."""


# -- registration rules ------------------------------------------------------

ALLOW_PRIVATE_VARIABLE = "PIX_WEBHOOK_ALLOW_PRIVATE"
"""The operator's setting that lets loopback and private receivers (``http://`` ones too) be
registered and sent to: named in every refusal it would lift."""

MAX_ACTIVE_URLS = 3
"""Active URLs per event type per account (spec, Limits)."""

MAX_HEADERS = 5
MAX_HEADER_NAME = 64
MAX_HEADER_VALUE = 1024
MAX_URL_LENGTH = 2048  # the column's width

BLOCKED_HEADERS = frozenset(
    {"host", "content-length", "connection", "transfer-encoding", "content-type", "user-agent"}
)
"""Header names the spec refuses; compared case-insensitively."""

RESERVED_HEADERS = frozenset({"webhook-id", "webhook-timestamp", "webhook-signature"})
"""The Standard Webhooks headers the notifier sets: a custom header may not replace them."""

HEADER_NAME_PATTERN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"  # RFC 9110 §5.6.2: a token
HEADER_VALUE_PATTERN = r"[\t\x20-\x7e]*"  # visible ASCII, space and tab: no CR, LF, NUL or other controls
_TOKEN = re.compile(HEADER_NAME_PATTERN)
_FIELD_VALUE = re.compile(HEADER_VALUE_PATTERN)
_URL_CHARS = re.compile(r"[\x21-\x7e]+")  # printable ASCII without spaces
_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")  # a host ending so is an IPv4 address (WHATWG URL)
_LOCAL_NAMES = ("localhost", "localhost.")


def parse_event_type(raw: str) -> EventType:
    try:
        kind = EventType(raw)
    except ValueError:
        kind = None
    if kind is None or kind not in REGISTRABLE:
        raise InvalidWebhook(f"must be one of {', '.join(t.value for t in REGISTRABLE)}")
    return kind


def header_problems(name: str, value: str) -> list[str]:
    """What is wrong with one custom header (empty when it may be sent)."""
    problems: list[str] = []
    if not _TOKEN.fullmatch(name):
        problems.append(f"header name {name!r} is not an HTTP token")
    elif len(name) > MAX_HEADER_NAME:
        problems.append(f"header name {name[:20]!r}... is longer than {MAX_HEADER_NAME} characters")
    elif name.lower() in BLOCKED_HEADERS or name.lower() in RESERVED_HEADERS:
        problems.append(f"header {name!r} may not be set")
    if not _FIELD_VALUE.fullmatch(value):
        problems.append(f"the value of header {name!r} has control or non-ASCII characters")
    elif len(value) > MAX_HEADER_VALUE:
        problems.append(f"the value of header {name!r} is longer than {MAX_HEADER_VALUE} characters")
    return problems


def _header_problems(items: Sequence[tuple[str, str]]) -> list[str]:
    if len(items) > MAX_HEADERS:
        return [f"at most {MAX_HEADERS} headers, not {len(items)}"]
    problems: list[str] = []
    seen: set[str] = set()
    for name, value in items:
        problems.extend(header_problems(name, value))
        if name.lower() in seen:
            problems.append(f"header {name!r} is given twice")
        seen.add(name.lower())
    return problems


def parse_headers(items: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The custom headers as a name -> value map (names as given), or ``InvalidWebhook``."""
    problems = _header_problems(items)
    if problems:
        raise InvalidWebhook("; ".join(problems), details=problems)
    return dict(items)


@dataclass(frozen=True, slots=True)
class WebhookUrl:
    """An HTTPS URL (or, for development receivers, an HTTP one), normalised: scheme and host
    lower-case, no default port, path at least ``/``."""

    url: str
    host: str  # without brackets for IPv6
    port: int
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None  # set when the host is an IP literal
    secure: bool = True  # https; False for http (loopback and private hosts only, see check_host)

    @property
    def is_local_name(self) -> bool:
        """``localhost`` and its subdomains always mean this machine (RFC 6761)."""
        return self.host in _LOCAL_NAMES or self.host.rstrip(".").endswith(".localhost")


def _host_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _check_name(host: str) -> None:
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidWebhook(f"{host!r} is not a valid host name")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):  # 2130706433, 0177.0.0.1, 0x7f.1, 127.1: resolvers differ
        raise InvalidWebhook(f"{host!r} is not a valid host name (write an IPv4 address as a.b.c.d)")


def _scheme(given: str, *, allow_http: bool) -> str:
    scheme = given.lower()
    if scheme == "http" and not allow_http:
        raise InvalidWebhook(
            "must be an HTTPS URL (http:// is accepted for loopback and private hosts only when the "
            f"operator sets {ALLOW_PRIVATE_VARIABLE})"
        )
    if scheme not in ("https", "http"):
        raise InvalidWebhook("must be an HTTPS URL")
    return scheme


def parse_webhook_url(raw: str, *, allow_http: bool = False) -> WebhookUrl:
    """Parse an absolute ``https://`` URL (printable ASCII, no credentials, no fragment); with
    ``allow_http`` (``PIX_WEBHOOK_ALLOW_PRIVATE`` on), an ``http://`` one too, whose host is then
    for the address check to judge (loopback and private hosts only)."""
    if len(raw) > MAX_URL_LENGTH:
        raise InvalidWebhook(f"at most {MAX_URL_LENGTH} characters")
    if not _URL_CHARS.fullmatch(raw):
        raise InvalidWebhook("must be printable ASCII without spaces (percent-encode the rest)")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise InvalidWebhook(f"not a valid URL ({exc})") from None
    scheme = _scheme(parts.scheme, allow_http=allow_http)
    host = (parts.hostname or "").lower()
    if not host:
        raise InvalidWebhook("has no host")
    if parts.username is not None or parts.password is not None:
        raise InvalidWebhook("may not carry credentials (send them in a custom header)")
    if parts.fragment or raw.endswith("#"):
        raise InvalidWebhook("may not have a fragment")
    if port == 0:
        raise InvalidWebhook("port 0 is not a valid port")
    address = _host_address(host)
    if address is None:
        if "[" in parts.netloc:
            raise InvalidWebhook(f"{host!r} is not a valid IPv6 address")
        _check_name(host)
    elif isinstance(address, ipaddress.IPv6Address) and "[" not in parts.netloc:
        raise InvalidWebhook("an IPv6 address must be written in brackets")
    netloc = f"[{host}]" if isinstance(address, ipaddress.IPv6Address) else host
    default_port = 443 if scheme == "https" else 80
    if port is not None and port != default_port:
        netloc += f":{port}"
    url = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
    return WebhookUrl(
        url=url, host=host, port=port or default_port, address=address, secure=scheme == "https"
    )


STANDARD_SUFFIX = "/pix"
"""What the standard's callback adds to a key's ``webhookUrl`` (``{webhookUrl}/pix``)."""


def standard_target(url: WebhookUrl, suffix: str = STANDARD_SUFFIX) -> WebhookUrl:
    """Where a standard's webhook is POSTed: ``url`` with ``suffix`` added to its path (a key's
    ``/pix``, a recurrence's ``/rec``, a recurring charge's ``/cobr``: the document's callbacks),
    before the query, one slash between whether the path ended in one or not. ``InvalidWebhook``
    if too long."""
    parts = urlsplit(url.url)
    path = parts.path.rstrip("/") + suffix
    target = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
    if len(target) > MAX_URL_LENGTH:
        raise InvalidWebhook(f"at most {MAX_URL_LENGTH - len(suffix)} characters")
    return WebhookUrl(target, url.host, url.port, url.address, url.secure)


@dataclass(frozen=True, slots=True)
class Registration:
    """A valid ``POST /api/webhooks`` body."""

    url: WebhookUrl
    event_type: EventType
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(
        cls,
        *,
        url: str,
        event_type: str,
        headers: Sequence[tuple[str, str]] = (),
        allow_http: bool = False,
    ) -> Registration:
        """Every 400 rule of the body, collected into one ``InvalidWebhook`` (``allow_http``: see
        :func:`parse_webhook_url`)."""
        problems: list[Problem] = []
        parsed_url = parsed_type = None
        try:
            parsed_url = parse_webhook_url(url, allow_http=allow_http)
        except InvalidWebhook as exc:
            problems.append(Problem.of(WebhookField.URL, exc.message))
        try:
            parsed_type = parse_event_type(event_type)
        except InvalidWebhook as exc:
            problems.append(Problem.of(WebhookField.EVENT_TYPE, exc.message))
        problems.extend(Problem.of(WebhookField.HEADERS, problem) for problem in _header_problems(headers))
        if problems or parsed_url is None or parsed_type is None:
            raise InvalidWebhook(problems=problems, summary="Invalid webhook registration: {}")
        return cls(parsed_url, parsed_type, dict(headers))


def refused_addresses(addresses: Iterable[str]) -> list[str]:
    """The addresses among ``addresses`` that may not receive notifications: non-public ones,
    and anything that is not an IP address at all."""
    refused: list[str] = []
    for address in addresses:
        try:
            public = is_public_address(address)
        except ValueError:
            public = False
        if not public:
            refused.append(address)
    return refused


# -- secrets -------------------------------------------------------------------

SECRET_PREFIX = "whsec_"  # noqa: S105 - a prefix, not a secret
SECRET_BYTES = 24
SECRET_GRACE = timedelta(hours=24)
"""How long the previous secret still signs after a rotation."""


def new_webhook_secret() -> str:
    """``whsec_`` + base64 of 24 random bytes (Standard Webhooks: 24 to 64 bytes)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def is_secret(text: str) -> bool:
    """True for a secret as ``new_webhook_secret`` makes them."""
    if not text.startswith(SECRET_PREFIX):
        return False
    try:
        return len(base64.b64decode(text[len(SECRET_PREFIX) :], validate=True)) == SECRET_BYTES
    except ValueError:
        return False


# -- records -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewWebhook:
    account_id: int
    event_type: EventType
    url: str
    headers: Mapping[str, str]
    created_at: datetime
    pix_key: str | None = None  # set on a PIX registration (a key's webhook) only
    webhook_url: str | None = None  # a key's webhook: the URL as the client gave it (``url`` + /pix)


@dataclass(frozen=True, slots=True)
class Webhook:
    id: int
    account_id: int
    event_type: EventType
    url: str
    headers: Mapping[str, str]
    version: int
    is_active: bool
    created_at: datetime
    updated_at: datetime
    deactivated_at: datetime | None = None
    deactivation_reason: str | None = None
    pix_key: str | None = None  # a key's webhook (event type PIX): its key
    webhook_url: str | None = None  # a key's webhook: its ``webhookUrl``; ``url`` is where it is sent


@dataclass(frozen=True, slots=True)
class WebhookSecret:
    account_id: int
    secret: str
    created_at: datetime
    previous_secret: str | None = None
    previous_until: datetime | None = None
    rotated_at: datetime | None = None


class DeliveryStatus(enum.StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Delivery:
    """One notification to one URL, with its retry state (``next_attempt_at`` set iff pending)."""

    id: int
    message_id: str
    webhook_id: int
    account_id: int
    event_type: EventType
    url: str
    status: DeliveryStatus
    attempts: int
    created_at: datetime
    next_attempt_at: datetime | None = None
    last_attempt_at: datetime | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    finished_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DeliveryAttempt:
    """One attempt of a delivery, as its log keeps it: never a secret or a custom header's value."""

    attempted_at: datetime
    status_code: int | None  # None: no answer came
    duration_ms: int
    error: str | None  # None on an answer
    response_body: str | None  # the start of the answer (at most 2048 characters)


@dataclass(frozen=True, slots=True)
class DeliveryDetail:
    """A delivery with the notification it sends (``{type, data}``, exactly the JSON object of the
    body) and its attempts, oldest first."""

    delivery: Delivery
    payload: dict[str, Any]
    attempts: tuple[DeliveryAttempt, ...]


@dataclass(frozen=True, slots=True)
class DeliveryFilter:
    """Which deliveries a list shows: each field narrows it (None: any)."""

    webhook_id: int | None = None
    status: DeliveryStatus | None = None
    event_type: EventType | None = None
    created_from: datetime | None = None  # inclusive
    created_to: datetime | None = None  # inclusive
    end_to_end_id: str | None = None
    """The notifications about one PIX: their ``data.endToEndId`` (or their ``pix`` item's) is it
    (the console's links from a transaction to its deliveries)."""
