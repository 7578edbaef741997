"""What every fuzzed response must satisfy: no 5xx, the document's status codes, content types,
headers and schemas, and the one error shape of the service (decisions §1)."""

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
# RFC 6749 §5.2 on the OAuth token endpoint: `error` is the OAuth code, with a description (decisions).
OAUTH_PATH = "/oauth/token"
OAUTH_KEYS = {"error_description"}


def error_body_shape(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    """Every 4xx/5xx body is ``{statusCode, message, error}`` plus, optionally, ``details``."""
    if response.status_code < 400:
        return None
    try:
        body: Any = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"error body is not JSON: {response.content[:200]!r}") from None
    if not isinstance(body, dict):
        raise AssertionError(f"error body is not an object: {body!r}")  # noqa: TRY004 - a check fails so
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
