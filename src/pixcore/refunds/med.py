"""MED (Mecanismo Especial de Devolucao): a dispute against a receipt.

Opening a case blocks the disputed amount (as much of it as ``available``
holds); accepting it returns the blocked funds to the payer as a refund of
nature MED_FRAUDE or MED_OPERACIONAL; rejecting it releases them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from transitions import Machine, MachineError

from pixcore.errors import InvalidTransition, ValidationError
from pixcore.problems import Field, Problem

__all__ = ["MedCase", "MedField", "MedLifecycle", "MedReason", "MedStatus", "NewMedCase"]


class MedStatus(enum.StrEnum):
    CREATED = "CREATED"
    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"


class MedField(Field):
    """The fields of a MED request, as :meth:`MedReason.parse` names them in its problems."""

    REASON = enum.auto()


class MedReason(enum.StrEnum):
    MED_FRAUDE = "MED_FRAUDE"
    MED_OPERACIONAL = "MED_OPERACIONAL"

    @classmethod
    def parse(cls, value: object) -> MedReason:
        if value not in [reason.value for reason in cls]:
            problem = Problem.of(MedField.REASON, "MED_FRAUDE or MED_OPERACIONAL")
            raise ValidationError(problems=[problem], summary="Invalid MED: {}")
        return cls(str(value))


class MedLifecycle:
    """CREATED -> ACCEPTED | REJECTED; both terminal. Triggers: :meth:`accept`, :meth:`reject`."""

    state: MedStatus

    def __init__(self, state: MedStatus = MedStatus.CREATED) -> None:
        self._machine = Machine(
            model=self,
            states=MedStatus,
            transitions=[
                {"trigger": "approve", "source": MedStatus.CREATED, "dest": MedStatus.ACCEPTED},
                {"trigger": "deny", "source": MedStatus.CREATED, "dest": MedStatus.REJECTED},
            ],
            initial=state,
            auto_transitions=False,
        )

    def _fire(self, trigger: str) -> MedStatus:
        try:
            getattr(self, trigger)()
        except MachineError:
            raise InvalidTransition(f"the MED case is {self.state.value} already") from None
        return self.state

    def accept(self) -> MedStatus:
        return self._fire("approve")

    def reject(self) -> MedStatus:
        return self._fire("deny")


@dataclass(frozen=True, slots=True, kw_only=True)
class NewMedCase:
    account_id: int
    original_transaction_id: int
    end_to_end_id: str
    reason: MedReason
    amount: int
    """The disputed amount: what of the receipt was still refundable when the case opened."""
    blocked: int
    """What was blocked (posted on the disputed receipt's transaction): the disputed amount, or
    what ``available`` held if that was less."""
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class MedCase(NewMedCase):
    id: int
    status: MedStatus = MedStatus.CREATED
    finished_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.status is MedStatus.CREATED
