"""Which face of the service a request is on, and what differs on the standard's.

The service answers two faces with the same route handlers and use cases:

- **ours**, at ``/``: the seed's specification (``location`` the BR Code, our error shape on the
  routes it defines, 409 and 422 where our specification says);
- **the standard's**, under ``PIX_STANDARD_PREFIX`` (default ``/bcb/v2``): the central bank's
  document strictly. Its router carries ``opt={FACE: STANDARD}``, which every handler under it
  inherits (Litestar layers ``opt``), so a handler asks :func:`on_standard_face` where it differs:
  ``location`` is the payload URL and ``pixCopiaECola`` the BR Code, ``PUT`` creates or revises,
  every error is the standard's ``Problema`` with the standard's status (:func:`standard_status`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litestar import Router
from litestar.types import ControllerRouterHandler, Scope

__all__ = ["FACE", "STANDARD", "STANDARD_ERRORS", "on_standard_face", "standard_router", "standard_status"]

FACE = "face"
"""The key, in a route's ``opt``, of its face."""
STANDARD = "standard"

STANDARD_ERRORS = {401: 403, 409: 400, 422: 400}
"""Our statuses the standard does not have, as it answers the same cases: no token (or a bad one)
is its ``AcessoNegado`` 403; a conflict (a refund id used with another body) and a valid request
the state refuses (a charge that is not ATIVA, a refund past its window) are its ``...Invalida`` 400."""


def on_standard_face(scope: Scope | Any) -> bool:
    """Whether the request (its ASGI scope) is on the standard's face: routed under its router, or
    matching no route under its prefix."""
    handler = scope.get("route_handler")
    if handler is not None:
        return (getattr(handler, "opt", None) or {}).get(FACE) == STANDARD
    prefix: str = getattr(scope["app"].state, "standard_prefix", "")
    path: str = scope.get("path", "")
    return bool(prefix) and (path == prefix or path.startswith(prefix + "/"))


def standard_status(status: int, *, names_nothing: bool = False) -> int:
    """The status the standard gives the case we answer with ``status``. ``names_nothing``: the
    400 is only for a path text of the wrong form (an id, a key), which on a read or a delete is
    the standard's 404: such a text names nothing, and those operations document no 400."""
    status = STANDARD_ERRORS.get(status, status)
    return 404 if status == 400 and names_nothing else status


def standard_router(prefix: str, handlers: Sequence[ControllerRouterHandler]) -> Router:
    """``handlers`` again under ``prefix``, on the standard's face. They are left out of the
    service's own document (``/schema``): the standard's is served at ``{prefix}/openapi.json``."""
    return Router(prefix, route_handlers=list(handlers), opt={FACE: STANDARD}, include_in_schema=False)
