"""Dependencies shared by the controllers."""

from __future__ import annotations

from typing import Any

from litestar import Request

from pixweb.security.tokens import Principal
from pixweb.services import Services

__all__ = ["principal_of", "services_of"]


def services_of(request: Request[Any, Any, Any]) -> Services:
    services: Services = request.app.state.services
    return services


def principal_of(request: Request[Any, Any, Any]) -> Principal:
    user = request.user
    if not isinstance(user, Principal):  # the auth middleware guarantees this
        raise TypeError("route reached without authentication")
    return user
