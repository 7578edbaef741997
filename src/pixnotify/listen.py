"""``pixnotify listen``: a webhook receiver for a developer's machine.

It answers every ``POST`` (any path) as a receiver should: it checks the Standard Webhooks
signature (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``) with the account's
secret, answers 204 when one of the signatures is right and 401 when none is, and prints one line
per notification: for a person on a terminal (time, type, amount, ids, ``signature ok`` or
``SIGNATURE INVALID``), or one JSON object per line when its output goes to a pipe or a file.

Whatever a sender wrote is printed through :mod:`pixnotify.visible`: no control, bidi or other
hidden character reaches the terminal raw, and a line whose signature does not verify starts with
:data:`UNVERIFIED` and shows the sender's text in quotes, so it cannot pass for a genuine line.

With ``forward_to`` (``pixnotify listen --forward-to URL``), each notification that verifies is
passed on to that URL as it came (body and headers), and the sender gets the answer the URL gave
(502 when it gave none): a receiver under development sees exactly what the service sends.

It is the standard library's HTTP server, a thread per connection, each read given up after
``read_timeout`` seconds of silence (an idle connection holds its own thread only): a tool to see
notifications, not a receiver for production (docs/webhooks.md shows how to write one).
"""

from __future__ import annotations

import hmac
import http.server
import json
import signal
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

from pixcore.webhooks.delivery import sign
from pixnotify.visible import json_text, quoted, visible

__all__ = [
    "MAX_BODY",
    "READ_TIMEOUT",
    "TOLERANCE",
    "UNVERIFIED",
    "Notification",
    "Verdict",
    "forward",
    "human_line",
    "json_line",
    "serve",
    "verify",
]

MAX_BODY = 1_048_576
"""Bytes of a body read at most; a longer one is answered 413."""
READ_TIMEOUT = 10.0
"""Seconds a connection may stay silent while its request is read before it is dropped (408)."""
UNVERIFIED = "!! UNVERIFIED"
"""The start of the line of a request whose signature does not verify (text for a person)."""
FORWARD_TIMEOUT = 10.0
"""Seconds the URL notifications are forwarded to has to answer."""
_NOT_FORWARDED = frozenset({"host", "content-length", "connection", "transfer-encoding", "keep-alive"})
TOLERANCE = 300
"""Seconds a ``webhook-timestamp`` may be off this machine's clock before the line says so (the
Standard Webhooks libraries refuse such a message)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    valid: bool
    reason: str = ""  # why not, when not valid


def verify(secret: str, headers: dict[str, str], body: bytes) -> Verdict:
    """Whether one of the ``webhook-signature`` values is ``sign(secret, id, timestamp, body)``."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    missing = [
        name
        for name, value in (
            ("webhook-id", msg_id),
            ("webhook-timestamp", timestamp),
            ("webhook-signature", signatures),
        )
        if not value
    ]
    if missing or msg_id is None or timestamp is None or signatures is None:
        return Verdict(valid=False, reason=f"missing {', '.join(missing)}")
    if not (timestamp.isascii() and timestamp.isdigit()):
        return Verdict(valid=False, reason="webhook-timestamp is not a number")
    expected = sign(secret, msg_id, int(timestamp), body)
    if any(hmac.compare_digest(expected, given) for given in signatures.split()):
        return Verdict(valid=True)
    return Verdict(valid=False, reason="no signature matches the secret")


@dataclass(frozen=True, slots=True)
class Notification:
    """One request received, as printed."""

    received_at: datetime
    path: str
    headers: dict[str, str]
    body: bytes
    verdict: Verdict
    status: int
    event: Any = field(default=None)  # the parsed JSON body, None if it is not JSON
    forwarded: str | None = None  # with --forward-to: the status it answered, or why it did not

    @property
    def skew(self) -> int | None:
        """Seconds between ``webhook-timestamp`` and this machine's clock, if more than TOLERANCE."""
        raw = self.headers.get("webhook-timestamp", "")
        if not (raw.isascii() and raw.isdigit()):
            return None
        skew = int(raw) - int(self.received_at.timestamp())
        return skew if abs(skew) > TOLERANCE else None


def _data(event: Any) -> dict[str, Any]:
    data = event.get("data") if isinstance(event, dict) else None
    return data if isinstance(data, dict) else {}


def _pairs(pairs: list[tuple[str, Any]]) -> str:
    """``key=value`` for each pair with a value, space-separated."""
    return " ".join(f"{key}={value}" for key, value in pairs if value not in (None, "", [], {}))


