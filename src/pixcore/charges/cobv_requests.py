"""Due-date charges (``cobv``): the request rules around their terms, and the service's day.

The terms themselves (``calendario`` and ``valor`` of a ``cobv``: the due date, how long after it
the charge is payable, fine, interest, rebate and discounts, and the amount due on a day) are
:mod:`pixcore.charges.cobv`'. This module judges the rest of a ``PUT``/``PATCH /cobv/{txid}`` body
as a ``cob``'s is judged, with one difference the standard makes: ``devedor`` is required. Every
broken rule of the body, the terms' included, is collected into one ``ValidationError``.

Days are the payer's (:func:`pixcore.charges.cobv.payer_day`, Brasília's): a ``cobv`` is payable
until its last payable day ends there (docs/decisions/due-charges.md).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from pixcore.charges.cob import ABSENT, MAX_EXPIRATION, Absent, Charge
from pixcore.charges.cobv import (
    PAYER_ZONE,
    DiscountDateFields,
    DiscountFields,
    DueCalendarFields,
    DueField,
    DueTerms,
    DueValueFields,
    RateFields,
    parse_due_terms,
    payer_day,
)
from pixcore.charges.parts import (
    DUE_REVISION,
    ChargeField,
    Debtor,
    DebtorFields,
    Particulars,
    RequestFields,
    RevisionFields,
    Text,
    judge_debtor,
    judge_revised_parts,
)
from pixcore.errors import ValidationError
from pixcore.money import format_amount_string
from pixcore.problems import Member, Problem
from pixcore.validation import Invalid

__all__ = [
    "DueCalendarChange",
    "DueChargeFields",
    "DueChargeRequest",
    "DueRevision",
    "DueRevisionFields",
    "DueValueChange",
    "day_end",
    "due_expiration",
    "terms_fields",
]


def day_end(day: date) -> datetime:
    """The moment ``day`` ends for the payer (the next day's midnight in Brasília)."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=PAYER_ZONE)


def due_expiration(terms: DueTerms, created_at: datetime) -> int | None:
    """Seconds from ``created_at`` to the end of the terms' last payable day (rounded up, at least
    one): the charge's ``expiracao``, so that it expires as a ``cob`` does. None when that is
    beyond what a charge can hold (:data:`~pixcore.charges.cob.MAX_EXPIRATION`, some 68 years)."""
    try:
        end = day_end(terms.last_payable_day())
    except OverflowError:
        return None
    seconds = max(1, math.ceil((end - created_at).total_seconds()))
    return seconds if seconds <= MAX_EXPIRATION else None


def _expiration(problems: list[Problem], terms: DueTerms | None, created_at: datetime) -> int | None:
    if terms is None:
        return None
    seconds = due_expiration(terms, created_at)
    if seconds is None:
        text = f"the last day to pay must fall within {MAX_EXPIRATION} seconds of the charge's creation"
        problems.append(Problem.of(DueField.DAYS_AFTER_DUE, text))
    return seconds


def _rate_fields(modality: int, value: int) -> RateFields:
    return RateFields(int(modality), format_amount_string(value))


def terms_fields(terms: DueTerms) -> tuple[DueCalendarFields, DueValueFields]:
    """``terms`` as the fields a body would give to make them again (what a revision starts from)."""
    calendar = DueCalendarFields(terms.due_date.isoformat(), terms.days_after_due)
    discount = None
    if terms.discount is not None:
        d = terms.discount
        dates = tuple(DiscountDateFields(i.until.isoformat(), format_amount_string(i.value)) for i in d.dates)
        discount = DiscountFields(
            int(d.modality),
            None if d.modality.fixed_dates else format_amount_string(d.value),
            dates or None,
        )
    value = DueValueFields(
        format_amount_string(terms.original),
        None if terms.fine is None else _rate_fields(terms.fine.modality, terms.fine.value),
        None if terms.interest is None else _rate_fields(terms.interest.modality, terms.interest.value),
        None if terms.rebate is None else _rate_fields(terms.rebate.modality, terms.rebate.value),
        discount,
    )
    return calendar, value


def _terms(
    problems: list[Problem], calendar: DueCalendarFields | None, value: DueValueFields | None, today: date
) -> DueTerms | None:
    try:
        return parse_due_terms(calendar, value, today=today)
    except ValidationError as exc:
        problems.extend(exc.problems)
        return None


DueChargeFields = RequestFields[DueCalendarFields, DueValueFields]
"""A ``PUT /cobv/{txid}`` body as the edge decoded it (:class:`~pixcore.charges.parts.RequestFields`
with a ``cobv``'s ``calendario`` and ``valor``)."""


_DEBTOR_FIELDS = frozenset(field for field in ChargeField if field.name.startswith("DEBTOR"))


def _debtor(problems: list[Problem], debtor: DebtorFields | None) -> Debtor | None:
    if debtor is None or (debtor.cpf is None and debtor.cnpj is None):
        judged = judge_debtor(problems, debtor)  # a name without a document is its own rule
        if judged is None and not any(_DEBTOR_FIELDS.intersection(p.fields) for p in problems):
            documents = Member(ChargeField.DEBTOR_CPF), Member(ChargeField.DEBTOR_CNPJ)
            text = "required, a {} or {} with {}"
            problems.append(Problem.of(ChargeField.DEBTOR, text, *documents, Member(ChargeField.DEBTOR_NAME)))
        return judged
    return judge_debtor(problems, debtor)


@dataclass(frozen=True, slots=True)
class DueChargeRequest(Particulars):
    """A validated ``PUT /cobv/{txid}`` body (its other parts, a debtor always among them:
    :class:`~pixcore.charges.parts.Particulars`)."""

    terms: DueTerms
    expiration: int
    """Seconds from ``now`` to the end of the last payable day (:func:`due_expiration`)."""

    @classmethod
    def parse(cls, fields: DueChargeFields, *, now: datetime) -> DueChargeRequest:
        """Every rule of the body at once: the terms (:func:`parse_due_terms`, judged against the
        payer's day at ``now``, the creation), a debtor, the key and texts as a ``cob``'s."""
        problems: list[Problem] = []
        terms = _terms(problems, fields.calendar, fields.value, payer_day(now))
        expiration = _expiration(problems, terms, now)
        parts = fields.judge_parts(problems, _debtor)
        if problems or terms is None or parts.debtor is None or expiration is None:
            raise ValidationError(problems=problems, summary="Invalid due-date charge: {}")
        return cls(terms, expiration, **parts.given())


@dataclass(frozen=True, slots=True)
class DueCalendarChange:
    """``calendario`` of a ``PATCH``: a member left out (:data:`ABSENT`) keeps the charge's."""

    due_date: Text | Absent = ABSENT
    days_after_due: int | Absent | Invalid = ABSENT

    def judge_alone(self, problems: list[Problem]) -> None:
        """Nothing: a due date is judged with the charge's terms."""


@dataclass(frozen=True, slots=True)
class DueValueChange:
    """``valor`` of a ``PATCH``: a member left out (:data:`ABSENT`) keeps the charge's; a ``null``
    one (None) removes it."""

    original: Text | Absent = ABSENT
    fine: RateFields | Absent | None = ABSENT
    interest: RateFields | Absent | None = ABSENT
    rebate: RateFields | Absent | None = ABSENT
    discount: DiscountFields | Absent | None = ABSENT

    def judge_alone(self, problems: list[Problem]) -> None:
        """Nothing: the amount is judged with the charge's terms."""


def _given(change: DueCalendarChange | DueValueChange) -> dict[str, Any]:
    members = {f.name: getattr(change, f.name) for f in dataclasses.fields(change)}
    return {name: value for name, value in members.items() if value is not ABSENT}


def _changed_calendar(current: DueCalendarFields, change: DueCalendarChange | None) -> DueCalendarFields:
    """``current`` with the members ``change`` gives (those :data:`ABSENT` kept)."""
    return current if change is None else dataclasses.replace(current, **_given(change))


def _changed_value(current: DueValueFields, change: DueValueChange | None) -> DueValueFields:
    """``current`` with the members ``change`` gives (those :data:`ABSENT` kept)."""
    return current if change is None else dataclasses.replace(current, **_given(change))


DueRevisionFields = RevisionFields[DueCalendarChange, DueValueChange]
"""A ``PATCH /cobv/{txid}`` body as the edge decoded it: inside ``calendar`` and ``value``, each
member left out keeps the charge's (its cancel judged as :data:`DUE_REVISION` says)."""


@dataclass(frozen=True, slots=True)
class DueRevision(Particulars):
    """A validated ``PATCH /cobv/{txid}``: ``cancel``, or the charge's parts after the change."""

    cancel: bool
    terms: DueTerms | None = None
    expiration: int = 1

    @classmethod
    def parse(cls, fields: DueRevisionFields, current: Charge, *, now: datetime) -> DueRevision:
        """The revision of ``current`` (a ``cobv``), each rule as on creation, judged on the terms
        as they would be after it (a due date may not be before the payer's day at ``now``)."""
        if fields.cancels(DUE_REVISION):
            return cls(cancel=True)
        if current.due is None:
            raise ValidationError("not a due-date charge")
        problems: list[Problem] = []
        calendar, value = terms_fields(current.due)
        terms = _terms(
            problems,
            _changed_calendar(calendar, fields.calendar),
            _changed_value(value, fields.value),
            payer_day(now),
        )
        expiration = _expiration(problems, terms, current.created_at)
        parts = judge_revised_parts(problems, fields, current, _debtor)
        if problems or terms is None or parts.debtor is None or expiration is None:
            raise ValidationError(problems=problems, summary="Invalid due-date charge change: {}")
        return cls(cancel=False, terms=terms, expiration=expiration, **parts.given())
