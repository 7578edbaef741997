"""The central bank's error shape (RFC 7807 ``application/problem+json``, the standard's ``Problema``).

The endpoints of the standard Pix API that this service added (``POST /cob``, ``GET /cob``,
``GET /pix``, ``GET /pix/{e2eid}``) answer every error in it: their route handlers carry
``opt={PROBLEMS: {status: type}}``, the standard's error type of each status (``CobConsultaInvalida``
...; :data:`GENERIC` for the rest). The endpoints the service had before keep the error shape of
its own specification (``pixweb.errors.ErrorBody``) and answer this one only when the request's
``Accept`` names ``application/problem+json`` (docs/decisions/standard-api.md).
``pixweb.errors`` makes every error response; this module only says which shape and renders it.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any

import msgspec
from litestar import Request, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example

from pixweb.standard.errors import error_types
from pixweb.standard.face import on_standard_face

__all__ = [
    "GENERIC",
    "PROBLEMS",
    "PROBLEMS_IF_ASKED",
    "PROBLEM_JSON",
    "Problem",
    "Violation",
    "problem_response",
    "problem_responses",
    "wants_problem",
]

PROBLEM_JSON = "application/problem+json"
PROBLEMS = "problems"
"""The key, in a route handler's ``opt``, of its error types by status (always problem+json)."""
PROBLEMS_IF_ASKED = "problems_if_asked"
"""The key, in the ``opt`` of a route the service had before, of its error types by status when
the request's ``Accept`` asks for problem+json (else our specification's shape)."""
TYPE_PREFIX = "https://pix.bcb.gov.br/api/v2/error/"

GENERIC: dict[int, str] = {
    400: "RequisicaoInvalida",
    401: "AcessoNegado",
    403: "AcessoNegado",
    404: "NaoEncontrado",
    405: "RequisicaoInvalida",
    409: "RequisicaoInvalida",
    413: "RequisicaoInvalida",
    415: "RequisicaoInvalida",
    422: "OperacaoInvalida",
    429: "ServicoIndisponivel",
    500: "ErroInternoDoServidor",
    503: "ServicoIndisponivel",
}


class Violation(msgspec.Struct, omit_defaults=True):
    """One broken rule (the standard's ``Violacao``)."""

    razao: Annotated[str, msgspec.Meta(description="What is wrong.")]
    propriedade: Annotated[
        str | None, msgspec.Meta(description="The field or parameter, by its path (`paginacao.paginaAtual`).")
    ] = None


class Problem(msgspec.Struct, omit_defaults=True):
    """The error shape of the standard Pix API (RFC 7807, the standard's ``Problema``)."""

    type: Annotated[str, msgspec.Meta(description="`https://pix.bcb.gov.br/api/v2/error/<TipoErro>`.")]
    title: Annotated[str, msgspec.Meta(description="The HTTP reason phrase.")]
    status: Annotated[int, msgspec.Meta(description="The HTTP status, repeated.")]
    detail: Annotated[str | None, msgspec.Meta(description="What went wrong, for a person.")] = None
    violacoes: Annotated[
        list[Violation] | None, msgspec.Meta(description="Every broken rule, one per item (status 400).")
    ] = None


def _opt_types(request: Request[Any, Any, Any], key: str) -> dict[int, str] | None:
    handler = request.scope.get("route_handler")
    opt = getattr(handler, "opt", None) or {}
    types = opt.get(key)
    return types if isinstance(types, dict) else None


def _types(request: Request[Any, Any, Any]) -> dict[int, str] | None:
    if on_standard_face(request.scope):
        return error_types(request.scope, request.app.state.standard_prefix)
    return _opt_types(request, PROBLEMS) or _opt_types(request, PROBLEMS_IF_ASKED)


STANDARD_ONLY = frozenset({"webhook", "cobv", "lotecobv", "loc"})
"""The resources only the standard's API has: a path under one that matches no route (an encoded
slash in a path text) is answered in the standard's shape, as every route there is."""


def wants_problem(request: Request[Any, Any, Any]) -> bool:
    """The standard's face (always), a route of the standard's (always; a path matching none under
    a resource only the standard has, too), or a request whose ``Accept`` asks for problem+json."""
    if on_standard_face(request.scope) or _opt_types(request, PROBLEMS) is not None:
        return True
    if request.scope.get("route_handler") is None and _resource(request.url.path) in STANDARD_ONLY:
        return True
    return PROBLEM_JSON in request.headers.get("accept", "").lower()


def _resource(path: str) -> str:
    """The first segment of a path (``/webhook/a/b`` -> ``webhook``)."""
    return path.lstrip("/").partition("/")[0]


def _violation(detail: str) -> Violation:
    name, colon, reason = detail.partition(": ")
    return Violation(razao=reason, propriedade=name) if colon and name else Violation(razao=detail)


def problem_of(status: int, message: str, details: list[str] | None, types: dict[int, str] | None) -> Problem:
    kind = (
        (types or {}).get(status)
        or GENERIC.get(status)
        or ("ErroInternoDoServidor" if status >= 500 else "RequisicaoInvalida")
    )
    return Problem(
        type=TYPE_PREFIX + kind,
        title=HTTPStatus(status).phrase,
        status=status,
        detail=message,
        violacoes=[_violation(d) for d in details] if details else None,
    )


def problem_response(
    request: Request[Any, Any, Any],
    status: int,
    message: str,
    details: list[str] | None,
    headers: dict[str, str] | None,
) -> Response[Problem]:
    return Response(
        content=problem_of(status, message, details, _types(request)),
        status_code=status,
        headers=headers,
        media_type=PROBLEM_JSON,
    )


_MEANING = {
    400: "The request breaks a rule: every broken rule is a `violacoes` item.",
    401: "No bearer token, or one that is invalid or expired.",
    404: "No such resource for this account (another account's resources are never shown).",
    413: "The body is larger than the service accepts (1 MiB).",
    503: "The database is unavailable: retry after `Retry-After` seconds.",
}
_EXAMPLE_DETAILS = {400: ["fim: must not be before inicio"]}


def problem_responses(types: dict[int, str], *statuses: int) -> dict[int, ResponseSpec]:
    """The OpenAPI ``responses`` of a standard route's error statuses (503 always), each a
    ``Problem`` as ``application/problem+json`` with an example of its ``type``."""
    responses = {}
    for status in sorted({*statuses, 503}):
        example = problem_of(status, HTTPStatus(status).description, _EXAMPLE_DETAILS.get(status), types)
        responses[status] = ResponseSpec(
            data_container=Problem,
            description=_MEANING.get(status, HTTPStatus(status).phrase),
            media_type=PROBLEM_JSON,
            generate_examples=False,
            examples=[Example(summary=HTTPStatus(status).phrase, value=msgspec.to_builtins(example))],
        )
    return responses
