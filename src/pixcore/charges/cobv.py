"""Due-date charges (``cobv``): the terms of the amount, and the amount due on a given day.

A due-date charge has an original amount, a due date, a number of days it stays payable after
it, and up to four adjustments: a fine (``multa``) and interest (``juros``) once it is late, a
rebate (``abatimento``) always, a discount (``desconto``) for paying early. The rules, with a
hand-worked table per modality, are in docs/due-charges.md; in short:

* a due date on a weekend or national holiday moves to the next business day (the *effective*
  due date), and the fine, the interest and the discount dates move with it;
* the last day to pay is the effective due date plus ``days_after_due`` calendar days, moved in
  turn to the next business day when it falls on one that is not;
* amount = original - rebate - discount + fine + interest, as the central bank's manual orders
  it: the rebate first (a percentage of the original), then every other percentage on what the
  rebate leaves (the interest is (Vo - Va) x (Ij/100)/n x D); each part is rounded half-up to
  the centavo by integer arithmetic, and the reductions never take the amount below one centavo.

No wire names here: the edge maps ``calendario`` and ``valor`` onto :class:`DueCalendarFields`
and :class:`DueValueFields`, each leaf of its type (another ``INVALID``); :func:`parse_due_terms` judges them
all and names the field of each broken rule by a :class:`DueField` (or a shared
:class:`~pixcore.charges.parts.ChargeField`), which the edge renders as its path in the body.
The standard's JSON of the terms is written by :mod:`pixinfra.due_terms`. The terms themselves are declared in
:mod:`pixcore.charges.terms`; every name of theirs is exported here too, so a caller imports
this module alone.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import NoReturn
from zoneinfo import ZoneInfo

from pixcore.business_days import business_days_between, next_business_day
from pixcore.charges.parts import ChargeField, Text, Whole
from pixcore.charges.terms import (
    DEFAULT_DAYS_AFTER_DUE,
    HUNDRED_PERCENT,
    Discount,
    DiscountDate,
    DiscountModality,
    DueAmount,
    DueTerms,
    Fine,
    FineModality,
    Interest,
    InterestModality,
    Rebate,
    RebateModality,
)
from pixcore.errors import DueChargeClosed, ValidationError
from pixcore.money import AMOUNT_STRING_PATTERN, MAX_CENTS, format_amount_string, parse_amount_string
from pixcore.problems import Field, Member, Problem
from pixcore.validation import ABSENT, Absent, Invalid, collect

__all__ = [
    "DEFAULT_DAYS_AFTER_DUE",
    "MAX_DAYS_AFTER_DUE",
    "MAX_DISCOUNT_DATES",
    "PAYER_ZONE",
    "Discount",
    "DiscountDate",
    "DiscountDateFields",
    "DiscountFields",
    "DiscountModality",
    "DueAmount",
    "DueCalendarFields",
    "DueField",
    "DueStanding",
    "DueTerms",
    "DueValueFields",
    "Fine",
    "FineModality",
    "Interest",
    "InterestModality",
    "RateFields",
    "Rebate",
    "RebateModality",
    "amount_breakdown",
    "amount_due",
    "parse_due_terms",
    "payer_day",
    "standing",
]


MAX_DAYS_AFTER_DUE = 2_147_483_647  # the standard's int32
MAX_DISCOUNT_DATES = 3
PAYER_ZONE = ZoneInfo("America/Sao_Paulo")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_AMOUNT = re.compile(AMOUNT_STRING_PATTERN)


# -- the amount ---------------------------------------------------------------


def payer_day(moment: datetime) -> date:
    """The payer's calendar day at ``moment`` (an aware datetime): Brasília's local date.

    A naive ``moment`` is a ``ValueError``: its day would depend on the machine's time zone.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("payer_day needs an aware datetime")
    return moment.astimezone(PAYER_ZONE).date()


def amount_due(terms: DueTerms, day: date) -> int:
    """Centavos due when paid on ``day`` (the payer's local date, :func:`payer_day`).

    Raises :class:`~pixcore.errors.DueChargeClosed` after :meth:`DueTerms.last_payable_day`.
    """
    return amount_breakdown(terms, day).final


