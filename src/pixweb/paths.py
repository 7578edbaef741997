"""An encoded slash is part of its path segment, never a separator.

ASGI servers give the application the path decoded (``scope["path"]``), so ``/webhook/a%2Fb@x.com``
would be routed as ``/webhook/a/b@x.com``: a path with one more segment, which names no route (a
404 for an e-mail key that holds a ``/``, which keys may), and a txid with a ``/`` would be a 404
where it is a bad txid (400). :class:`EncodedSlashes` routes such a request on its path decoded
except ``%2F`` and ``%25``, which stay escaped inside their segment (Apache's
``AllowEncodedSlashes NoDecode``); a path parameter that may hold either (a PIX key) is read with
:func:`segment_text`. Other parameters never hold a ``%``, so they are refused by their own rules.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import unquote

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["EncodedSlashes", "routed_path", "segment_text"]

_KEPT = re.compile(r"(%2[fF]|%25)")


def routed_path(raw_path: bytes) -> str | None:
    """The path to route on when ``raw_path`` escapes a ``/`` or a ``%``, else None (the server's
    decoding stands): every other escape decoded, those two kept (upper case)."""
    # Some ASGI clients (httpx's ASGI transport) leave the query string in raw_path.
    text = raw_path.partition(b"?")[0].decode("ascii", errors="replace")
    if _KEPT.search(text) is None:
        return None
    return "".join(part.upper() if _KEPT.fullmatch(part) else unquote(part) for part in _KEPT.split(text))


def segment_text(value: str) -> str:
    """A path parameter's text as the client meant it: the ``%2F`` and ``%25`` that
    :func:`routed_path` kept, decoded."""
    return _KEPT.sub(lambda found: "/" if found[0] == "%2F" else "%", value)


class EncodedSlashes:
    """ASGI wrapper of the application: a request whose raw path escapes a ``/`` or a ``%`` is
    routed on :func:`routed_path`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            raw = scope.get("raw_path")
            path = routed_path(raw) if isinstance(raw, bytes) else None
            if path is not None:
                scope["path"] = path
        await self.app(scope, receive, send)
