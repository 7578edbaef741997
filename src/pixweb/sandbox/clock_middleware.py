"""Every request runs on the database's clock (decisions 13: the clock is not cached for longer
than a request).

Before authentication (token expiry is judged on the service clock), each request reads the
sandbox clock's offset: one primary-key read of a one-row table. Routes that never read the clock
(the OpenAPI document, the JWKS, health and metrics) skip it, so liveness does not depend on the
database.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from litestar.enums import ScopeType
from litestar.middleware.base import ASGIMiddleware

from pixweb.services import Services

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["CLOCKLESS_PATHS", "SharedClockMiddleware"]

CLOCKLESS_PATHS = ("^/schema", "^/.well-known/", "^/health/", "^/metrics$")
_CLOCKLESS = re.compile("|".join(CLOCKLESS_PATHS))


def _clockless(scope: Scope) -> bool:
    return _CLOCKLESS.match(scope["path"]) is not None


class SharedClockMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)
    should_bypass_for_scope = staticmethod(_clockless)  # by the request's path, not the route's

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        services: Services = scope["litestar_app"].state.services
        await services.keeper.refresh()
        await next_app(scope, receive, send)