def _member(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _closing(item: dict[str, Any]) -> list[tuple[str, Any]]:
    """Why a recurrence or a recurring charge ended: ``rejeicao=CODE`` or ``cancelamento=CODE``."""
    closing = item.get("encerramento")
    if not isinstance(closing, dict):
        return []
    return [(kind, _member(detail, "codigo")) for kind, detail in closing.items()]


def _rec_summary(item: dict[str, Any]) -> tuple[str | None, str]:
    """A recurrence (``/webhookrec``'s ``RecNotification``): no amount; its id and status."""
    return None, _pairs([("idRec", item.get("idRec")), ("status", item.get("status")), *_closing(item)])


def _cobr_summary(item: dict[str, Any]) -> tuple[str | None, str]:
    """A recurring charge (``/webhookcobr``'s ``CobRNotification``): the amount once a PIX paid it;
    its txid, recurrence, status and latest attempt (its status, date and rejection)."""
    attempts = item.get("tentativas")
    last = attempts[-1] if isinstance(attempts, list) and attempts else None
    pix = item.get("pix")
    paid = pix[0] if isinstance(pix, list) and pix and isinstance(pix[0], dict) else {}
    amount = f"{paid['valor']} BRL" if paid.get("valor") is not None else None
    ids = _pairs(
        [
            ("txid", item.get("txid")),
            ("idRec", item.get("idRec")),
            ("status", item.get("status")),
            *_closing(item),
            ("tentativa", _member(last, "status")),
            ("dataLiquidacao", _member(last, "dataLiquidacao")),
            ("rejeicao", _member(_member(last, "rejeicao"), "codigo")),
            ("endToEndId", paid.get("endToEndId")),
        ]
    )
    return amount, ids


def _pix_summary(item: dict[str, Any]) -> tuple[str | None, str]:
    """A key's PIX (the ``pix`` callback's ``Pix``): its amount, ids and key."""
    amount = f"{item['valor']} BRL" if item.get("valor") is not None else None
    return amount, _pairs([(key, item.get(key)) for key in ("endToEndId", "txid", "chave")])


_STANDARD: dict[str, tuple[str, Callable[[dict[str, Any]], tuple[str | None, str]]]] = {
    "pix": ("PIX", _pix_summary),
    "recs": ("REC", _rec_summary),
    "cobsr": ("COBR", _cobr_summary),
}
"""The standard's callbacks, sent without the envelope: each body's member, its kind, its summary."""


def _standard(event: dict[str, Any]) -> tuple[str, str | None, str] | None:
    """The kind, amount and ids of a standard's callback (``{"pix": [...]}``, ``{"recs": [...]}``,
    ``{"cobsr": [...]}``), from its first item (and how many more it carries); None for another body."""
    if "type" in event:
        return None
    for member, (kind, summary) in _STANDARD.items():
        items = event.get(member)
        if isinstance(items, list) and items and isinstance(items[0], dict):
            amount, ids = summary(items[0])
            more = f"(+{len(items) - 1} more)" if len(items) > 1 else ""
            return kind, amount, " ".join(part for part in (ids, more) if part)
    return None


def human_line(note: Notification) -> str:
    """``03:41:05  RECEIVE  12.00 BRL  id=… endToEndId=…  msg_1_2  signature ok``; the standard's
    callbacks as ``PIX  37.50 BRL  endToEndId=… chave=…``, ``REC  -  idRec=… status=APROVADA`` and
    ``COBR  35.00 BRL  txid=… idRec=… status=CONCLUIDA tentativa=PAGA …``.

    Every text that came with the request is escaped (:func:`pixnotify.visible.visible`). When the
    signature does not verify, the line starts with :data:`UNVERIFIED` and that text is also quoted
    (:func:`pixnotify.visible.quoted`): ``!! UNVERIFIED  03:41:05  "RECEIVE"  "12.00 BRL"  …``.
    """
    event = note.event if isinstance(note.event, dict) else {}
    data = _data(event)
    kind: str | None = str(event.get("type", "?")) if event else None
    payment = data.get("payment") if isinstance(data.get("payment"), dict) else {}
    amount = f"{payment.get('amount')} {payment.get('currency', '')}".strip() if payment else None
    ids = " ".join(f"{key}={data[key]}" for key in ("id", "endToEndId", "txId", "webhookId") if data.get(key))
    standard = _standard(event)
    if standard is not None:
        kind, amount, ids = standard
    show = visible if note.verdict.valid else quoted
    sent = [kind, amount, ids or None, note.headers.get("webhook-id")]  # None: nothing was sent
    parts = [note.received_at.astimezone().strftime("%H:%M:%S")]
    parts += [
        "(not JSON)" if index == 0 and text is None else "-" if text is None else show(text)
        for index, text in enumerate(sent)
    ]
    if note.verdict.valid:
        parts.append("signature ok")
    else:
        parts = [UNVERIFIED, *parts, f"SIGNATURE INVALID ({note.verdict.reason})"]
    if note.skew is not None:
        parts.append(f"(timestamp {note.skew:+d} s from this clock)")
    if note.forwarded is not None:
        parts.append(f"-> {note.forwarded}")
    return "  ".join(parts)


def json_line(note: Notification) -> str:
    """One JSON object: what arrived, the check, and the answer given. Hidden characters of the
    sender's text are ``\\u`` escapes (:func:`pixnotify.visible.json_text`), never raw."""
    return json_text(
        json.dumps(
            {
                "receivedAt": note.received_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "path": note.path,
                "webhookId": note.headers.get("webhook-id"),
                "timestamp": note.headers.get("webhook-timestamp"),
                "signature": "ok" if note.verdict.valid else "invalid",
                "reason": note.verdict.reason or None,
                "status": note.status,
                "forwarded": note.forwarded,
                "event": note.event,
            },
            ensure_ascii=False,
        )
    )


def forward(url: str, headers: dict[str, str], body: bytes) -> tuple[int, str]:
    """POST ``body`` with the request's ``headers`` (but those of its hop) to ``url``: the status
    to answer the sender, and what to print (``200``, or ``failed: why``)."""
    sent = {name: value for name, value in headers.items() if name not in _NOT_FORWARDED}
    request = urllib.request.Request(url, data=body, headers=sent, method="POST")  # noqa: S310 - http(s), checked by the command
    try:
        with urllib.request.urlopen(request, timeout=FORWARD_TIMEOUT) as answer:  # noqa: S310 - as above
            return answer.status, str(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code, str(exc.code)
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        return 502, f"failed: {visible(str(reason))}"


def _handler(
    secret: str, report: Callable[[Notification], None], read_timeout: float, forward_to: str | None
) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "pixnotify-listen"
        timeout = read_timeout  # each read of the socket; the stdlib drops a silent request line

        def do_POST(self) -> None:
            try:
                length = int(self.headers.get("content-length") or "0")
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self.send_error(413 if length > MAX_BODY else 400)
                return
            try:
                body = self.rfile.read(length)
            except TimeoutError:  # a Content-Length and no body: answered, and the thread is free
                self.send_error(408)
                return
            if len(body) < length:
                self.close_connection = True  # the sender went away mid-body: nothing arrived
                return
            headers = {name.lower(): value for name, value in self.headers.items()}
            verdict = verify(secret, headers, body)
            status, forwarded = 204 if verdict.valid else 401, None
            if verdict.valid and forward_to is not None:
                status, forwarded = forward(forward_to, headers, body)
            try:
                event = json.loads(body)
            except ValueError:
                event = None
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()
            report(
                Notification(datetime.now(UTC), self.path, headers, body, verdict, status, event, forwarded)
            )

        def do_GET(self) -> None:  # a browser or curl checking that it runs
            text = b"pixnotify listen: POST notifications here\n"
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            pass  # the report is the log

    return Handler


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stopping does not wait for a connection that is still being read


class _Server6(_Server):
    address_family = socket.AF_INET6


def serve(
    *,
    host: str,
    port: int,
    secret: str,
    out: TextIO,
    as_json: bool,
    count: int | None = None,
    ready: Callable[[str], None] | None = None,
    read_timeout: float = READ_TIMEOUT,
    forward_to: str | None = None,
) -> int:
    """Receive until interrupted (Ctrl-C) or ``count`` notifications have come; how many came.
    Connections are served at once, each on its own thread; ``read_timeout``: see
    :data:`READ_TIMEOUT`; ``forward_to``: where verified notifications are passed on."""
    received = 0
    lock = threading.Lock()  # one line at a time, whole

    def report(note: Notification) -> None:
        nonlocal received
        line = (json_line(note) if as_json else human_line(note)) + "\n"
        with lock:
            received += 1
            out.write(line)
            out.flush()

    # SIGTERM stops it as Ctrl-C does; and Ctrl-C stops it even when started with SIGINT ignored (a
    # shell's background job inherits that, and Python then leaves it ignored).
    previous = {signum: signal.signal(signum, _interrupt) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        handler = _handler(secret, report, read_timeout, forward_to)
        with _Server6((host, port), handler) if ":" in host else _Server((host, port), handler) as server:
            _run(server, count, ready, lambda: received)
    finally:
        for signum, handler_before in previous.items():
            signal.signal(signum, handler_before)
    return received


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _run(
    server: _Server,
    count: int | None,
    ready: Callable[[str], None] | None,
    received: Callable[[], int],
) -> None:
    server.timeout = 0.5  # handle_request returns this often, so that a signal is seen at once
    if ready is not None:
        host, port = server.server_address[:2]
        name = f"[{host!s}]" if ":" in str(host) else str(host)
        ready(f"http://{name}:{port}/")
    try:
        while count is None or received() < count:
            server.handle_request()
    except KeyboardInterrupt:
        pass
