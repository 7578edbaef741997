"""A ``cob``'s cash withdrawal (the standard's ``valor.retirada``): Pix Saque and Pix Troco.

A ``cob`` with a withdrawal is a Pix Saque (``saque``: cash only, its ``original`` 0.00) or a Pix
Troco (``troco``: a purchase of ``original`` above 0.00 and cash on top). Exactly one of the two;
each gives its amount, whether the payer may change it, the agent's modality and the ISPB of the
withdrawal service facilitator. The payer pays ``original`` plus the withdrawal's amount.

:func:`judge_withdrawal` judges the part alone; how it binds the charge's ``original`` and
modality is judged with the charge's value (``pixcore.charges.cob``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from pixcore.money import parse_amount_string
from pixcore.problems import Field, Member, Problem
from pixcore.validation import ABSENT, Absent, Invalid, collect

__all__ = [
    "FACILITATOR_PATTERN",
    "AgentModality",
    "Withdrawal",
    "WithdrawalField",
    "WithdrawalFields",
    "WithdrawalKind",
    "WithdrawalPartFields",
    "judge_withdrawal",
]

FACILITATOR_PATTERN = r"^[0-9A-Z]{8}$"
"""The facilitator's ISPB, as the standard's ``prestadorDoServicoDeSaque`` writes it."""
_FACILITATOR = re.compile(FACILITATOR_PATTERN)


class WithdrawalKind(enum.StrEnum):
    SAQUE = "saque"
    """Cash only: the charge's ``original`` is 0.00."""
    TROCO = "troco"
    """Cash on top of a purchase: the charge's ``original`` is above 0.00."""


class AgentModality(enum.StrEnum):
    """``modalidadeAgente``: who hands the cash over."""

    AGTEC = "AGTEC"
    """A commercial establishment."""
    AGTOT = "AGTOT"
    """Another kind of legal person, or a correspondent."""
    AGPSS = "AGPSS"
    """A withdrawal service facilitator (a ``saque`` only)."""


AGENTS = {
    WithdrawalKind.SAQUE: tuple(AgentModality),
    WithdrawalKind.TROCO: (AgentModality.AGTEC, AgentModality.AGTOT),
}
"""The agents each kind allows."""


class WithdrawalField(Field):
    """The fields of a withdrawal, as its rules name them."""

    WITHDRAWAL = enum.auto()
    SAQUE = enum.auto()
    SAQUE_AMOUNT = enum.auto()
    SAQUE_MODALITY = enum.auto()
    SAQUE_AGENT = enum.auto()
    SAQUE_FACILITATOR = enum.auto()
    TROCO = enum.auto()
    TROCO_AMOUNT = enum.auto()
    TROCO_MODALITY = enum.auto()
    TROCO_AGENT = enum.auto()
    TROCO_FACILITATOR = enum.auto()


_FIELDS = {
    WithdrawalKind.SAQUE: (
        WithdrawalField.SAQUE_AMOUNT,
        WithdrawalField.SAQUE_MODALITY,
        WithdrawalField.SAQUE_AGENT,
        WithdrawalField.SAQUE_FACILITATOR,
    ),
    WithdrawalKind.TROCO: (
        WithdrawalField.TROCO_AMOUNT,
        WithdrawalField.TROCO_MODALITY,
        WithdrawalField.TROCO_AGENT,
        WithdrawalField.TROCO_FACILITATOR,
    ),
}
PART_FIELD = {WithdrawalKind.SAQUE: WithdrawalField.SAQUE, WithdrawalKind.TROCO: WithdrawalField.TROCO}
"""The field of each kind's part (``saque``, ``troco``)."""


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A judged withdrawal: its ``kind``, ``amount`` in centavos, ``modality`` (1: the payer may
    change the amount), the ``agent``'s modality and the ``facilitator``'s ISPB."""

    kind: WithdrawalKind
    amount: int
    modality: int
    agent: AgentModality
    facilitator: str


@dataclass(frozen=True, slots=True)
class WithdrawalPartFields:
    """``saque`` or ``troco`` as the body gave it: each leaf None when null or left out,
    ``INVALID`` when of another type; ``modality`` :data:`ABSENT` when left out (0)."""

    amount: str | Invalid | None = None
    modality: int | Invalid | Absent = ABSENT
    agent: str | Invalid | None = None
    facilitator: str | Invalid | None = None


@dataclass(frozen=True, slots=True)
class WithdrawalFields:
    """``retirada`` as the body gave it: its ``saque`` and ``troco`` (None when left out)."""

    saque: WithdrawalPartFields | None = None
    troco: WithdrawalPartFields | None = None


def judge_withdrawal(problems: list[Problem], fields: WithdrawalFields | None) -> Withdrawal | None:
    """``retirada`` judged alone (None: left out), each broken rule appended to ``problems``:
    exactly one of ``saque`` and ``troco``, each with its amount, modality, agent and facilitator."""
    if fields is None:
        return None
    given = [(kind, part) for kind, part in _parts(fields) if part is not None]
    if len(given) != 1:
        text = "exactly one of {} and {}"
        refs = Member(WithdrawalField.SAQUE), Member(WithdrawalField.TROCO)
        problems.append(Problem.of(WithdrawalField.WITHDRAWAL, text, *refs))
        return None
    [(kind, part)] = given
    return _judge_part(problems, kind, part)


def _parts(fields: WithdrawalFields) -> tuple[tuple[WithdrawalKind, WithdrawalPartFields | None], ...]:
    return (WithdrawalKind.SAQUE, fields.saque), (WithdrawalKind.TROCO, fields.troco)


def _judge_part(
    problems: list[Problem], kind: WithdrawalKind, part: WithdrawalPartFields
) -> Withdrawal | None:
    amount_field, modality_field, agent_field, facilitator_field = _FIELDS[kind]
    before = len(problems)
    given = 0 if part.modality is ABSENT else part.modality
    modality = given if isinstance(given, int) and given in (0, 1) else None
    if modality is None:
        problems.append(Problem.of(modality_field, "must be 0 or 1"))
    amount = _amount(problems, amount_field, part.amount)
    if amount == 0 and modality == 0:
        problems.append(Problem.of(amount_field, "must be above 0.00 unless {} is 1", Member(modality_field)))
    agents = AGENTS[kind]
    agent = AgentModality(part.agent) if isinstance(part.agent, str) and part.agent in agents else None
    if agent is None:
        problems.append(Problem.of(agent_field, "required, one of " + ", ".join(agents)))
    facilitator = part.facilitator
    if not isinstance(facilitator, str) or not _FACILITATOR.fullmatch(facilitator):
        problems.append(Problem.of(facilitator_field, "required, an ISPB of 8 digits or capital letters"))
    if len(problems) > before or amount is None or modality is None or agent is None:
        return None
    return Withdrawal(kind, amount, modality, agent, str(facilitator))


def _amount(problems: list[Problem], field: Field, given: str | Invalid | None) -> int | None:
    if not isinstance(given, str):
        problems.append(Problem.of(field, 'required, a string with 2 decimals (e.g. "10.00")'))
        return None
    return collect(problems, field, lambda: parse_amount_string(given))
