"""One schemathesis run of the central bank's document against the service, as its command line
runs one: the phases ``examples``, ``coverage``, ``fuzzing`` and ``stateful`` in turn, every check
on (formats of ``date-time``, ``date``, ``uri``... checked in the responses), and what failed
gathered as :class:`Finding` s, grouped by cause for the report a failing test prints.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from schemathesis import AuthContext, Case, HookContext
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events, from_schema
from schemathesis.schemas import BaseSchema

from tests.conformance.data import Receiver, repaired
from tests.conformance.defects import fixed
from tests.conformance.links import with_links
from tests.conformance.state import refused_by_state
from tests.fuzz.service import Target

__all__ = ["EXAMPLES", "PHASES", "Finding", "Outcome", "grouped", "load", "run"]

EXAMPLES = int(os.environ.get("PIX_CONFORMANCE_EXAMPLES", os.environ.get("PIX_FUZZ_EXAMPLES", "50")))
"""Examples per operation of the fuzzing phase (``PIX_CONFORMANCE_EXAMPLES``, else
``PIX_FUZZ_EXAMPLES``; default 50); the coverage phase sends what the schema's boundaries give, and the
examples phase the document's examples."""
STATEFUL_STEPS = int(os.environ.get("PIX_CONFORMANCE_STEPS", "6"))
"""The longest chain of linked calls in a scenario of the stateful phase."""
PHASES = ("examples", "coverage", "fuzzing", "stateful")
TOKEN_LIFETIME_USED = 120  # seconds a token is reused


@dataclass(frozen=True)
class Finding:
    """A check that failed: on which operation, in which phase, and a request that shows it."""

    phase: str
    operation: str
    check: str
    title: str
    message: str
    curl: str


@dataclass
class Outcome:
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Errors of the run itself (a schema schemathesis cannot use, a crash of a phase)."""
    phases: dict[str, str] = field(default_factory=dict)
    """Each phase's status, or why it was skipped."""
    transitions: int = 0
    """The links the stateful phase followed (the harness's and those it inferred)."""
    tested: set[str] = field(default_factory=set)
    """The operations that got at least one answer."""


def load(
    target: Target,
    base_url: str,
    *,
    exclude: str | None = None,
    include: str | None = None,
    stateful: bool = True,
) -> BaseSchema:
    """The document, fixed for its defects, with the harness's links, sent to ``base_url`` signed
    in with a bearer token of the account, positive data repaired (:mod:`tests.conformance.data`).
    ``stateful=False`` for operations that no link joins (the payloads)."""
    config = SchemathesisConfig.from_dict(
        {
            "base-url": base_url,
            # U+0000 in a text: PostgreSQL's text cannot hold it, so the service refuses it wherever
            # it would be kept (docs/decisions/hostile-text.md); the only text the suite leaves out.
            "generation": {"max-examples": EXAMPLES, "allow-x00": False},
            "phases": {"stateful": {"enabled": stateful, "max-steps": STATEFUL_STEPS}},
            "checks": {"response_schema_conformance": {"validate-formats": True}},
        }
    )
    document = with_links(fixed()) | {_MARK: True}
    receiver = Receiver(
        keys=list(target.account.keys),
        account=target.account.number,
        rec_id=next(iter(target.known.get("idRec", [])), ""),
    )
    _RECEIVER[_MARK] = receiver
    schema = schemathesis.openapi.from_dict(document, config=config)
    if exclude is not None:
        schema = schema.exclude(path_regex=exclude)
    if include is not None:
        schema = schema.include(path_regex=include)

    @schema.auth(refresh_interval=TOKEN_LIFETIME_USED)
    class Bearer:
        def get(self, _case: Case, _context: AuthContext) -> str:
            return target.token()

        def set(self, case: Case, data: str, _context: AuthContext) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    @schema.hook
    def map_case(_context: HookContext, case: Case) -> Case:
        return repaired(case, receiver)

    return schema


_MARK = "x-pix-conformance"
"""Set on the document this harness loads, so that its global hook leaves other schemas alone."""
_RECEIVER: dict[str, Receiver] = {}


@schemathesis.hook("before_call")
def _repair_before_call(_context: HookContext, case: Case, _kwargs: dict[str, Any]) -> None:
    """The repairs of :func:`map_case` on every case about to be sent: the coverage phase builds its
    cases without that hook (and ``before_call`` is only ever global)."""
    if case.operation.schema.raw_schema.get(_MARK):
        repaired(case, _RECEIVER[_MARK])


def _label(recorder: Any, case_id: str) -> str:
    node = recorder.cases.get(case_id)
    return str(node.value.operation.label) if node is not None else str(recorder.label)


def _refusal(recorder: Any, case_id: str) -> tuple[int, str, str]:
    """The status, the problem's ``type`` and its ``detail`` of the answer to ``case_id``."""
    interaction = recorder.interactions.get(case_id)
    response = interaction.response if interaction is not None else None
    if response is None:
        return 0, "", ""
    try:
        problem = json.loads(response.content)
    except ValueError:
        return response.status_code, "", ""
    if not isinstance(problem, dict):
        return response.status_code, "", ""
    return response.status_code, str(problem.get("type", "")), str(problem.get("detail", ""))


def _collect(event: events.ScenarioFinished, outcome: Outcome) -> None:
    recorder = event.recorder
    for case_id in recorder.interactions:
        outcome.tested.add(_label(recorder, case_id))
    for case_id, checks in recorder.checks.items():
        for check in checks:
            if check.failure_info is None:
                continue
            label = _label(recorder, case_id)
            if check.name == "positive_data_acceptance" and refused_by_state(
                label, *_refusal(recorder, case_id)
            ):
                continue
            failure = check.failure_info.failure
            outcome.findings.append(
                Finding(
                    phase=event.phase.value,
                    operation=label,
                    check=check.name,
                    title=failure.title,
                    message=failure.message,
                    curl=check.failure_info.code_sample,
                )
            )


def run(schema: BaseSchema, outcome: Outcome) -> Outcome:
    """Runs every phase of ``schema`` and adds what it found to ``outcome``."""
    for event in from_schema(schema).execute():
        if isinstance(event, events.PhaseStarted) and isinstance(event.payload, events.StatefulPhasePayload):
            outcome.transitions += event.payload.transitions_selected
        elif isinstance(event, events.PhaseFinished):
            phase = event.phase
            status = (
                event.status.value if phase.skip_reason is None else f"skipped: {phase.skip_reason.value}"
            )
            outcome.phases.setdefault(phase.name.value, status)  # the first run's, the face's
        elif isinstance(event, events.ScenarioFinished):
            _collect(event, outcome)
        elif isinstance(event, events.NonFatalError | events.FatalError):
            outcome.errors.append(str(getattr(event, "info", None) or getattr(event, "exception", event)))
    return outcome


def grouped(findings: list[Finding]) -> str:
    """The findings by cause (check and title), each cause with its operations and phases and one
    request that shows it: the list a builder of the standard's face works through."""
    causes: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in findings:
        causes[finding.check, finding.title].append(finding)
    lines = []
    for (check, title), found in sorted(causes.items(), key=lambda item: -len(item[1])):
        operations = sorted({finding.operation for finding in found})
        phases = sorted({finding.phase for finding in found})
        example = found[0]
        lines += [
            f"== {title} ({check}): {len(found)} in {', '.join(phases)}",
            f"   operations: {', '.join(operations)}",
            "   e.g. " + example.message.strip().replace("\n", "\n        ")[:800],
            "        " + example.curl.strip()[:600],
        ]
    return "\n".join(lines)