@dataclass(frozen=True, slots=True)
class DueStanding:
    """A ``cobv`` on one day, as a person reads it: its terms, the day (the payer's), when it is
    due and until when it can be paid, and what is due that day (``due`` None: no longer payable)."""

    terms: DueTerms
    day: date
    due: DueAmount | None

    @property
    def effective_due_date(self) -> date:
        return self.terms.effective_due_date()

    @property
    def last_payable_day(self) -> date:
        return self.terms.last_payable_day()


def standing(terms: DueTerms, moment: datetime) -> DueStanding:
    """``terms`` at ``moment``, on the payer's day (:func:`payer_day`)."""
    day = payer_day(moment)
    return DueStanding(terms, day, None if day > terms.last_payable_day() else _breakdown(terms, day))


def amount_breakdown(terms: DueTerms, day: date) -> DueAmount:
    """The parts of :func:`amount_due` (what the payload shows)."""
    last = terms.last_payable_day()
    if day > last:
        raise DueChargeClosed(
            f"The due charge could be paid until {last.isoformat()}; it cannot be paid on {day.isoformat()}."
        )
    return _breakdown(terms, day)


def _breakdown(terms: DueTerms, day: date) -> DueAmount:
    """The parts in the manual's order: the rebate ``Va`` of the original ``Vo`` first, then the
    discount, the fine and the interest, each a value or a percentage of ``Vo - Va``."""
    original = terms.original
    rebate = 0 if terms.rebate is None else _rebate(terms.rebate, original)
    base = original - rebate
    discount = 0 if terms.discount is None else _discount(terms.discount, terms.due_date, base, day)
    discount = min(discount, base - 1)
    fine = interest = 0
    effective_due = terms.effective_due_date()
    if day > effective_due:
        if terms.fine is not None:
            fine = _value_or_percent(terms.fine.modality == FineModality.PERCENT, terms.fine.value, base)
        if terms.interest is not None:
            interest = _interest(terms.interest, base, effective_due, day)
    return DueAmount(original, rebate, discount, fine, interest)


