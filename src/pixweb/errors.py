"""Every error response of the API is made here, and only here.

Body: ``{statusCode, message, error}`` (``error`` is the HTTP reason phrase),
with a ``details`` list for validation errors. Domain errors
map by their branch of the ``PixError`` tree; Litestar's own errors (unknown
route, wrong method, malformed body) keep their status; a database that cannot
be reached (down, restarting, out of connections: ``database_unavailable``) is a
503 with ``Retry-After``; anything else is a 500 whose body says nothing of the
cause, which goes to the log instead.

A domain error names its fields by typed references (``pixcore.problems``); each feature's module
declares, beside the structs that carry them, where the wire puts those fields
(``pixweb.field_paths``), and every error is rendered here with those paths.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Annotated, Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example

from pixcore.errors import (
    AuthenticationError,
    Conflict,
    InvalidIdentifier,
    InvalidPixKey,
    NotFound,
    PermissionDenied,
    PixError,
    RuleViolation,
    ServiceBusy,
    TooManyRequests,
    TryLater,
    UnknownRevision,
    ValidationError,
)
from pixinfra.postgres.availability import database_unavailable
from pixweb.body_errors import body_details
from pixweb.field_paths import on_the_wire
from pixweb.problems import problem_response, wants_problem
from pixweb.standard.face import on_standard_face, standard_status

__all__ = [
    "ErrorBody",
    "error_example",
    "error_response",
    "error_responses",
    "exception_handlers",
    "retry_after",
    "status_of",
]

log = logging.getLogger("pixweb.errors")

INTERNAL_MESSAGE = "Internal server error. The failure was logged; nothing was changed."
UNAVAILABLE_MESSAGE = "The database is unavailable. Retry shortly."
_READS = frozenset({"GET", "DELETE"})
"""The methods whose path text of the wrong form is the standard's 404 (``standard_status``)."""
_NAMES_NOTHING = (InvalidIdentifier, InvalidPixKey, UnknownRevision)
"""What, on a read or a delete, only says the path (or ``revisao``) names nothing there. Their
parsers (pixcore's, Litestar's typed path parameters) serve both faces and know none; the standard's
404 for them is made here, with its other statuses (``standard_status``)."""
RETRY_AFTER_SECONDS = 2  # a restart or fail-over of PostgreSQL takes seconds

_STATUS: tuple[tuple[type[PixError], int], ...] = (
    (ValidationError, 400),
    (AuthenticationError, 401),
    (PermissionDenied, 403),
    (NotFound, 404),
    (Conflict, 409),
    (RuleViolation, 422),
    (TooManyRequests, 429),
    (ServiceBusy, 503),
)


class ErrorBody(msgspec.Struct, omit_defaults=True, rename="camel"):
    """The error shape of every endpoint."""

    status_code: Annotated[int, msgspec.Meta(description="The HTTP status, repeated.")]
    message: Annotated[str, msgspec.Meta(description="What went wrong, for a person.")]
    error: Annotated[str, msgspec.Meta(description="The HTTP reason phrase.")]
    details: Annotated[
        list[str] | None, msgspec.Meta(description="Every broken rule, one per item (validation errors).")
    ] = None


# What each error status means on this API, and a typical body of it (the document's examples).
_ERRORS: dict[int, tuple[str, str, list[str] | None]] = {
    400: (
        "The request breaks a rule: every broken rule is listed in `details`.",
        "Invalid request: payment.amount: amount must be greater than zero",
        ["payment.amount: amount must be greater than zero"],
    ),
    401: (
        (
            "No bearer token, or one that is invalid or expired (or, on the token endpoints, wrong"
            " credentials or certificate)."
        ),
        "Invalid or expired token.",
        None,
    ),
    403: ("Authenticated, but this account may not do this.", "This account may not do this.", None),
    404: (
        "No such resource for this account (another account's resources are never shown).",
        "No such resource.",
        None,
    ),
    409: (
        (
            "A conflict with what exists: the identifier is taken, or the resource is in a state that"
            " forbids the change."
        ),
        "A charge with this txid exists already.",
        None,
    ),
    413: (
        "The body is larger than the service accepts (1 MiB).",
        "Request Entity Too Large",
        None,
    ),
    422: (
        "Well formed, but a business rule refuses it (balance, state, limit).",
        "Insufficient balance.",
        None,
    ),
    429: ("Too many requests: wait `Retry-After` seconds.", "Too many requests. Retry later.", None),
    503: (
        (
            "The database is unavailable (or too many credential checks wait): retry after `Retry-After`"
            " seconds."
        ),
        UNAVAILABLE_MESSAGE,
        None,
    ),
}


def error_example(status: int) -> dict[str, Any]:
    """A typical error body of ``status``, as the service answers it."""
    _, message, details = _ERRORS.get(status, ("", HTTPStatus(status).phrase, None))
    body: dict[str, Any] = {"statusCode": status, "message": message, "error": HTTPStatus(status).phrase}
    return body | ({"details": details} if details else {})


