"""What a handler asks for: the app's objects by parameter name, and the signed-in principal.

``uow: Injected[UnitOfWorkFactory]`` in a handler's signature gets the app's provider of ``uow``
(``pixweb.dependencies.Wiring``). The value is handed as it is, never validated (it is no input),
and never shown in the OpenAPI document; a name without a provider stops the app at start-up.
"""

from __future__ import annotations

from typing import Any, TypeAlias, TypeVar

from litestar import Request
from litestar.di import NamedDependency
from litestar.params import SkipValidation

from pixweb.security.tokens import Principal

__all__ = ["Injected", "principal_of", "provided"]

T = TypeVar("T")

Injected: TypeAlias = NamedDependency[SkipValidation[T]]
"""A handler's parameter the app provides under the parameter's name."""


def principal_of(request: Request[Any, Any, Any]) -> Principal:
    user = request.user
    if not isinstance(user, Principal):  # the auth middleware guarantees this
        raise TypeError("route reached without authentication")
    return user


def provided(request: Request[Any, Any, Any], name: str) -> Any:
    """What the route's provider of ``name`` hands its handler, for code that runs before the
    handler does: a body's judge (``pixweb.body_errors.judge_body``) runs in a middleware, which
    Litestar's injection does not reach. The app's providers are plain functions."""
    return request.route_handler.resolve_dependencies()[name].dependency()
