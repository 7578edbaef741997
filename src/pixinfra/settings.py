"""The service's settings: a typed object read once from the environment.

Every setting is an environment variable with a documented default (the table
is repeated in ``docs/operations.md``). ``make run`` passes the environment
through unchanged.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pixcore.identifiers import validate_ispb
from pixcore.network.claims import ClaimPolicy
from pixinfra.postgres.url import parse_database_url

__all__ = ["DATA_FOLDER", "NetworkAccess", "NotifierSettings", "Settings", "find_data_dir", "get_settings"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{name} must be one of {sorted(_TRUE | _FALSE - {''})}, not {raw!r}")


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, not {raw!r}") from None


RETENTION_TABLES = ("transactions", "ledger_entries", "outbox", "webhook_attempts")
"""The history tables a ``PIX_RETENTION_<TABLE>`` setting may name."""


def _retention_months() -> tuple[tuple[str, int], ...]:
    """``PIX_RETENTION_<TABLE>``: months of each history table to keep (unset: all)."""
    months = []
    for table in RETENTION_TABLES:
        name = f"PIX_RETENTION_{table.upper()}"
        if os.environ.get(name, "").strip():
            months.append((table, _positive_int(name, 1)))
    return tuple(months)


def _retention_action() -> str:
    raw = os.environ.get("PIX_RETENTION_ACTION", "").strip().lower() or "drop"
    if raw not in ("drop", "keep"):
        raise ValueError(f"PIX_RETENTION_ACTION must be 'drop' or 'keep', not {raw!r}")
    return raw


def _positive_int(name: str, default: int) -> int:
    value = _int(name, default)
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}")
    return value


def _non_negative_int(name: str, default: int) -> int:
    value = _int(name, default)
    if value < 0:
        raise ValueError(f"{name} must be at least 0, not {value}")
    return value


def _at_least(name: str, default: int, low: int) -> int:
    value = _int(name, default)
    if value < low:
        raise ValueError(f"{name} must be at least {low}, not {value}")
    return value


def _float(name: str, default: float, *, low: float, strict: bool) -> float:
    """A number of seconds: more than ``low`` (``strict``), or at least ``low``."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None
    if not math.isfinite(value) or value < low or (strict and value == low):
        raise ValueError(f"{name} must be {'more than' if strict else 'at least'} {low:g}, not {raw!r}")
    return value


def _str(name: str, default: str) -> str:
    raw = os.environ.get(name)
    return raw if raw else default


_ROOT_SEGMENTS = frozenset(
    {"api", "accounts", "balance", "cob", "cobv", "console", "dict", "health", "loc", "lotecobv", "metrics"}
    | {"pix", "qr", "sandbox", "schema", "webhook", ".well-known"}
)
"""The first segments of the service's own routes, which the standard's prefix may not shadow."""
_PREFIX = re.compile(r"(/[A-Za-z0-9._~-]+)+")


def validate_prefix(prefix: str) -> str:
    """A path prefix of one or more segments (``/bcb/v2``), without a trailing slash."""
    prefix = prefix.rstrip("/")
    if _PREFIX.fullmatch(prefix) is None:
        raise ValueError(
            f"PIX_STANDARD_PREFIX must be a path such as /bcb/v2 (segments of letters, digits, . _ ~ -),"
            f" not {prefix!r}"
        )
    first = prefix.split("/")[1]
    if first in _ROOT_SEGMENTS:
        raise ValueError(
            f"PIX_STANDARD_PREFIX must not start with /{first}: the service's own routes are there"
        )
    return prefix


def _choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = _str(name, default).strip().lower()
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, not {os.environ.get(name)!r}")
    return value