def error_responses(*statuses: int, body: type[Any] = ErrorBody) -> dict[int, ResponseSpec]:
    """The OpenAPI ``responses`` of an operation's error statuses, each with ``body``'s schema,
    what the status means here, and an example of the error shape (``body`` other than
    :class:`ErrorBody` brings no example: its operation documents its own).

    Handlers list the statuses they can answer; 503 (the database is unavailable) is added to
    every one. Without this Litestar documents a 400 of its own shape, which no response has.
    """
    shapes = dict.fromkeys(statuses, body) | {503: ErrorBody}
    return {
        status: ResponseSpec(
            data_container=shape,
            description=_ERRORS.get(status, (HTTPStatus(status).phrase,))[0],
            generate_examples=False,
            examples=[Example(summary=HTTPStatus(status).phrase, value=error_example(status))]
            if shape is ErrorBody
            else None,
        )
        for status, shape in sorted(shapes.items())
    }


def status_of(error: PixError) -> int:
    for kind, status in _STATUS:
        if isinstance(error, kind):
            return status
    return 422


def error_response(
    status: int, message: str, details: list[str] | None = None, headers: dict[str, str] | None = None
) -> Response[ErrorBody]:
    body = ErrorBody(
        status_code=status, message=message, error=HTTPStatus(status).phrase, details=details or None
    )
    if status == 401:
        headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'} | (headers or {})
    return Response(content=body, status_code=status, headers=headers)


def retry_after(exc: PixError) -> dict[str, str] | None:
    """The ``Retry-After`` header of an error that says "not now" (429, 503)."""
    return {"Retry-After": str(exc.retry_after)} if isinstance(exc, TryLater) else None


def _answer(
    request: Request[Any, Any, Any],
    status: int,
    message: str,
    details: list[str] | None = None,
    headers: dict[str, str] | None = None,
    *,
    names_nothing: bool = False,
) -> Response[Any]:
    """The error in the shape the route or the request asks for: the standard's problem+json on
    its routes or when ``Accept`` names it (``pixweb.problems``), else :class:`ErrorBody`."""
    if on_standard_face(request.scope):
        status = standard_status(status, names_nothing=names_nothing)
    if wants_problem(request):
        if status == 401:
            headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'} | (headers or {})
        return problem_response(request, status, message, details, headers)
    return error_response(status, message, details, headers=headers)


def _pix_error(request: Request[Any, Any, Any], exc: PixError) -> Response[Any]:
    message, details = on_the_wire(exc)
    names_nothing = isinstance(exc, _NAMES_NOTHING) and request.method in _READS
    return _answer(
        request, status_of(exc), message, details, headers=retry_after(exc), names_nothing=names_nothing
    )


def _validation_details(exc: ValidationException, body: list[str] | None = None) -> list[str]:
    """Litestar's messages as ``key: message``; ``body``, when given, replaces its body message
    (msgspec reports a body's first mistake only: ``pixweb.body_errors`` found them all)."""
    details: list[str] = []
    for item in exc.extra if isinstance(exc.extra, list) else []:
        if body is not None and isinstance(item, dict) and item.get("source") == "body":
            details.extend(body)
            body = []  # once
        elif isinstance(item, dict):
            key, message = item.get("key"), item.get("message", "invalid")
            details.append(f"{key}: {message}" if key else str(message))
        else:
            details.append(str(item))
    return details


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    status = exc.status_code
    if status >= 500:
        log.error("internal error", exc_info=exc)
        return _answer(request, status, INTERNAL_MESSAGE)
    if isinstance(exc, ValidationException):
        details = _validation_details(exc, body_details(request))
        in_path = isinstance(exc.extra, list) and all(
            isinstance(item, dict) and item.get("source") == "path" for item in exc.extra
        )
        names_nothing = bool(exc.extra) and in_path and request.method in _READS
        return _answer(
            request, 400, _validation_message(exc.detail, details), details, names_nothing=names_nothing
        )
    message = exc.detail or HTTPStatus(status).description
    if status == 404:
        # Litestar's own 404s: no route, or no file under a static folder (whose detail names the
        # folder on this machine). Our handlers' 404s are PixError's NotFound, with their message.
        message = "No such resource."
    return _answer(request, status, message, headers=exc.headers)


def _validation_message(detail: str, details: list[str]) -> str:
    if details:
        return "Invalid request: " + "; ".join(details)
    return detail or "Invalid request."


def _internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if database_unavailable(exc):
        log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
        return _answer(request, 503, UNAVAILABLE_MESSAGE, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return _answer(request, 500, INTERNAL_MESSAGE)


exception_handlers: dict[type[Exception] | int, Any] = {
    PixError: _pix_error,
    HTTPException: _http_error,
    Exception: _internal_error,
}