def _half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half-up to an integer (both non-negative)."""
    return (2 * numerator + denominator) // (2 * denominator)


def _value_or_percent(percent: bool, value: int, base: int) -> int:
    """``value`` centavos, or ``value`` hundredths of a percent of ``base`` centavos."""
    return _half_up(base * value, HUNDRED_PERCENT) if percent else value


def _rebate(rebate: Rebate, original: int) -> int:
    """``Va``: a value or a percentage of the original, at most the original less one centavo."""
    return min(
        _value_or_percent(rebate.modality == RebateModality.PERCENT, rebate.value, original), original - 1
    )


def _interest(interest: Interest, base: int, effective_due: date, day: date) -> int:
    """``Vj = (Vo - Va) x (Ij/100)/n x D``: ``D`` the days late, calendar or business as the
    modality says; a value per day (modalities 1 and 5) is ``Ij x D``."""
    modality = interest.modality
    late = business_days_between(effective_due, day) if modality.business_days else (day - effective_due).days
    period = modality.days_per_period
    if period is None:
        return interest.value * late
    return _half_up(base * interest.value * late, HUNDRED_PERCENT * period)


def _discount(discount: Discount, due_date: date, base: int, day: date) -> int:
    """The discount for paying on ``day``, a value or a percentage of ``base`` (``Vo - Va``)."""
    modality = discount.modality
    if modality.fixed_dates:
        in_force = [item.value for item in discount.dates if day <= next_business_day(item.until)]
        return _value_or_percent(modality.percent, max(in_force), base) if in_force else 0
    early = business_days_between(day, due_date) if modality.business_days else max((due_date - day).days, 0)
    return _value_or_percent(modality.percent, discount.value * early, base)


# -- the request's rules -----------------------------------------------------------


class DueField(Field):
    """A ``cobv``'s own fields, its calendar's and its value's (the others, shared with a ``cob``:
    :class:`~pixcore.charges.parts.ChargeField`)."""

    DUE_DATE = enum.auto()
    DAYS_AFTER_DUE = enum.auto()
    FINE = enum.auto()
    FINE_MODALITY = enum.auto()
    FINE_VALUE = enum.auto()
    INTEREST = enum.auto()
    INTEREST_MODALITY = enum.auto()
    INTEREST_VALUE = enum.auto()
    REBATE = enum.auto()
    REBATE_MODALITY = enum.auto()
    REBATE_VALUE = enum.auto()
    DISCOUNT = enum.auto()
    DISCOUNT_MODALITY = enum.auto()
    DISCOUNT_VALUE = enum.auto()
    DISCOUNT_DATES = enum.auto()
    DISCOUNT_DATE_UNTIL = enum.auto()
    """The last day of one discount of fixed dates (its place in ``Problem.at``)."""
    DISCOUNT_DATE_VALUE = enum.auto()


@dataclass(frozen=True, slots=True)
class _RateRefs:
    """The fields of a fine, interest or rebate: its modality and its value."""

    modality: DueField
    value: DueField


_FINE = _RateRefs(DueField.FINE_MODALITY, DueField.FINE_VALUE)
_INTEREST = _RateRefs(DueField.INTEREST_MODALITY, DueField.INTEREST_VALUE)
_REBATE = _RateRefs(DueField.REBATE_MODALITY, DueField.REBATE_VALUE)


@dataclass(frozen=True, slots=True)
class DueCalendarFields:
    """``calendario`` as the body gave it: ``due_date`` is ``dataDeVencimento``,
    ``days_after_due`` ``validadeAposVencimento`` (:data:`~pixcore.charges.cob.ABSENT` when left out);
    each leaf of its type, another ``INVALID`` (:data:`~pixcore.charges.parts.Text`)."""

    due_date: Text = None
    days_after_due: int | Absent | Invalid = ABSENT


@dataclass(frozen=True, slots=True)
class RateFields:
    """``multa``, ``juros`` or ``abatimento`` as the body gave it: ``modality`` is ``modalidade``,
    ``value`` ``valorPerc``."""

    modality: Whole = None
    value: Text = None


@dataclass(frozen=True, slots=True)
class DiscountDateFields:
    """One item of ``descontoDataFixa``: ``until`` is ``data``, ``value`` ``valorPerc``."""

    until: Text = None
    value: Text = None


@dataclass(frozen=True, slots=True)
class DiscountFields:
    """``desconto`` as the body gave it: ``modality`` (``modalidade``), ``value`` (``valorPerc``),
    ``dates`` (``descontoDataFixa``; None when null or left out)."""

    modality: Whole = None
    value: Text = None
    dates: tuple[DiscountDateFields, ...] | None = None


@dataclass(frozen=True, slots=True)
class DueValueFields:
    """``valor`` of a due-date charge as the body gave it: ``original``, ``fine`` (``multa``),
    ``interest`` (``juros``), ``rebate`` (``abatimento``), ``discount`` (``desconto``)."""

    original: Text = None
    fine: RateFields | None = None
    interest: RateFields | None = None
    rebate: RateFields | None = None
    discount: DiscountFields | None = None


def parse_due_terms(
    calendar: DueCalendarFields | None, value: DueValueFields | None, *, today: date
) -> DueTerms:
    """Every rule of the standard's schemas and of ``CobVOperacaoInvalida`` on the calendar and
    the value, collected into one ``ValidationError`` whose problems name each field by reference.
    ``today`` is the creation's local date: the due date may not be before it."""
    problems: list[Problem] = []
    due_date, days_after_due = _calendar(problems, calendar, today)
    if value is None:
        problems.append(Problem.of(ChargeField.VALUE, "required, an object"))
        _refuse(problems)
    original = _original(problems, value.original)
    fine = _rate(problems, _FINE, value.fine, FineModality)
    interest = _rate(problems, _INTEREST, value.interest, InterestModality)
    rebate = _rate(problems, _REBATE, value.rebate, RebateModality)
    if rebate is not None and not _below_original(
        problems, _At(DueField.REBATE_VALUE), rebate[0] == RebateModality.PERCENT, rebate[1], original
    ):
        rebate = None
    discount = _discount_terms(problems, value.discount, original, due_date)
    if problems or original is None or due_date is None or days_after_due is None:
        _refuse(problems)
    terms = DueTerms(
        original,
        due_date,
        days_after_due,
        None if fine is None else Fine(FineModality(fine[0]), fine[1]),
        None if interest is None else Interest(InterestModality(interest[0]), interest[1]),
        None if rebate is None else Rebate(RebateModality(rebate[0]), rebate[1]),
        discount,
    )
    last = _last_payable_day(terms)
    if last is None:
        _refuse([Problem.of(DueField.DAYS_AFTER_DUE, "the last day to pay would fall after 9999-12-31")])
    highest = _breakdown(terms, last).final
    if highest > MAX_CENTS:
        text = (
            f"with {{}} and {{}} the amount due would reach {format_amount_string(highest)}"
            f" by the last day to pay ({last.isoformat()}), above {format_amount_string(MAX_CENTS)}"
        )
        _refuse([Problem.of(ChargeField.VALUE, text, Member(DueField.FINE), Member(DueField.INTEREST))])
    return terms


