"""``OPTIONS`` answers with every method of its path.

Litestar 2 gives each path a default ``OPTIONS`` handler, but when a path's handlers are
registered one after another that handler keeps the methods of the route it was made for
first: ``OPTIONS /cob/{txid}`` said ``OPTIONS, PATCH`` while the path also takes GET and PUT
(litestar-org/litestar#4169, fixed in Litestar 3 only). The app's ``before_request`` hook
answers ``OPTIONS`` itself, from the finished routing table: the methods of every HTTP route
with the request's path template, as the default handler would (204, ``Allow``, no body).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from litestar import Request, Response
from litestar.enums import HttpMethod, MediaType
from litestar.routes import BaseRoute, HTTPRoute
from litestar.status_codes import HTTP_204_NO_CONTENT

__all__ = ["allowed_methods", "answer_options"]


def allowed_methods(routes: Iterable[BaseRoute], path_template: str) -> list[str]:
    """Every method the HTTP routes with this path template take, sorted (OPTIONS among them)."""
    return sorted(
        {
            method
            for route in routes
            if isinstance(route, HTTPRoute) and route.path_format == path_template
            for method in route.methods
        }
    )


async def answer_options(request: Request[Any, Any, Any]) -> Response[None] | None:
    """The ``before_request`` hook: an ``OPTIONS`` request is answered here; others go on."""
    if request.method != HttpMethod.OPTIONS:
        return None
    methods = allowed_methods(request.app.routes, request.scope["path_template"])
    return Response(
        content=None,
        status_code=HTTP_204_NO_CONTENT,
        headers={"Allow": ", ".join(methods)},
        media_type=MediaType.TEXT,
    )
