"""Schemathesis against the service's own OpenAPI document: every operation, signed in, on a real
database, with generated valid and invalid requests; then stateful sequences that feed one
response's identifiers into the next request. Checks: ``tests/fuzz/checks.py``.

Heavy, so deselected by default (``-m "not fuzz"`` in pytest's addopts): ``make fuzz`` runs it,
``PIX_FUZZ_EXAMPLES`` sets the examples per operation.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode, Response
from schemathesis.schemas import BaseSchema

from pixweb.app import create_app
from pixweb.settings import Settings
from tests.fuzz.checks import CHECKS
from tests.fuzz.conftest import EXAMPLES

pytestmark = pytest.mark.fuzz

HTTP_METHODS = {"get", "put", "post", "patch", "delete"}


def _operations() -> list[str]:
    """``METHOD /path`` of every operation, from the app's document (the sandbox on, as in the run)."""
    document = create_app(Settings(run_workers=False, sandbox=True)).openapi_schema.to_schema()
    return [
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in item
        if method in HTTP_METHODS
    ]


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
