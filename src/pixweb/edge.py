"""Text the service cannot store, refused at the edge (docs/decisions/hostile-text.md).

Before any handler runs, :class:`TextGuard` looks at every text a request carries: its path (and
so every path parameter), its query string, its header values and its body. A NUL character,
invalid UTF-8 (a lone surrogate, written as UTF-8, is invalid too) or, in a JSON body, nesting
deeper than :data:`MAX_DEPTH` levels is a 400 in the error shape; PostgreSQL could not store the
first two and the decoder would exhaust the stack on the third. Lengths are each field's own
rule: ``max_length`` on the wire structs (documented as ``maxLength``) and the ``pixcore`` parsers.

The checks are pure functions of bytes and strings; the middleware only finds the texts. Bodies
are read through Litestar's own ``Request.body`` (which enforces the size limit, 413, and keeps
the bytes for the handler), so nothing is read twice.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_to_bytes

import msgspec
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import ValidationException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from pixweb.api.structs import body_struct
from pixweb.standard.bodies import known_members
from pixweb.standard.face import on_standard_face

__all__ = [
    "MAX_DEPTH",
    "TextGuard",
    "body_problem",
    "bytes_problem",
    "json_problem",
    "json_value_problem",
    "request_problem",
    "text_problem",
    "url_encoded_problem",
]

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a JSON body may have (the top-level value is 1)."""

NUL = "contains a NUL character"
NOT_UTF8 = "is not valid UTF-8"
SURROGATE = "contains a lone surrogate"
TOO_DEEP = f"nests JSON deeper than {MAX_DEPTH} levels"

_SURROGATE = re.compile("[\ud800-\udfff]")
_NUL_ESCAPE = re.compile(rb"\\u0000")  # the only way a JSON text carries a NUL (raw controls are malformed)
_FORM = "application/x-www-form-urlencoded"


def text_problem(text: str) -> str | None:
    """What makes ``text`` unstorable, or None: a NUL, or a surrogate code point (no UTF-8 for it)."""
    if "\x00" in text:
        return NUL
    if _SURROGATE.search(text) is not None:
        return SURROGATE
    return None


def bytes_problem(raw: bytes) -> str | None:
    """What makes these bytes unstorable as text, or None: a NUL byte, or not UTF-8 (which
    includes encoded surrogates and overlong forms)."""
    if b"\x00" in raw:
        return NUL
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return NOT_UTF8
    return None


def url_encoded_problem(raw: bytes) -> str | None:
    """The same, for a percent-encoded query string or form body, judged after decoding. The whole
    string at once: a sequence split by ``&`` or ``=`` is invalid on either side of it anyway."""
    return bytes_problem(unquote_to_bytes(raw.replace(b"+", b" ")))


def json_value_problem(value: Any) -> str | None:
    """A decoded JSON value: a NUL in any string (object keys included), or nesting deeper than
    :data:`MAX_DEPTH`. Iterative, so that a deep value cannot exhaust the stack here either."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return NUL
        elif isinstance(item, list | dict):
            if depth > MAX_DEPTH:
                return TOO_DEEP
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
    return None


def json_problem(body: bytes) -> str | None:
    """A JSON body: not UTF-8, a NUL in a string, or too deep. Malformed JSON is left to the
    handler's decoder (its own 400). Decoded here only when a NUL escape or more than
    :data:`MAX_DEPTH` brackets could be in it, which an ordinary body never has."""
    if (problem := bytes_problem(body)) is not None:
        return problem
    brackets = body.count(b"[") + body.count(b"{")
    if brackets <= MAX_DEPTH and _NUL_ESCAPE.search(body) is None:
        return None
    try:
        value = msgspec.json.decode(body)
    except RecursionError:  # deeper than the interpreter's stack: far deeper than MAX_DEPTH
        return TOO_DEEP
    except msgspec.DecodeError:
        return None
    return json_value_problem(value)


def _path_problem(scope: Scope) -> str | None:
    raw_path = scope.get("raw_path")
    if raw_path:
        # Some ASGI clients (httpx's ASGI transport) leave the query string in raw_path.
        return bytes_problem(unquote_to_bytes(raw_path.partition(b"?")[0]))
    return text_problem(scope["path"])


def request_problem(scope: Scope, *, nul_in_query: bool = False) -> str | None:
    """What is wrong with the texts of a request other than its body, as ``"<where> <problem>"``.
    ``nul_in_query``: a NUL in the query string is let through (the standard's face: its document
    takes any text in ``status``, which nothing stores, and its patterns refuse a NUL elsewhere)."""
    if (problem := _path_problem(scope)) is not None:
        return f"the path {problem}"
    query = scope.get("query_string", b"")
    if (problem := url_encoded_problem(query.replace(b"%00", b"") if nul_in_query else query)) is not None:
        return f"the query string {problem}"
    for name, value in scope.get("headers", ()):
        if b"\x00" in value:
            return f"the header {name.decode('latin-1')!r} {NUL}"
    return None


def body_problem(body: bytes, content_type: str) -> str | None:
    if not body:
        return None
    problem = url_encoded_problem(body) if content_type == _FORM else json_problem(body)
    return None if problem is None else f"the body {problem}"


def _known_problem(body: bytes, struct: type[msgspec.Struct]) -> str | None:
    """A JSON body on the standard's face judged in the members ``struct`` knows only: the others
    are ignored there (``pixweb.standard.bodies``), whatever text they hold."""
    if (problem := bytes_problem(body)) is not None:
        return f"the body {problem}"
    try:
        value = msgspec.json.decode(body)
    except RecursionError:
        return f"the body {TOO_DEEP}"
    except msgspec.DecodeError:
        return None
    problem = json_value_problem(known_members(value, struct))
    return None if problem is None else f"the body {problem}"


def _has_body(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in (b"", b"0")):
            return True
    return False


class TextGuard(ASGIMiddleware):
    """Refuses (400) a request with text the service cannot store, before its handler runs."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        problem = request_problem(scope, nul_in_query=on_standard_face(scope))
        if problem is None and _has_body(scope):
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            body = await request.body()
            problem = body_problem(body, request.content_type[0])
            struct = body_struct(scope) if problem is not None and on_standard_face(scope) else None
            if struct is not None and request.content_type[0] != _FORM:
                problem = _known_problem(body, struct)
        if problem is not None:
            raise ValidationException(detail=f"Invalid request: {problem}.")
        await next_app(scope, receive, send)
