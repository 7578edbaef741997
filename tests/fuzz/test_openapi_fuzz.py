"""Schemathesis against the service's own OpenAPI document: every operation, signed in, on a real
database, with generated valid and invalid requests; then stateful sequences that feed one
response's identifiers into the next request. Checks: ``tests/fuzz/checks.py``.

Heavy, so deselected by default (``-m "not fuzz"`` in pytest's addopts): ``make fuzz`` runs it,
``PIX_FUZZ_EXAMPLES`` sets the examples per operation.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode, Response
from schemathesis.schemas import BaseSchema

from pixinfra.settings import Settings
from pixweb.app import create_app
from tests.fuzz.checks import CHECKS, ERROR_KEYS, PROBLEM_JSON, check_problem, content_type
from tests.fuzz.conftest import EXAMPLES
from tests.fuzz.hostile import raw_bodies, raw_form_bodies
from tests.fuzz.service import Target

pytestmark = pytest.mark.fuzz

HTTP_METHODS = {"get", "put", "post", "patch", "delete"}


DOCUMENT = create_app(Settings(run_workers=False, sandbox=True)).openapi_schema.to_schema()


def _operations() -> list[str]:
    """``METHOD /path`` of every operation, from the app's document (the sandbox on, as in the run)."""
    return [
        f"{method.upper()} {path}"
        for path, item in DOCUMENT["paths"].items()
        for method in item
        if method in HTTP_METHODS
    ]


def _media_types() -> dict[str, str]:
    """The request body's media type of every operation that takes a body, by label."""
    return {
        f"{method.upper()} {path}": next(iter(spec["requestBody"]["content"]))
        for path, item in DOCUMENT["paths"].items()
        for method, spec in item.items()
        if method in HTTP_METHODS and "requestBody" in spec
    }


def _fuzz_settings(examples: int) -> settings:
    # Generation may be slow or filter much on an API this constrained; only failures matter here.
    return settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("label", _operations())
def test_operation_conforms(fuzz_schema: BaseSchema, label: str) -> None:
    method, path = label.split(" ", 1)
    operation = fuzz_schema[path][method]
    strategy = st.one_of(
        [operation.as_strategy(mode, auth_storage=fuzz_schema.auth) for mode in GenerationMode]
    )

    @given(case=strategy)
    @_fuzz_settings(EXAMPLES)
    def fuzz(case: Case) -> None:
        case.call_and_validate(checks=CHECKS)

    fuzz()


def test_stateful_sequences_conform(fuzz_schema: BaseSchema) -> None:
    class Workflow(fuzz_schema.as_state_machine()):  # type: ignore[misc]
        def validate_response(
            self,
            response: Response,
            case: Case,
            additional_checks: Any = None,  # noqa: ARG002 - ours are the only checks
            **kwargs: Any,
        ) -> None:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    stateful = _fuzz_settings(max(EXAMPLES // 10, 5))
    Workflow.run(settings=settings(stateful, stateful_step_count=10))


FORM = "application/x-www-form-urlencoded"


@pytest.mark.parametrize("label", sorted(_media_types()))
def test_raw_bytes_in_every_body_are_a_400(fuzz_target: Target, label: str) -> None:
    """What schemathesis cannot send: invalid UTF-8 as bytes, NUL escapes, nesting 65 to 100,000
    deep. Each is a 400 in the error shape, never a 5xx."""
    method, path = label.split(" ", 1)
    media_type = _media_types()[label]
    url = fuzz_target.base_url + re.sub(
        r"{(\w+)}", lambda m: (fuzz_target.known.get(m.group(1)) or ["x"])[0], path
    )
    bodies = raw_bodies() if media_type != FORM else raw_form_bodies()

    @given(body=bodies)
    @_fuzz_settings(EXAMPLES)
    def send(body: bytes) -> None:
        headers = {
            "Authorization": f"Bearer {fuzz_target.token()}",
            "Content-Type": media_type,
            "x-idempotency-key": str(uuid.uuid4()),
        }
        response = httpx.request(method, url, content=body, headers=headers, timeout=60)
        assert response.status_code == 400, (body[:200], response.status_code, response.text[:300])
        if content_type(response.headers) == PROBLEM_JSON:  # the standard's routes
            check_problem(response.json(), response.status_code)
        else:
            assert set(response.json()) >= ERROR_KEYS, response.text[:300]

    send()