def _last_payable_day(terms: DueTerms) -> date | None:
    """The last day to pay, or None when it falls past the last date Python holds."""
    try:
        return terms.last_payable_day()
    except OverflowError:
        return None


def _refuse(problems: list[Problem]) -> NoReturn:
    raise ValidationError(problems=problems, summary="Invalid due charge: {}")


def _date(text: Text) -> date:
    if not isinstance(text, str) or _DATE.fullmatch(text) is None:
        raise ValidationError("required, a date YYYY-MM-DD")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationError("required, a date YYYY-MM-DD that exists") from None


def _calendar(
    problems: list[Problem], calendar: DueCalendarFields | None, today: date
) -> tuple[date | None, int | None]:
    if calendar is None:
        problems.append(Problem.of(ChargeField.CALENDAR, "required, with {}", Member(DueField.DUE_DATE)))
        return None, None
    due_date = collect(problems, DueField.DUE_DATE, lambda: _date(calendar.due_date))
    if due_date is not None and due_date < today:
        problems.append(Problem.of(DueField.DUE_DATE, f"must not be before today ({today.isoformat()})"))
        due_date = None
    days = DEFAULT_DAYS_AFTER_DUE if calendar.days_after_due is ABSENT else calendar.days_after_due
    if not isinstance(days, int) or not 0 <= days <= MAX_DAYS_AFTER_DUE:
        text = f"a whole number of days, 0 to {MAX_DAYS_AFTER_DUE}"
        problems.append(Problem.of(DueField.DAYS_AFTER_DUE, text))
        return due_date, None
    return due_date, days


def _original(problems: list[Problem], original: Text) -> int | None:
    cents = _amount_text(problems, _At(ChargeField.ORIGINAL), original)
    if cents == 0:
        problems.append(Problem.of(ChargeField.ORIGINAL, "must be above zero"))
        return None
    return cents


@dataclass(frozen=True, slots=True)
class _At:
    """A field a rule judges, and the places of the items it is of (a problem's ``at``)."""

    field: DueField | ChargeField
    at: tuple[int, ...] = ()

    def problem(self, text: str, *refs: Field | Member) -> Problem:
        return Problem.of(self.field, text, *refs, at=self.at)


def _amount_text(problems: list[Problem], where: _At, given: Text) -> int | None:
    if not isinstance(given, str) or _AMOUNT.fullmatch(given) is None:
        problems.append(
            where.problem('required, a string of 1 to 10 digits, a dot and 2 decimals (e.g. "2.00")')
        )
        return None
    return parse_amount_string(given)


def _modality(problems: list[Problem], field: DueField, given: Whole, kind: type[enum.IntEnum]) -> int | None:
    values = [int(member) for member in kind]
    if isinstance(given, int) and given in values:
        return given
    problems.append(Problem.of(field, f"required, {values[0]} to {values[-1]}"))
    return None


def _rate(
    problems: list[Problem], refs: _RateRefs, rate: RateFields | None, kind: type[enum.IntEnum]
) -> tuple[int, int] | None:
    """The modality and the value of a fine, interest or rebate, judged as the schema says."""
    if rate is None:
        return None
    modality = _modality(problems, refs.modality, rate.modality, kind)
    value = _amount_text(problems, _At(refs.value), rate.value)
    if modality is None or value is None:
        return None
    return modality, value