def _database_url(name: str) -> str | None:
    """A PostgreSQL URL (one host or a list, :mod:`pixinfra.postgres.url`), checked; unset: None.
    A list must ask for the primary: any other server refuses writes."""
    raw = os.environ.get(name) or None
    if raw is None:
        return None
    url = parse_database_url(raw, name)
    if len(url.addresses) > 1 and url.target_session_attrs not in {"read-write", "primary"}:
        raise ValueError(
            f"{name} lists {len(url.addresses)} servers: add ?target_session_attrs=read-write, so"
            " that the service always writes to the one that is the primary"
        )
    return raw


def _read_url(name: str, primary: str | None) -> str | None:
    """The read replica's URL (one host or a list, any ``target_session_attrs``), checked; unset:
    None. It needs ``PIX_DATABASE_URL``: the embedded server has no replica."""
    raw = os.environ.get(name) or None
    if raw is None:
        return None
    parse_database_url(raw, name)
    if primary is None:
        raise ValueError(f"{name} is set without PIX_DATABASE_URL: the embedded server has no replica")
    return raw


def _path(name: str) -> Path | None:
    raw = os.environ.get(name, "").strip()
    return Path(raw) if raw else None


def _check_pem(variable: str, path: Path) -> None:
    """A file that exists, can be read, and holds PEM (``-----BEGIN``): what each TLS file setting
    needs before the notifier starts (whether it is the right PEM is for ``ssl`` to say)."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{variable}={path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{variable}={path}: cannot be read ({exc.strerror})") from None
    if b"-----BEGIN " not in text:
        raise ValueError(f"{variable}={path}: not a PEM file (no -----BEGIN line)")


def _claim_policy() -> ClaimPolicy:
    raw = os.environ.get("PIX_NETWORK_CLAIMS", "").strip().lower() or ClaimPolicy.CONFIRM.value
    try:
        return ClaimPolicy(raw)
    except ValueError:
        choices = ", ".join(policy.value for policy in ClaimPolicy)
        raise ValueError(f"PIX_NETWORK_CLAIMS={raw}: one of {choices}") from None


@dataclass(frozen=True, slots=True)
class NetworkAccess:
    """``PIX_NETWORK_*``: the PIX network (``pixnet``) this service is a participant of. With it the
    service's outside world is the network (its DICT and SPI) instead of the built-in sandbox."""

    url: str
    """``PIX_NETWORK_URL``: the network's base URL (``https://127.0.0.1:16422``)."""
    certificate: Path
    """``PIX_NETWORK_CERTIFICATE``: this institution's certificate (PEM), registered at the network:
    its client certificate, and the one its messages are signed with."""
    private_key: Path
    """``PIX_NETWORK_PRIVATE_KEY``: that certificate's RSA key (PEM)."""
    authority: Path
    """``PIX_NETWORK_CA_CERTIFICATE``: the authority the network's TLS certificate is checked against."""
    network_certificate: Path
    """``PIX_NETWORK_SIGNER_CERTIFICATE``: the network's own certificate, which its answers are
    verified against."""
    claims: ClaimPolicy = ClaimPolicy.CONFIRM
    """``PIX_NETWORK_CLAIMS``: how claims of other institutions against our keys are answered:
    ``confirm`` (the default), ``refuse``, or ``operator`` (``pixweb admin network claims``)."""

    @classmethod
    def from_env(cls) -> NetworkAccess | None:
        url = os.environ.get("PIX_NETWORK_URL", "").strip()
        if not url:
            return None
        if not url.startswith("https://"):
            raise ValueError(f"PIX_NETWORK_URL={url}: the network is reached over https only")
        files = {}
        for variable in (
            "PIX_NETWORK_CERTIFICATE",
            "PIX_NETWORK_PRIVATE_KEY",
            "PIX_NETWORK_CA_CERTIFICATE",
            "PIX_NETWORK_SIGNER_CERTIFICATE",
        ):
            path = _path(variable)
            if path is None:
                raise ValueError(f"{variable} is required with PIX_NETWORK_URL: the path of a PEM file")
            _check_pem(variable, path)
            files[variable] = path
        return cls(
            url.rstrip("/"),
            files["PIX_NETWORK_CERTIFICATE"],
            files["PIX_NETWORK_PRIVATE_KEY"],
            files["PIX_NETWORK_CA_CERTIFICATE"],
            files["PIX_NETWORK_SIGNER_CERTIFICATE"],
            _claim_policy(),
        )


