"""The state machines of Pix Automático: the transitions drawn in pixcore.recurrences.lifecycles
exist, every other trigger is refused with RecurrenceTransition and leaves the state as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pixcore.recurrences import (
    AttemptLifecycle,
    AttemptStatus,
    RecurrenceLifecycle,
    RecurrenceStatus,
    RecurrenceTransition,
    RecurringChargeLifecycle,
    RecurringChargeStatus,
    RequestLifecycle,
    RequestStatus,
)

R, Q, C, A = RecurrenceStatus, RequestStatus, RecurringChargeStatus, AttemptStatus

ALLOWED: dict[tuple[Callable[[Any], Any], str], dict[Any, Any]] = {
    (RecurrenceLifecycle, "approve"): {R.CRIADA: R.APROVADA},
    (RecurrenceLifecycle, "reject"): {R.CRIADA: R.REJEITADA},
    (RecurrenceLifecycle, "expire"): {R.CRIADA: R.EXPIRADA, R.APROVADA: R.EXPIRADA},
    (RecurrenceLifecycle, "cancel"): {R.CRIADA: R.CANCELADA, R.APROVADA: R.CANCELADA},
    (RequestLifecycle, "send"): {Q.CRIADA: Q.ENVIADA},
    (RequestLifecycle, "receive"): {Q.ENVIADA: Q.RECEBIDA},
    (RequestLifecycle, "accept"): {Q.RECEBIDA: Q.ACEITA},
    (RequestLifecycle, "refuse"): {Q.RECEBIDA: Q.REJEITADA},
    (RequestLifecycle, "cancel"): {Q.CRIADA: Q.CANCELADA, Q.ENVIADA: Q.CANCELADA, Q.RECEBIDA: Q.CANCELADA},
    (RequestLifecycle, "expire"): {Q.CRIADA: Q.EXPIRADA, Q.ENVIADA: Q.EXPIRADA, Q.RECEBIDA: Q.EXPIRADA},
    (RecurringChargeLifecycle, "activate"): {C.CRIADA: C.ATIVA},
    (RecurringChargeLifecycle, "conclude"): {C.ATIVA: C.CONCLUIDA},
    (RecurringChargeLifecycle, "expire"): {C.ATIVA: C.EXPIRADA},
    (RecurringChargeLifecycle, "reject"): {C.CRIADA: C.REJEITADA, C.ATIVA: C.REJEITADA},
    (RecurringChargeLifecycle, "cancel"): {C.CRIADA: C.CANCELADA, C.ATIVA: C.CANCELADA},
    (AttemptLifecycle, "schedule"): {A.SOLICITADA: A.AGENDADA},
    (AttemptLifecycle, "pay"): {A.AGENDADA: A.PAGA},
    (AttemptLifecycle, "expire"): {A.AGENDADA: A.EXPIRADA},
    (AttemptLifecycle, "reject"): {A.SOLICITADA: A.REJEITADA},
    (AttemptLifecycle, "cancel"): {A.SOLICITADA: A.CANCELADA, A.AGENDADA: A.CANCELADA},
}
STATES = {RecurrenceLifecycle: R, RequestLifecycle: Q, RecurringChargeLifecycle: C, AttemptLifecycle: A}

CASES = [
    pytest.param(machine, trigger, state, moves.get(state), id=f"{machine.__name__}.{trigger}({state.value})")
    for (machine, trigger), moves in ALLOWED.items()
    for state in STATES[machine]  # type: ignore[index]
]


@pytest.mark.parametrize(("machine", "trigger", "state", "dest"), CASES)
def test_each_trigger_moves_only_where_the_drawing_says(
    machine: Callable[[Any], Any], trigger: str, state: Any, dest: Any
) -> None:
    lifecycle = machine(state)
    if dest is None:
        with pytest.raises(RecurrenceTransition, match=f"a {state.value} .* cannot be"):
            getattr(lifecycle, trigger)()
        assert lifecycle.state is state
    else:
        assert getattr(lifecycle, trigger)() is dest
        assert lifecycle.state is dest


def test_the_closed_and_open_states_are_those_of_the_drawing() -> None:
    assert {s for s in R if s.closed} == {R.REJEITADA, R.EXPIRADA, R.CANCELADA}
    assert {s for s in Q if s.open} == {Q.CRIADA, Q.ENVIADA, Q.RECEBIDA}
    assert {s for s in C if s.live} == {C.CRIADA, C.ATIVA}
    assert {s for s in C if not s.holds_cycle} == {C.REJEITADA, C.CANCELADA}
    assert {s for s in A if s.pending} == {A.SOLICITADA, A.AGENDADA}
