"""Conformance with the central bank's standard Pix API: schemathesis reads the standard's own
document (v2.9.0, fixed only for its own defects: ``defects.py``) and runs its four phases against
the service's standard face, signed in, on a real database. Every answer must conform: a status
the operation documents, its content type, a body valid by its schema (formats included); valid
data accepted, invalid data refused; the checks of schemathesis, none forgiven.

Marked ``conformance`` (deselected by default; ``make conformance``, ``.ci/run``).
``PIX_CONFORMANCE_EXAMPLES`` (else ``PIX_FUZZ_EXAMPLES``, default 50) sets the examples per
operation. A failing test prints its failures grouped by cause, one request each;
``PIX_CONFORMANCE_REPORT=file`` writes all of them, grouped the same way, to one file.
"""

from __future__ import annotations

import pytest

from tests.conformance.operations import document_operations
from tests.conformance.run import PHASES, Outcome, grouped

pytestmark = pytest.mark.conformance

OPERATIONS = document_operations()


def test_the_run_itself_had_no_errors(outcome: Outcome) -> None:
    assert outcome.errors == []


@pytest.mark.parametrize("phase", PHASES)
def test_every_phase_ran(outcome: Outcome, phase: str) -> None:
    assert outcome.phases.get(phase) in {"success", "failure"}, outcome.phases


def test_the_stateful_phase_follows_links(outcome: Outcome) -> None:
    assert outcome.transitions >= 10, outcome.transitions


@pytest.mark.parametrize("label", OPERATIONS)
def test_operation_conforms(outcome: Outcome, label: str) -> None:
    assert label in outcome.tested, f"{label}: no request got an answer"
    found = [finding for finding in outcome.findings if finding.operation == label]
    assert found == [], f"{label}:\n{grouped(found)}"


def test_every_failure_is_on_an_operation_of_the_document(outcome: Outcome) -> None:
    stray = [finding for finding in outcome.findings if finding.operation not in OPERATIONS]
    assert stray == [], grouped(stray)


def test_every_operation_of_the_document_is_run(outcome: Outcome) -> None:
    """Each operation of the document got an answer in this run (none is left out of the suite)."""
    assert sorted(set(OPERATIONS) - outcome.tested) == []