def _below_original(
    problems: list[Problem], where: _At, percent: bool, value: int, original: int | None
) -> bool:
    """A rebate or discount must be less than the whole: below 100.00 percent, or below the
    original amount."""
    if percent and value >= HUNDRED_PERCENT:
        problems.append(where.problem("a percentage below 100.00"))
        return False
    if not percent and original is not None and value >= original:
        text = f"must be below {{}} ({format_amount_string(original)})"
        problems.append(where.problem(text, ChargeField.ORIGINAL))
        return False
    return True


def _discount_terms(
    problems: list[Problem], fields: DiscountFields | None, original: int | None, due_date: date | None
) -> Discount | None:
    if fields is None:
        return None
    number = _modality(problems, DueField.DISCOUNT_MODALITY, fields.modality, DiscountModality)
    if number is None:
        _discount_forms(problems, fields)
        return None
    modality = DiscountModality(number)
    named = Member(DueField.DISCOUNT_MODALITY)
    if modality.fixed_dates:
        if fields.value is not None:
            text = "must be left out with {} 1 or 2 (use {})"
            problems.append(Problem.of(DueField.DISCOUNT_VALUE, text, named, Member(DueField.DISCOUNT_DATES)))
        dates = _discount_dates(problems, fields.dates, modality, original, due_date)
        return None if dates is None else Discount(modality, dates=dates)
    if fields.dates is not None:
        text = "must be left out with {} 3 to 6 (use {})"
        problems.append(Problem.of(DueField.DISCOUNT_DATES, text, named, Member(DueField.DISCOUNT_VALUE)))
    where = _At(DueField.DISCOUNT_VALUE)
    value = _amount_text(problems, where, fields.value)
    if value is None or not _below_original(problems, where, modality.percent, value, original):
        return None
    return Discount(modality, value=value)


def _discount_forms(problems: list[Problem], fields: DiscountFields) -> None:
    """Without a modality, which of the value and the fixed dates belongs is unknown, but each one
    given is still judged by its own form, so that one answer names every broken rule."""
    if fields.value is not None:
        _amount_text(problems, _At(DueField.DISCOUNT_VALUE), fields.value)
    for index, item in enumerate(fields.dates or ()):
        _fixed_date(problems, index, item)


def _fixed_date(
    problems: list[Problem], index: int, item: DiscountDateFields
) -> tuple[date | None, int | None]:
    """One discount of fixed dates, each of its two leaves judged by its form."""
    try:
        until: date | None = _date(item.until)
    except ValidationError as exc:
        problems.append(Problem.of(DueField.DISCOUNT_DATE_UNTIL, exc.message, at=(index,)))
        until = None
    value = _amount_text(problems, _At(DueField.DISCOUNT_DATE_VALUE, (index,)), item.value)
    return until, value


def _discount_dates(
    problems: list[Problem],
    items: tuple[DiscountDateFields, ...] | None,
    modality: DiscountModality,
    original: int | None,
    due_date: date | None,
) -> tuple[DiscountDate, ...] | None:
    if not items or len(items) > MAX_DISCOUNT_DATES:
        text = f"required with {{}} 1 or 2, 1 to {MAX_DISCOUNT_DATES} items"
        problems.append(Problem.of(DueField.DISCOUNT_DATES, text, Member(DueField.DISCOUNT_MODALITY)))
        return None
    dates: list[DiscountDate] = []
    seen: set[date] = set()
    for index, item in enumerate(items):
        until, value = _fixed_date(problems, index, item)
        if until is not None:
            if due_date is not None and until > due_date:
                text = "must not be after {}"
                problems.append(
                    Problem.of(DueField.DISCOUNT_DATE_UNTIL, text, DueField.DUE_DATE, at=(index,))
                )
                until = None
            elif until in seen:
                problems.append(
                    Problem.of(DueField.DISCOUNT_DATE_UNTIL, "each date at most once", at=(index,))
                )
                until = None
            else:
                seen.add(until)
        where = _At(DueField.DISCOUNT_DATE_VALUE, (index,))
        if value is not None and not _below_original(problems, where, modality.percent, value, original):
            value = None
        if until is not None and value is not None:
            dates.append(DiscountDate(until, value))
    if len(dates) != len(items):
        return None
    return tuple(sorted(dates, key=lambda item: item.until))
