"""What every fuzzed response must satisfy: no 5xx, the document's status codes, content types,
headers and schemas, and the one error shape of the service."""

from __future__ import annotations

import json
from typing import Any

from schemathesis import Case, CheckContext, CheckFunction, Response
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

ERROR_KEYS = {"statusCode", "message", "error"}
OPTIONAL_KEYS = {"details"}
# RFC 6749 §5.2 on the OAuth token endpoint: `error` is the OAuth code, with a description
# (docs/decisions/authentication.md).
OAUTH_PATH = "/oauth/token"
OAUTH_KEYS = {"error_description"}
PROBLEM_JSON = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status"}
PROBLEM_OPTIONAL = {"detail", "violacoes"}
PROBLEM_TYPE = "https://pix.bcb.gov.br/api/v2/error/"


def content_type(headers: Any) -> str:
    """The response's media type, from a mapping of names to a value or a list of values."""
    for name, value in dict(headers or {}).items():
        if name.lower() == "content-type":
            text = value[0] if isinstance(value, list) else value
            return str(text).split(";")[0].strip().lower()
    return ""


def check_problem(body: dict[str, Any], status: int) -> None:
    """The central bank's standard error shape (``application/problem+json``, which the
    standard's routes answer: docs/decisions/standard-api.md): ``type``, ``title``, ``status`` (the
    HTTP status), and optionally ``detail`` and ``violacoes`` (each a ``razao`` and maybe a
    ``propriedade``); nothing else."""
    missing, extra = PROBLEM_KEYS - set(body), set(body) - PROBLEM_KEYS - PROBLEM_OPTIONAL
    if missing or extra:
        raise AssertionError(f"problem keys: missing {sorted(missing)}, unexpected {sorted(extra)}: {body}")
    if not str(body["type"]).startswith(PROBLEM_TYPE) or body["status"] != status:
        raise AssertionError(f"problem type or status wrong for {status}: {body}")
    if not isinstance(body["title"], str) or not body["title"]:
        raise AssertionError(f"title is not a non-empty string: {body}")
    violations = body.get("violacoes", [])
    if not isinstance(violations, list) or not all(
        isinstance(v, dict) and isinstance(v.get("razao"), str) and set(v) <= {"razao", "propriedade"}
        for v in violations
    ):
        raise AssertionError(f"violacoes is not a list of violations: {violations!r}")


def error_body_shape(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    """Every 4xx/5xx body is ``{statusCode, message, error}`` plus, optionally, ``details``; or,
    where the response is ``application/problem+json``, the standard's problem."""
    if response.status_code < 400:
        return None
    try:
        body: Any = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"error body is not JSON: {response.content[:200]!r}") from None
    if not isinstance(body, dict):
        raise AssertionError(f"error body is not an object: {body!r}")  # noqa: TRY004 - a check fails so
    if content_type(response.headers) == PROBLEM_JSON:
        check_problem(body, response.status_code)
        return True
    allowed = ERROR_KEYS | OPTIONAL_KEYS | (OAUTH_KEYS if case.operation.path == OAUTH_PATH else set())
    missing, extra = ERROR_KEYS - set(body), set(body) - allowed
    if missing or extra:
        raise AssertionError(
            f"error body keys: missing {sorted(missing)}, unexpected {sorted(extra)}: {body}"
        )
    if body["statusCode"] != response.status_code:
        raise AssertionError(
            f"statusCode {body['statusCode']!r} differs from the status {response.status_code}"
        )
    if not isinstance(body["message"], str) or not body["message"]:
        raise AssertionError(f"message is not a non-empty string: {body['message']!r}")
    if not isinstance(body["error"], str) or not body["error"]:
        raise AssertionError(f"error is not a non-empty string: {body['error']!r}")
    details = body.get("details")
    if "details" in body and not (
        isinstance(details, list) and details and all(isinstance(item, str) for item in details)
    ):
        raise AssertionError(f"details is not a non-empty list of strings: {details!r}")
    return True


CHECKS: list[CheckFunction] = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    error_body_shape,
]