LOCATION_ID_LENGTH = 32
DUE_LOCATION = "cobv/"  # a due-date charge's payload is at {prefix}cobv/<id> (pixcore.charges.cob_service)
MAX_LOCATION = 77  # a BR Code URL (26-25) holds at most 77 characters


@dataclass(frozen=True, slots=True)
class NotifierSettings:
    """How webhook delivery works, in ``pixnotify run`` and inside ``pixweb serve`` alike
    (``pixnotify run --help`` shows each with its variable; options given there win)."""

    concurrency: int = 16
    """``PIX_NOTIFY_CONCURRENCY`` (default ``16``): deliveries in flight at most (HTTP connections)."""

    batch_size: int = 100
    """``PIX_NOTIFY_BATCH_SIZE`` (default ``100``): outbox events fanned out per transaction;
    deliveries claimed per round at most."""

    poll_interval: float = 0.1
    """``PIX_NOTIFY_POLL_INTERVAL`` (default ``0.1``): seconds to wait when a round found nothing to do."""

    grace_period: float = 10.0
    """``PIX_NOTIFY_GRACE_PERIOD`` (default ``10``): on stopping, seconds deliveries in flight get to
    finish; the rest are given back."""

    timeout: float = 15.0
    """``PIX_NOTIFY_TIMEOUT`` (default ``15``): seconds one attempt may take, connection included."""

    lease: float = 60.0
    """``PIX_NOTIFY_LEASE`` (default ``60``): seconds a claim holds a delivery; if its process dies,
    others retry it after that. More than twice the timeout."""

    metrics_port: int = 0
    """``PIX_NOTIFY_METRICS_PORT`` (default ``0``: off): ``pixnotify run`` serves Prometheus metrics
    at ``http://HOST:PORT/metrics`` (inside ``pixweb serve``, they are on the API's ``/metrics``)."""

    metrics_host: str = "127.0.0.1"
    """``PIX_NOTIFY_METRICS_HOST`` (default ``127.0.0.1``): the address the metrics server listens on."""

    ca_file: Path | None = None
    """``PIX_WEBHOOK_CA_FILE`` (default unset): a PEM bundle of further certificate authorities
    trusted for receivers, beside the public roots (a receiver with a private PKI)."""

    client_cert: Path | None = None
    """``PIX_WEBHOOK_CLIENT_CERT`` (default unset): a PEM certificate the notifier presents to
    receivers that ask for one (mutual TLS); its key in the same file or in ``PIX_WEBHOOK_CLIENT_KEY``."""

    client_key: Path | None = None
    """``PIX_WEBHOOK_CLIENT_KEY`` (default unset): the PEM private key of ``PIX_WEBHOOK_CLIENT_CERT``."""

    attempt_retention_days: int = 30
    """``PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS`` (default ``30``): days the log of each delivery attempt
    (``GET /api/webhooks/deliveries/{id}``) is kept, by the service clock; the notifier deletes
    older lines every 10 minutes, in bounded batches. The deliveries themselves are kept."""

    def __post_init__(self) -> None:
        if self.concurrency < 1 or self.batch_size < 1:
            raise ValueError("concurrency and batch size are at least 1")
        if self.timeout <= 0 or self.poll_interval <= 0 or self.grace_period < 0:
            raise ValueError("timeout and poll interval are positive, the grace period not negative")
        if self.lease <= 2 * self.timeout:
            raise ValueError("the lease must be longer than two timeouts (a queued claim waits one)")
        if not 0 <= self.metrics_port <= 65535:
            raise ValueError("the metrics port is between 0 and 65535")
        if self.client_key is not None and self.client_cert is None:
            raise ValueError(
                "PIX_WEBHOOK_CLIENT_KEY is set without PIX_WEBHOOK_CLIENT_CERT, the certificate it is for"
            )
        for variable, path in (
            ("PIX_WEBHOOK_CA_FILE", self.ca_file),
            ("PIX_WEBHOOK_CLIENT_CERT", self.client_cert),
            ("PIX_WEBHOOK_CLIENT_KEY", self.client_key),
        ):
            if path is not None:
                _check_pem(variable, path)
        if not 1 <= self.attempt_retention_days <= 36_500:
            raise ValueError("attempt logs are kept 1 to 36500 days")

    @classmethod
    def from_env(cls) -> NotifierSettings:
        return cls(
            concurrency=_positive_int("PIX_NOTIFY_CONCURRENCY", 16),
            batch_size=_positive_int("PIX_NOTIFY_BATCH_SIZE", 100),
            poll_interval=_float("PIX_NOTIFY_POLL_INTERVAL", 0.1, low=0, strict=True),
            grace_period=_float("PIX_NOTIFY_GRACE_PERIOD", 10.0, low=0, strict=False),
            timeout=_float("PIX_NOTIFY_TIMEOUT", 15.0, low=0, strict=True),
            lease=_float("PIX_NOTIFY_LEASE", 60.0, low=0, strict=True),
            metrics_port=_non_negative_int("PIX_NOTIFY_METRICS_PORT", 0),
            metrics_host=_str("PIX_NOTIFY_METRICS_HOST", "127.0.0.1"),
            ca_file=_path("PIX_WEBHOOK_CA_FILE"),
            client_cert=_path("PIX_WEBHOOK_CLIENT_CERT"),
            client_key=_path("PIX_WEBHOOK_CLIENT_KEY"),
            attempt_retention_days=_positive_int("PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS", 30),
        )


