"""The states of Pix Automático and the machines that move them (``transitions``, no automatic
triggers: only the transitions drawn here exist; a refused trigger is a
:class:`~pixcore.recurrences.errors.RecurrenceTransition`).

Recurrence (``rec``)::

    CRIADA ──approve──> APROVADA ──expire──> EXPIRADA
      │ └──reject──> REJEITADA        │
      ├──expire──> EXPIRADA           │
      └──cancel──> CANCELADA <──cancel┘

Request for the payer's authorization (``solicrec``)::

    CRIADA ──send──> ENVIADA ──receive──> RECEBIDA ──accept──> ACEITA
                                             └──refuse──> REJEITADA
    CRIADA | ENVIADA | RECEBIDA ──cancel──> CANCELADA,  ──expire──> EXPIRADA

Recurring charge (``cobr``)::

    CRIADA ──activate──> ATIVA ──conclude──> CONCLUIDA
      │                    ├──expire──> EXPIRADA      (no attempt paid, none left)
      ├──reject──> REJEITADA <──reject┤                (the payer's bank refused it)
      └──cancel──> CANCELADA <──cancel┘

An attempt of a recurring charge (``tentativas``)::

    SOLICITADA ──schedule──> AGENDADA ──pay──> PAGA
       │                        └──expire──> EXPIRADA  (its date came without the funds)
       ├──reject──> REJEITADA
       └──cancel──> CANCELADA <──cancel── AGENDADA
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

from transitions import Machine, MachineError

from pixcore.recurrences.errors import RecurrenceTransition

__all__ = [
    "AttemptLifecycle",
    "AttemptStatus",
    "RecurrenceLifecycle",
    "RecurrenceStatus",
    "RecurringChargeLifecycle",
    "RecurringChargeStatus",
    "RequestLifecycle",
    "RequestStatus",
]


class RecurrenceStatus(enum.StrEnum):
    CRIADA = "CRIADA"
    APROVADA = "APROVADA"
    REJEITADA = "REJEITADA"
    EXPIRADA = "EXPIRADA"
    CANCELADA = "CANCELADA"

    @property
    def closed(self) -> bool:
        """Expired, rejected or cancelled: nothing more happens to it."""
        return self in (RecurrenceStatus.REJEITADA, RecurrenceStatus.EXPIRADA, RecurrenceStatus.CANCELADA)


class RequestStatus(enum.StrEnum):
    CRIADA = "CRIADA"
    ENVIADA = "ENVIADA"
    RECEBIDA = "RECEBIDA"
    ACEITA = "ACEITA"
    REJEITADA = "REJEITADA"
    EXPIRADA = "EXPIRADA"
    CANCELADA = "CANCELADA"

    @property
    def open(self) -> bool:
        """Still waiting for the payer (the one request a recurrence may have open)."""
        return self in (RequestStatus.CRIADA, RequestStatus.ENVIADA, RequestStatus.RECEBIDA)


class RecurringChargeStatus(enum.StrEnum):
    CRIADA = "CRIADA"
    ATIVA = "ATIVA"
    CONCLUIDA = "CONCLUIDA"
    EXPIRADA = "EXPIRADA"
    REJEITADA = "REJEITADA"
    CANCELADA = "CANCELADA"

    @property
    def live(self) -> bool:
        """Still to be paid: CRIADA or ATIVA."""
        return self in (RecurringChargeStatus.CRIADA, RecurringChargeStatus.ATIVA)

    @property
    def holds_cycle(self) -> bool:
        """Whether it keeps its cycle from another charge: every status but REJEITADA and CANCELADA."""
        return self not in (RecurringChargeStatus.REJEITADA, RecurringChargeStatus.CANCELADA)


class AttemptStatus(enum.StrEnum):
    SOLICITADA = "SOLICITADA"
    AGENDADA = "AGENDADA"
    PAGA = "PAGA"
    CANCELADA = "CANCELADA"
    REJEITADA = "REJEITADA"
    EXPIRADA = "EXPIRADA"

    @property
    def pending(self) -> bool:
        """Not finished: SOLICITADA or AGENDADA."""
        return self in (AttemptStatus.SOLICITADA, AttemptStatus.AGENDADA)


S = TypeVar("S", bound=enum.StrEnum)


class _StateMachine(Generic[S]):
    """A state machine over the enum ``S``; each trigger returns the new state."""

    noun = "record"
    state: S

    def __init__(self, state: S, states: type[S], transitions: list[dict[str, object]]) -> None:
        self._machine = Machine(
            model=self, states=states, transitions=transitions, initial=state, auto_transitions=False
        )

    def _fire(self, trigger: str, verb: str) -> S:
        try:
            getattr(self, trigger)()
        except MachineError:
            raise RecurrenceTransition(f"a {self.state.value} {self.noun} cannot be {verb}") from None
        return self.state


def _moves(trigger: str, sources: tuple[enum.Enum, ...], dest: enum.Enum) -> dict[str, object]:
    return {"trigger": trigger, "source": list(sources), "dest": dest}


class RecurrenceLifecycle(_StateMachine[RecurrenceStatus]):
    noun = "recurrence"
    state: RecurrenceStatus

    def __init__(self, state: RecurrenceStatus) -> None:
        created, approved = RecurrenceStatus.CRIADA, RecurrenceStatus.APROVADA
        super().__init__(
            state,
            RecurrenceStatus,
            [
                _moves("_approve", (created,), approved),
                _moves("_reject", (created,), RecurrenceStatus.REJEITADA),
                _moves("_expire", (created, approved), RecurrenceStatus.EXPIRADA),
                _moves("_cancel", (created, approved), RecurrenceStatus.CANCELADA),
            ],
        )

    def approve(self) -> RecurrenceStatus:
        return self._fire("_approve", "approved")

    def reject(self) -> RecurrenceStatus:
        return self._fire("_reject", "rejected")

    def expire(self) -> RecurrenceStatus:
        return self._fire("_expire", "expired")

    def cancel(self) -> RecurrenceStatus:
        return self._fire("_cancel", "cancelled")


class RequestLifecycle(_StateMachine[RequestStatus]):
    noun = "request"
    state: RequestStatus

    def __init__(self, state: RequestStatus) -> None:
        created, sent, received = RequestStatus.CRIADA, RequestStatus.ENVIADA, RequestStatus.RECEBIDA
        super().__init__(
            state,
            RequestStatus,
            [
                _moves("_send", (created,), sent),
                _moves("_receive", (sent,), received),
                _moves("_accept", (received,), RequestStatus.ACEITA),
                _moves("_refuse", (received,), RequestStatus.REJEITADA),
                _moves("_cancel", (created, sent, received), RequestStatus.CANCELADA),
                _moves("_expire", (created, sent, received), RequestStatus.EXPIRADA),
            ],
        )

    def send(self) -> RequestStatus:
        return self._fire("_send", "sent")

    def receive(self) -> RequestStatus:
        return self._fire("_receive", "received")

    def accept(self) -> RequestStatus:
        return self._fire("_accept", "accepted")

    def refuse(self) -> RequestStatus:
        return self._fire("_refuse", "refused")

    def cancel(self) -> RequestStatus:
        return self._fire("_cancel", "cancelled")

    def expire(self) -> RequestStatus:
        return self._fire("_expire", "expired")


class RecurringChargeLifecycle(_StateMachine[RecurringChargeStatus]):
    noun = "recurring charge"
    state: RecurringChargeStatus

    def __init__(self, state: RecurringChargeStatus) -> None:
        created, active = RecurringChargeStatus.CRIADA, RecurringChargeStatus.ATIVA
        super().__init__(
            state,
            RecurringChargeStatus,
            [
                _moves("_activate", (created,), active),
                _moves("_conclude", (active,), RecurringChargeStatus.CONCLUIDA),
                _moves("_expire", (active,), RecurringChargeStatus.EXPIRADA),
                _moves("_reject", (created, active), RecurringChargeStatus.REJEITADA),
                _moves("_cancel", (created, active), RecurringChargeStatus.CANCELADA),
            ],
        )

    def activate(self) -> RecurringChargeStatus:
        return self._fire("_activate", "activated")

    def conclude(self) -> RecurringChargeStatus:
        return self._fire("_conclude", "paid")

    def expire(self) -> RecurringChargeStatus:
        return self._fire("_expire", "expired")

    def reject(self) -> RecurringChargeStatus:
        return self._fire("_reject", "rejected")

    def cancel(self) -> RecurringChargeStatus:
        return self._fire("_cancel", "cancelled")


class AttemptLifecycle(_StateMachine[AttemptStatus]):
    noun = "attempt"
    state: AttemptStatus

    def __init__(self, state: AttemptStatus) -> None:
        asked, scheduled = AttemptStatus.SOLICITADA, AttemptStatus.AGENDADA
        super().__init__(
            state,
            AttemptStatus,
            [
                _moves("_schedule", (asked,), scheduled),
                _moves("_pay", (scheduled,), AttemptStatus.PAGA),
                _moves("_expire", (scheduled,), AttemptStatus.EXPIRADA),
                _moves("_reject", (asked,), AttemptStatus.REJEITADA),
                _moves("_cancel", (asked, scheduled), AttemptStatus.CANCELADA),
            ],
        )

    def schedule(self) -> AttemptStatus:
        return self._fire("_schedule", "scheduled")

    def pay(self) -> AttemptStatus:
        return self._fire("_pay", "paid")

    def expire(self) -> AttemptStatus:
        return self._fire("_expire", "expired")

    def reject(self) -> AttemptStatus:
        return self._fire("_reject", "rejected")

    def cancel(self) -> AttemptStatus:
        return self._fire("_cancel", "cancelled")
