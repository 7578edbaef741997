"""Due-date charges (``cobv``): the request rules around their terms, and the service's day.

The terms themselves (``calendario`` and ``valor`` of a ``cobv``: the due date, how long after it
the charge is payable, fine, interest, rebate and discounts, and the amount due on a day) are
:mod:`pixcore.due_charges`'. This module judges the rest of a ``PUT``/``PATCH /cobv/{txid}`` body
as a ``cob``'s is judged, with one difference the standard makes: ``devedor`` is required. Every
broken rule of the body, the terms' included, is collected into one ``ValidationError``.

Days are Brasília's (UTC-3, without daylight saving since 2019): a ``cobv`` due on a date is
payable until that date ends there (docs/decisions.md, "Due-date charges (cobv)").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from pixcore.charges import (
    MAX_KEY,
    MAX_PAYER_REQUEST,
    Charge,
    ChargeStatus,
    Debtor,
    DebtorFields,
    InfoFields,
    judge_debtor,
    judge_info,
    judge_text,
)
from pixcore.due_charges import DueTerms, parse_due_terms
from pixcore.errors import ValidationError

__all__ = [
    "BRASILIA",
    "DueChargeFields",
    "DueChargeRequest",
    "DueRevision",
    "DueRevisionFields",
    "day_end",
    "local_day",
]

BRASILIA = timezone(timedelta(hours=-3), "BRT")
"""The service's days: Brasília's official time, UTC-3 all year since 2019 (Decreto 9.772)."""


def local_day(moment: datetime) -> date:
    """The date in Brasília at ``moment``."""
    return moment.astimezone(BRASILIA).date()


def day_end(day: date) -> datetime:
    """The moment ``day`` ends in Brasília (the next day's midnight there)."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=BRASILIA)


def _terms(problems: list[str], calendar: object, value: object, today: date) -> DueTerms | None:
    try:
        return parse_due_terms(calendar, value, today=today)
    except ValidationError as exc:
        problems.extend(exc.details or [exc.message])
        return None


@dataclass(frozen=True, slots=True)
class DueChargeFields:
    """A ``PUT /cobv/{txid}`` body as the edge decoded it: ``calendar`` and ``value`` are
    ``calendario`` and ``valor`` as decoded JSON (None when null or left out); the other parts as
    in :class:`pixcore.charges.ChargeFields`."""

    calendar: object
    value: object
    debtor: DebtorFields | None = None
    key: object = None
    payer_request: object = None
    info: tuple[InfoFields, ...] | None = None


def _debtor(problems: list[str], debtor: DebtorFields | None) -> Debtor | None:
    if debtor is None or (debtor.cpf is None and debtor.cnpj is None):
        judged = judge_debtor(problems, debtor)  # a name without a document is its own rule
        if judged is None and not any(p.startswith("devedor") for p in problems):
            problems.append("devedor: required, a cpf or cnpj with nome")
        return judged
    return judge_debtor(problems, debtor)


@dataclass(frozen=True, slots=True)
class DueChargeRequest:
    """A validated ``PUT /cobv/{txid}`` body. ``key`` None: the account's first key."""

    terms: DueTerms
    debtor: Debtor
    key: str | None = None
    payer_request: str | None = None
    info: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, fields: DueChargeFields, *, today: date) -> DueChargeRequest:
        """Every rule of the body at once: the terms (:func:`parse_due_terms`, judged against
        ``today``), a debtor, the key and texts as a ``cob``'s."""
        problems: list[str] = []
        terms = _terms(problems, fields.calendar, fields.value, today)
        debtor = _debtor(problems, fields.debtor)
        key = judge_text(problems, "chave", fields.key, MAX_KEY)
        payer_request = judge_text(problems, "solicitacaoPagador", fields.payer_request, MAX_PAYER_REQUEST)
        info = judge_info(problems, fields.info)
        if problems or terms is None or debtor is None:
            raise ValidationError("Invalid due-date charge: " + "; ".join(problems), details=problems)
        return cls(terms, debtor, key, payer_request, info)


@dataclass(frozen=True, slots=True)
class DueRevisionFields:
    """A ``PATCH /cobv/{txid}`` body as the edge decoded it: a part left out (or null) is
    unchanged; inside ``calendar`` and ``value`` (objects), each member left out keeps the
    charge's."""

    calendar: object = None
    value: object = None
    debtor: DebtorFields | None = None
    key: object = None
    payer_request: object = None
    info: tuple[InfoFields, ...] | None = None
    status: object = None

    @property
    def revises(self) -> bool:
        parts = (self.calendar, self.value, self.debtor, self.key, self.payer_request, self.info)
        return any(part is not None for part in parts)

    def cancels(self) -> bool:
        """Whether it cancels the charge; raises ``ValidationError`` if its status, or the lack of
        any change, breaks a rule (judged before the charge is looked up)."""
        problems: list[str] = []
        removed = ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value
        if self.status is None:
            if not self.revises:
                problems.append("the body changes nothing: give a field to revise, or status")
        else:
            if self.status != removed:
                problems.append(f"status: the only status a change may set is {removed}")
            if self.revises:
                problems.append("status: a charge is cancelled alone, not together with other changes")
        for name, part in (("calendario", self.calendar), ("valor", self.value)):
            if part is not None and not isinstance(part, dict):
                problems.append(f"{name}: an object")
        if problems:
            raise ValidationError("Invalid due-date charge change: " + "; ".join(problems), details=problems)
        return self.status is not None


def _merged(current: dict[str, Any], given: object) -> object:
    """A part of the terms after a change: the charge's members, those given replacing them."""
    if given is None:
        return current
    if not isinstance(given, dict):
        return given
    return current | given


@dataclass(frozen=True, slots=True)
class DueRevision:
    """A validated ``PATCH /cobv/{txid}``: ``cancel``, or the charge's parts after the change."""

    cancel: bool
    terms: DueTerms | None = None
    debtor: Debtor | None = None
    key: str | None = None
    payer_request: str | None = None
    info: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, fields: DueRevisionFields, current: Charge, *, today: date) -> DueRevision:
        """The revision of ``current`` (a ``cobv``), each rule as on creation, judged on the terms
        as they would be after it (a new due date is judged against ``today``)."""
        if fields.cancels():
            return cls(cancel=True)
        if current.due is None:
            raise ValidationError("not a due-date charge")
        problems: list[str] = []
        calendar, value = current.due.wire()
        terms = _terms(problems, _merged(calendar, fields.calendar), _merged(value, fields.value), today)
        debtor = current.debtor if fields.debtor is None else _debtor(problems, fields.debtor)
        key = judge_text(problems, "chave", fields.key, MAX_KEY)
        payer_request = (
            current.payer_request
            if fields.payer_request is None
            else judge_text(problems, "solicitacaoPagador", fields.payer_request, MAX_PAYER_REQUEST)
        )
        info = current.info if fields.info is None else judge_info(problems, fields.info)
        if problems or terms is None or debtor is None:
            raise ValidationError("Invalid due-date charge change: " + "; ".join(problems), details=problems)
        return cls(False, terms, debtor, key, payer_request, info)