@dataclass(frozen=True, slots=True)
class Settings:
    """Typed settings. Build with :func:`get_settings` (cached) or :meth:`from_env`."""

    database_url: str | None = None
    """``PIX_DATABASE_URL``: a PostgreSQL URL, naming one server or several tried in order
    (``postgresql://user@h1:5432,h2:5432/pix?target_session_attrs=read-write``: whichever is the
    primary). Unset: an embedded server under ``data_dir``."""

    database_read_url: str | None = None
    """``PIX_DATABASE_READ_URL``: a PostgreSQL URL of a replica of that database (a streaming
    standby), where the query endpoints read (``pixinfra.postgres.replica``). Unset: every read
    goes to the primary."""

    read_wait_ms: int = 200
    """``PIX_READ_WAIT_MS`` (default ``200``): how long a read waits for the replica to replay the
    account's last write before it reads the primary instead."""

    data_dir: Path = field(default_factory=lambda: Path(".pixdata"))
    """``PIX_DATA_DIR``; unset: the nearest ``.pixdata`` folder from the current folder upward, else
    ``./.pixdata`` (:func:`find_data_dir`): embedded database, signing key."""

    data_dir_searched: tuple[Path, ...] = ()
    """The folders :func:`find_data_dir` looked in (none when ``PIX_DATA_DIR`` is set)."""

    host: str = "127.0.0.1"
    """``PIX_HOST`` (default ``127.0.0.1``): address the API listens on."""

    port: int = 8000
    """``PIX_PORT`` (default ``8000``)."""

    public_url: str = "http://127.0.0.1:8000"
    """``PIX_PUBLIC_URL`` (default ``http://{host}:{port}``): how clients and payers reach us."""

    standard_prefix: str = "/bcb/v2"
    """``PIX_STANDARD_PREFIX`` (default ``/bcb/v2``): where the central bank's standard Pix API is
    served, strictly as its document says (docs/standard-api.md); a standard client is pointed at
    ``{PIX_PUBLIC_URL}{PIX_STANDARD_PREFIX}``."""

    production: bool = False
    """``PIX_PRODUCTION`` (default off): production mode (docs/decisions/production-mode.md): never a demo
    account; the sandbox and the console off and client certificates required, unless set explicitly."""

    sandbox: bool = True
    """``PIX_SANDBOX`` (default on, off in production mode): the sandbox routes and simulators."""

    console: bool = True
    """``PIX_CONSOLE`` (default on, off in production mode): the web console at ``/console``."""

    webhook_allow_private: bool = False
    """``PIX_WEBHOOK_ALLOW_PRIVATE`` (default off; ``make run`` turns it on outside production mode):
    accept and deliver to webhook URLs on loopback and private addresses, ``http://`` ones too
    (development and tests); a public host always needs ``https://``."""

    require_client_cert: bool = False
    """``PIX_REQUIRE_CLIENT_CERT`` (default off, on in production mode): every bearer request must
    carry ``X-SSL-Client-Cert``, the certificate its token is bound to (RFC 8705)."""

    ispb: str = "99999999"
    """``PIX_ISPB`` (default ``99999999``): this institution's ISPB."""

    institution_name: str = "PIX SANDBOX"
    """``PIX_INSTITUTION_NAME``: this institution's name, as shown to counterparts."""

    city: str = "SAO PAULO"
    """``PIX_CITY``: the merchant city of BR Codes."""

    token_issuer: str = "pixservice"  # noqa: S105 - a name, not a secret
    """``PIX_TOKEN_ISSUER`` (default ``pixservice``): the ``iss`` of access tokens."""

    token_audience: str = "pix-api"  # noqa: S105 - a name, not a secret
    """``PIX_TOKEN_AUDIENCE`` (default ``pix-api``): the ``aud`` of access tokens."""

    signing_key_file: Path | None = None
    """``PIX_SIGNING_KEY_FILE``: PEM EC P-256 private key. Unset: created once under ``data_dir``."""

    log_level: str = "INFO"
    """``PIX_LOG_LEVEL`` (default ``INFO``)."""

    log_format: str = "auto"
    """``PIX_LOG_FORMAT`` (default ``auto``: text when stderr is a terminal, JSON otherwise); ``json``
    forces one JSON object per log line, ``text`` the lines for a human."""

    run_workers: bool = True
    """``PIX_WORKERS`` (default on): run settlement, refund processing, the charge sweep and webhook
    delivery inside ``pixweb serve``."""

    run_delivery: bool = True
    """``PIX_DELIVERY`` (default on): with ``PIX_WORKERS`` on, deliver webhooks inside ``pixweb serve``
    too; off leaves delivery to ``pixnotify run`` processes."""

    processes: int = 1
    """``PIX_PROCESSES`` (default ``1``): API processes ``pixweb serve`` runs on its one port
    (``--workers`` overrides it); each has its own pool of ``PIX_DB_POOL_SIZE`` connections."""

    worker_healthcheck_timeout: int = 30
    """``PIX_WORKER_HEALTHCHECK_TIMEOUT`` (default ``30``): with several processes, seconds a worker
    may take to answer its supervisor's ping (uvicorn's ``timeout_worker_healthcheck``, 5 by
    default) before it is killed and replaced; a new worker answers only once it has imported the
    service's modules, which on a busy machine can take more than 5 seconds."""

    max_header_bytes: int = 65_536
    """``PIX_MAX_HEADER_BYTES`` (default ``65536``): most bytes of a request's line and headers
    together; past them the answer is a 431 and the connection is closed, unread
    (``pixweb.http_protocol``). At least 1024."""

    norm_delay_seconds: int = 2
    """``PIX_NORM_SETTLEMENT_DELAY`` (default ``2``): seconds before a NORM transfer settles."""

    retention_months: tuple[tuple[str, int], ...] = ()
    """``PIX_RETENTION_TRANSACTIONS``, ``_LEDGER_ENTRIES``, ``_OUTBOX``, ``_WEBHOOK_ATTEMPTS``: months of
    each history table kept, the current one included (unset: every month). Older months are let go
    by the retention pass (``pixinfra.postgres.retention``) when nothing still needs them."""

    retention_action: str = "drop"
    """``PIX_RETENTION_ACTION``: ``drop`` a month let go (default), or ``keep`` it detached as
    ``<partition>_detached``."""

    retention_idempotency_hours: int = 25
    """``PIX_RETENTION_IDEMPOTENCY_KEYS`` (default ``25``, at least ``25``): hours a day's partition
    of idempotency keys is kept after its last key was stored. A key is honoured 25 hours (the
    promise is 24) whatever this says; a longer setting keeps the rows for inspection."""

    transfer_batch_size: int = 64
    """``PIX_TRANSFER_BATCH_SIZE`` (default ``64``): most concurrent ``POST /dict/pix`` requests of one
    sending account (and ``POST /sandbox/payments`` to one key or to one account's charges, and due
    transfers the settlement loop finishes) that one process applies in one database transaction
    (group commit); ``1`` turns grouping off (one transaction each)."""

    transfer_batch_window_ms: int = 0
    """``PIX_TRANSFER_BATCH_WINDOW_MS`` (default ``0``): milliseconds a group that is not full waits
    for more requests of its account before it is applied; ``0``: it takes what is waiting (those
    that arrive while it commits form the next one: measured the fastest, docs/performance.md)."""

    db_pool_size: int = 20
    """``PIX_DB_POOL_SIZE`` (default ``20``): most PostgreSQL connections ``pixweb serve`` holds."""

    token_rate_per_client: int = 10
    """``PIX_TOKEN_RATE_PER_CLIENT`` (default ``10``): token requests per minute per client id and
    process, as a burst or spread out; ``0``: no limit."""

    token_rate_per_address: int = 60
    """``PIX_TOKEN_RATE_PER_ADDRESS`` (default ``60``): token requests per minute per client address
    and process; ``0``: no limit."""

    hash_slots: int = 2
    """``PIX_HASH_SLOTS`` (default ``2``): client-secret checks (Argon2) running at once per process."""

    hash_queue: int = 16
    """``PIX_HASH_QUEUE`` (default ``16``): checks that may wait for a slot; more are refused (503)."""

    notifier: NotifierSettings = field(default_factory=NotifierSettings)
    """Webhook delivery (``PIX_NOTIFY_*``): :class:`NotifierSettings`."""

    network: NetworkAccess | None = None
    """``PIX_NETWORK_*`` (:class:`NetworkAccess`): the PIX network this service takes part in; None:
    the built-in sandbox is its outside world."""

    @classmethod
    def from_env(cls) -> Settings:
        host = _str("PIX_HOST", "127.0.0.1")
        port = _int("PIX_PORT", 8000)
        production = _flag("PIX_PRODUCTION", default=False)
        key_file = os.environ.get("PIX_SIGNING_KEY_FILE")
        explicit = os.environ.get("PIX_DATA_DIR")
        data_dir, searched = (Path(explicit), ()) if explicit else find_data_dir(Path.cwd())
        database_url = _database_url("PIX_DATABASE_URL")
        return cls(
            database_url=database_url,
            database_read_url=_read_url("PIX_DATABASE_READ_URL", database_url),
            read_wait_ms=_non_negative_int("PIX_READ_WAIT_MS", 200),
            data_dir=data_dir,
            data_dir_searched=searched,
            host=host,
            port=port,
            public_url=_str("PIX_PUBLIC_URL", f"http://{host}:{port}").rstrip("/"),
            standard_prefix=validate_prefix(_str("PIX_STANDARD_PREFIX", "/bcb/v2")),
            production=production,
            sandbox=_flag("PIX_SANDBOX", default=not production),
            console=_flag("PIX_CONSOLE", default=not production),
            webhook_allow_private=_flag("PIX_WEBHOOK_ALLOW_PRIVATE", default=False),
            require_client_cert=_flag("PIX_REQUIRE_CLIENT_CERT", default=production),
            ispb=validate_ispb(_str("PIX_ISPB", "99999999")),
            institution_name=_str("PIX_INSTITUTION_NAME", "PIX SANDBOX"),
            city=_str("PIX_CITY", "SAO PAULO"),
            token_issuer=_str("PIX_TOKEN_ISSUER", "pixservice"),
            token_audience=_str("PIX_TOKEN_AUDIENCE", "pix-api"),
            signing_key_file=Path(key_file) if key_file else None,
            log_level=_str("PIX_LOG_LEVEL", "INFO").upper(),
            log_format=_choice("PIX_LOG_FORMAT", ("auto", "json", "text"), "auto"),
            run_workers=_flag("PIX_WORKERS", default=True),
            run_delivery=_flag("PIX_DELIVERY", default=True),
            processes=_positive_int("PIX_PROCESSES", 1),
            worker_healthcheck_timeout=_positive_int("PIX_WORKER_HEALTHCHECK_TIMEOUT", 30),
            max_header_bytes=_at_least("PIX_MAX_HEADER_BYTES", 65_536, 1024),
            norm_delay_seconds=_int("PIX_NORM_SETTLEMENT_DELAY", 2),
            transfer_batch_size=_positive_int("PIX_TRANSFER_BATCH_SIZE", 64),
            retention_months=_retention_months(),
            retention_action=_retention_action(),
            retention_idempotency_hours=_at_least("PIX_RETENTION_IDEMPOTENCY_KEYS", 25, 25),
            transfer_batch_window_ms=_non_negative_int("PIX_TRANSFER_BATCH_WINDOW_MS", 0),
            db_pool_size=_positive_int("PIX_DB_POOL_SIZE", 20),
            token_rate_per_client=_non_negative_int("PIX_TOKEN_RATE_PER_CLIENT", 10),
            token_rate_per_address=_non_negative_int("PIX_TOKEN_RATE_PER_ADDRESS", 60),
            hash_slots=_positive_int("PIX_HASH_SLOTS", 2),
            hash_queue=_non_negative_int("PIX_HASH_QUEUE", 16),
            notifier=NotifierSettings.from_env(),
            network=NetworkAccess.from_env(),
        )

    @property
    def signing_key_path(self) -> Path:
        return self.signing_key_file or self.data_dir / "signing-key.pem"

    @property
    def location_prefix(self) -> str:
        """The start of every charge's payload URL, as BR Codes carry it: no scheme."""
        host = self.public_url.split("://", 1)[-1].rstrip("/")
        prefix = f"{host}/qr/v2/"
        if len(prefix) + len(DUE_LOCATION) + LOCATION_ID_LENGTH > MAX_LOCATION:
            raise ValueError(
                f"PIX_PUBLIC_URL is too long for BR Codes: {prefix}{DUE_LOCATION}<id> must fit in"
                f" {MAX_LOCATION} characters"
            )
        return prefix


DATA_FOLDER = ".pixdata"


def find_data_dir(start: Path) -> tuple[Path, tuple[Path, ...]]:
    """The data folder when ``PIX_DATA_DIR`` is unset, and the folders looked in: the nearest
    ``.pixdata`` folder in ``start`` or one of its parents (so every command finds the same one
    from anywhere inside a project), else ``start/.pixdata``, where ``pixweb serve`` and
    ``pixweb migrate`` make it."""
    searched = tuple(folder / DATA_FOLDER for folder in (start, *start.parents))
    found = next((candidate for candidate in searched if candidate.is_dir()), searched[0])
    return found, searched


@cache
def get_settings() -> Settings:
    return Settings.from_env()
