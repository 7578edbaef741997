"""Due-date charges (``cobv``): the terms of the amount, and the amount due on a given day.

A due-date charge has an original amount, a due date, a number of days it stays payable after
it, and up to four adjustments: a fine (``multa``) and interest (``juros``) once it is late, a
rebate (``abatimento``) always, a discount (``desconto``) for paying early. The rules, with a
hand-worked table per modality, are in docs/due-charges.md; in short:

* a due date on a weekend or national holiday moves to the next business day (the *effective*
  due date), and the fine, the interest and the discount dates move with it;
* the last day to pay is the effective due date plus ``days_after_due`` calendar days, moved in
  turn to the next business day when it falls on one that is not;
* amount = original - rebate - discount + fine + interest, every part computed on the original
  and rounded half-up to the centavo by integer arithmetic; the reductions never take the
  amount below one centavo.

No wire names here: the edge maps ``calendario`` and ``valor`` onto :class:`DueCalendarFields`
and :class:`DueValueFields`, each leaf as decoded from JSON; :func:`parse_due_terms` judges them
all and names each broken rule by its path in the body. :meth:`DueTerms.wire` writes the
standard's JSON back.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from pixcore.business_days import business_days_between, next_business_day
from pixcore.charges import ABSENT
from pixcore.errors import DueChargeClosed, ValidationError
from pixcore.money import AMOUNT_STRING_PATTERN, MAX_CENTS, format_amount_string, parse_amount_string
from pixcore.validation import collect

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
]

DEFAULT_DAYS_AFTER_DUE = 30
MAX_DAYS_AFTER_DUE = 2_147_483_647  # the standard's int32
MAX_DISCOUNT_DATES = 3
HUNDRED_PERCENT = 100_00  # percentages are kept in hundredths of a percent: "2.50" is 250
PAYER_ZONE = ZoneInfo("America/Sao_Paulo")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_AMOUNT = re.compile(AMOUNT_STRING_PATTERN)

# The days in a month and a year of the percentage-per-period interest: calendar days count
# a commercial month of 30 days and year of 360; business days count 21 and 252 (the market's
# convention, so that a month late costs about the monthly rate either way).
_CALENDAR_MONTH, _CALENDAR_YEAR = 30, 360
_BUSINESS_MONTH, _BUSINESS_YEAR = 21, 252


class FineModality(enum.IntEnum):
    """``valor.multa.modalidade``."""

    FIXED = 1
    PERCENT = 2


class RebateModality(enum.IntEnum):
    """``valor.abatimento.modalidade``."""

    FIXED = 1
    PERCENT = 2


class InterestModality(enum.IntEnum):
    """``valor.juros.modalidade``: a value or a percentage per day, month or year, over calendar
    days (1 to 4) or business days (5 to 8)."""

    VALUE_CALENDAR_DAYS = 1
    PERCENT_PER_DAY_CALENDAR_DAYS = 2
    PERCENT_PER_MONTH_CALENDAR_DAYS = 3
    PERCENT_PER_YEAR_CALENDAR_DAYS = 4
    VALUE_BUSINESS_DAYS = 5
    PERCENT_PER_DAY_BUSINESS_DAYS = 6
    PERCENT_PER_MONTH_BUSINESS_DAYS = 7
    PERCENT_PER_YEAR_BUSINESS_DAYS = 8

    @property
    def business_days(self) -> bool:
        return self >= InterestModality.VALUE_BUSINESS_DAYS

    @property
    def days_per_period(self) -> int | None:
        """The days the rate is for (None: the value is an amount per day)."""
        return _INTEREST_PERIODS[self]


_INTEREST_PERIODS: dict[InterestModality, int | None] = {
    InterestModality.VALUE_CALENDAR_DAYS: None,
    InterestModality.PERCENT_PER_DAY_CALENDAR_DAYS: 1,
    InterestModality.PERCENT_PER_MONTH_CALENDAR_DAYS: _CALENDAR_MONTH,
    InterestModality.PERCENT_PER_YEAR_CALENDAR_DAYS: _CALENDAR_YEAR,
    InterestModality.VALUE_BUSINESS_DAYS: None,
    InterestModality.PERCENT_PER_DAY_BUSINESS_DAYS: 1,
    InterestModality.PERCENT_PER_MONTH_BUSINESS_DAYS: _BUSINESS_MONTH,
    InterestModality.PERCENT_PER_YEAR_BUSINESS_DAYS: _BUSINESS_YEAR,
}


class DiscountModality(enum.IntEnum):
    """``valor.desconto.modalidade``: up to fixed dates (1 value, 2 percent), or per day paid
    before the due date (3 value per calendar day, 4 value per business day, 5 percent per
    calendar day, 6 percent per business day)."""

    FIXED_VALUE_UNTIL_DATES = 1
    PERCENT_UNTIL_DATES = 2
    VALUE_PER_CALENDAR_DAY = 3
    VALUE_PER_BUSINESS_DAY = 4
    PERCENT_PER_CALENDAR_DAY = 5
    PERCENT_PER_BUSINESS_DAY = 6

    @property
    def fixed_dates(self) -> bool:
        return self <= DiscountModality.PERCENT_UNTIL_DATES

    @property
    def percent(self) -> bool:
        return self in _PERCENT_DISCOUNTS

    @property
    def business_days(self) -> bool:
        return self in (DiscountModality.VALUE_PER_BUSINESS_DAY, DiscountModality.PERCENT_PER_BUSINESS_DAY)


_PERCENT_DISCOUNTS = frozenset(
    {
        DiscountModality.PERCENT_UNTIL_DATES,
        DiscountModality.PERCENT_PER_CALENDAR_DAY,
        DiscountModality.PERCENT_PER_BUSINESS_DAY,
    }
)


@dataclass(frozen=True, slots=True)
class Fine:
    """``valor.multa``: ``value`` is centavos (FIXED) or hundredths of a percent (PERCENT)."""

    modality: FineModality
    value: int


@dataclass(frozen=True, slots=True)
class Interest:
    """``valor.juros``: ``value`` is centavos per day (1, 5) or hundredths of a percent per
    day, month or year (the others)."""

    modality: InterestModality
    value: int


@dataclass(frozen=True, slots=True)
class Rebate:
    """``valor.abatimento``: ``value`` is centavos (FIXED) or hundredths of a percent (PERCENT)."""

    modality: RebateModality
    value: int


@dataclass(frozen=True, slots=True)
class DiscountDate:
    """One item of ``descontoDataFixa``: the discount holds when paying on or before ``until``."""

    until: date
    value: int


@dataclass(frozen=True, slots=True)
class Discount:
    """``valor.desconto``: ``dates`` for modalities 1 and 2 (``value`` unused, 0), ``value`` per
    day of anticipation for 3 to 6 (``dates`` empty). Values are centavos or hundredths of a
    percent as the modality says."""

    modality: DiscountModality
    value: int = 0
    dates: tuple[DiscountDate, ...] = ()


@dataclass(frozen=True, slots=True)
class DueAmount:
    """The parts of the amount due on one day (the payload's ``valor``), all in centavos."""

    original: int
    rebate: int
    discount: int
    fine: int
    interest: int

    @property
    def final(self) -> int:
        return self.original - self.rebate - self.discount + self.fine + self.interest


@dataclass(frozen=True, slots=True)
class DueTerms:
    """The validated terms of a due-date charge's amount (build them with :func:`parse_due_terms`)."""

    original: int
    due_date: date
    days_after_due: int = DEFAULT_DAYS_AFTER_DUE
    fine: Fine | None = None
    interest: Interest | None = None
    rebate: Rebate | None = None
    discount: Discount | None = None

    def effective_due_date(self) -> date:
        """The due date, moved to the next business day when it is not one."""
        return next_business_day(self.due_date)

    def last_payable_day(self) -> date:
        """The last day the charge can be paid, inclusive."""
        return next_business_day(self.effective_due_date() + timedelta(days=self.days_after_due))

    def wire(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``calendario`` (without ``criacao``) and ``valor`` as the standard writes them."""
        calendar: dict[str, Any] = {
            "dataDeVencimento": self.due_date.isoformat(),
            "validadeAposVencimento": self.days_after_due,
        }
        value: dict[str, Any] = {"original": format_amount_string(self.original)}
        if self.fine is not None:
            value["multa"] = _rate_wire(self.fine.modality, self.fine.value)
        if self.interest is not None:
            value["juros"] = _rate_wire(self.interest.modality, self.interest.value)
        if self.rebate is not None:
            value["abatimento"] = _rate_wire(self.rebate.modality, self.rebate.value)
        if self.discount is not None:
            discount: dict[str, Any] = {"modalidade": int(self.discount.modality)}
            if self.discount.modality.fixed_dates:
                discount["descontoDataFixa"] = [
                    {"data": item.until.isoformat(), "valorPerc": format_amount_string(item.value)}
                    for item in self.discount.dates
                ]
            else:
                discount["valorPerc"] = format_amount_string(self.discount.value)
            value["desconto"] = discount
        return calendar, value


def _rate_wire(modality: int, value: int) -> dict[str, Any]:
    return {"modalidade": int(modality), "valorPerc": format_amount_string(value)}


# -- the amount ---------------------------------------------------------------


def payer_day(moment: datetime) -> date:
    """The payer's calendar day at ``moment`` (an aware datetime): Brasília's local date."""
    return moment.astimezone(PAYER_ZONE).date()


def amount_due(terms: DueTerms, day: date) -> int:
    """Centavos due when paid on ``day`` (the payer's local date, :func:`payer_day`).

    Raises :class:`~pixcore.errors.DueChargeClosed` after :meth:`DueTerms.last_payable_day`.
    """
    return amount_breakdown(terms, day).final


def amount_breakdown(terms: DueTerms, day: date) -> DueAmount:
    """The parts of :func:`amount_due` (what the payload shows)."""
    last = terms.last_payable_day()
    if day > last:
        raise DueChargeClosed(
            f"The due charge could be paid until {last.isoformat()}; it cannot be paid on {day.isoformat()}."
        )
    return _breakdown(terms, day)


def _breakdown(terms: DueTerms, day: date) -> DueAmount:
    original = terms.original
    effective_due = terms.effective_due_date()
    rebate = (
        0 if terms.rebate is None else _fixed_or_percent(terms.rebate.modality, terms.rebate.value, original)
    )
    rebate = min(rebate, original - 1)
    discount = 0 if terms.discount is None else _discount(terms.discount, terms.due_date, original, day)
    discount = min(discount, original - 1 - rebate)
    fine = interest = 0
    if day > effective_due:
        if terms.fine is not None:
            fine = _fixed_or_percent(terms.fine.modality, terms.fine.value, original)
        if terms.interest is not None:
            interest = _interest(terms.interest, original, effective_due, day)
    return DueAmount(original, rebate, discount, fine, interest)


def _half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half-up to an integer (both non-negative)."""
    return (2 * numerator + denominator) // (2 * denominator)


def _fixed_or_percent(modality: int, value: int, original: int) -> int:
    """A fine or rebate: ``value`` centavos (modality 1) or ``value`` hundredths of a percent of
    ``original`` (modality 2)."""
    if modality == 1:
        return value
    return _half_up(original * value, HUNDRED_PERCENT)


def _interest(interest: Interest, original: int, effective_due: date, day: date) -> int:
    modality = interest.modality
    late = business_days_between(effective_due, day) if modality.business_days else (day - effective_due).days
    period = modality.days_per_period
    if period is None:
        return interest.value * late
    return _half_up(original * interest.value * late, HUNDRED_PERCENT * period)


def _discount(discount: Discount, due_date: date, original: int, day: date) -> int:
    modality = discount.modality
    if modality.fixed_dates:
        in_force = [item.value for item in discount.dates if day <= next_business_day(item.until)]
        if not in_force:
            return 0
        best = max(in_force)
        return _half_up(original * best, HUNDRED_PERCENT) if modality.percent else best
    early = business_days_between(day, due_date) if modality.business_days else max((due_date - day).days, 0)
    if modality.percent:
        return _half_up(original * discount.value * early, HUNDRED_PERCENT)
    return discount.value * early


# -- the request's rules -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DueCalendarFields:
    """``calendario`` as the body gave it: ``due_date`` is ``dataDeVencimento``,
    ``days_after_due`` ``validadeAposVencimento`` (:data:`~pixcore.charges.ABSENT` when left out)."""

    due_date: object = None
    days_after_due: object = ABSENT


@dataclass(frozen=True, slots=True)
class RateFields:
    """``multa``, ``juros`` or ``abatimento`` as the body gave it: ``modality`` is ``modalidade``,
    ``value`` ``valorPerc``."""

    modality: object = None
    value: object = None


@dataclass(frozen=True, slots=True)
class DiscountDateFields:
    """One item of ``descontoDataFixa``: ``until`` is ``data``, ``value`` ``valorPerc``."""

    until: object = None
    value: object = None


@dataclass(frozen=True, slots=True)
class DiscountFields:
    """``desconto`` as the body gave it: ``modality`` (``modalidade``), ``value`` (``valorPerc``),
    ``dates`` (``descontoDataFixa``; None when null or left out)."""

    modality: object = None
    value: object = None
    dates: tuple[DiscountDateFields, ...] | None = None


@dataclass(frozen=True, slots=True)
class DueValueFields:
    """``valor`` of a due-date charge as the body gave it: ``original``, ``fine`` (``multa``),
    ``interest`` (``juros``), ``rebate`` (``abatimento``), ``discount`` (``desconto``)."""

    original: object = None
    fine: RateFields | None = None
    interest: RateFields | None = None
    rebate: RateFields | None = None
    discount: DiscountFields | None = None


def parse_due_terms(
    calendar: DueCalendarFields | None, value: DueValueFields | None, *, today: date
) -> DueTerms:
    """Every rule of the standard's schemas and of ``CobVOperacaoInvalida`` on ``calendario``
    and ``valor``, collected into one ``ValidationError`` whose details name each field by its
    path in the body (``valor.multa.valorPerc: ...``). ``today`` is the creation's local date:
    the due date may not be before it."""
    problems: list[str] = []
    due_date, days_after_due = _calendar(problems, calendar, today)
    if value is None:
        problems.append("valor: required, an object")
        raise ValidationError("Invalid due charge: " + "; ".join(problems), details=problems)
    original = _original(problems, value.original)
    fine = _rate(problems, "valor.multa", value.fine, FineModality, original)
    interest = _rate(problems, "valor.juros", value.interest, InterestModality, original)
    rebate = _rate(problems, "valor.abatimento", value.rebate, RebateModality, original, below_original=True)
    discount = _discount_terms(problems, value.discount, original, due_date)
    if problems or original is None or due_date is None or days_after_due is None:
        raise ValidationError("Invalid due charge: " + "; ".join(problems), details=problems)
    terms = DueTerms(
        original,
        due_date,
        days_after_due,
        None if fine is None else Fine(FineModality(fine[0]), fine[1]),
        None if interest is None else Interest(InterestModality(interest[0]), interest[1]),
        None if rebate is None else Rebate(RebateModality(rebate[0]), rebate[1]),
        discount,
    )
    try:
        last = terms.last_payable_day()
    except OverflowError:
        problems.append("calendario.validadeAposVencimento: the last day to pay would fall after 9999-12-31")
        raise ValidationError("Invalid due charge: " + "; ".join(problems), details=problems) from None
    highest = _breakdown(terms, last).final
    if highest > MAX_CENTS:
        problems.append(
            f"valor: with multa and juros the amount due would reach {format_amount_string(highest)}"
            f" by the last day to pay ({last.isoformat()}), above {format_amount_string(MAX_CENTS)}"
        )
        raise ValidationError("Invalid due charge: " + "; ".join(problems), details=problems)
    return terms


def _date(text: object) -> date:
    if not isinstance(text, str) or _DATE.fullmatch(text) is None:
        raise ValidationError("required, a date YYYY-MM-DD")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationError("required, a date YYYY-MM-DD that exists") from None


def _calendar(
    problems: list[str], calendar: DueCalendarFields | None, today: date
) -> tuple[date | None, int | None]:
    if calendar is None:
        problems.append("calendario: required, with dataDeVencimento")
        return None, None
    due_date = collect(problems, "calendario.dataDeVencimento", lambda: _date(calendar.due_date))
    if due_date is not None and due_date < today:
        problems.append(f"calendario.dataDeVencimento: must not be before today ({today.isoformat()})")
        due_date = None
    days: object = DEFAULT_DAYS_AFTER_DUE if calendar.days_after_due is ABSENT else calendar.days_after_due
    if not isinstance(days, int) or isinstance(days, bool) or not 0 <= days <= MAX_DAYS_AFTER_DUE:
        problems.append(
            f"calendario.validadeAposVencimento: a whole number of days, 0 to {MAX_DAYS_AFTER_DUE}"
        )
        return due_date, None
    return due_date, days


def _original(problems: list[str], original: object) -> int | None:
    cents = _amount_text(problems, "valor.original", original)
    if cents == 0:
        problems.append("valor.original: must be above zero")
        return None
    return cents


def _amount_text(problems: list[str], field: str, given: object) -> int | None:
    if not isinstance(given, str) or _AMOUNT.fullmatch(given) is None:
        problems.append(f'{field}: required, a string of 1 to 10 digits, a dot and 2 decimals (e.g. "2.00")')
        return None
    return parse_amount_string(given)


def _modality(problems: list[str], field: str, given: object, kind: type[enum.IntEnum]) -> int | None:
    values = [int(member) for member in kind]
    if isinstance(given, int) and not isinstance(given, bool) and given in values:
        return given
    problems.append(f"{field}.modalidade: required, {values[0]} to {values[-1]}")
    return None


def _rate(
    problems: list[str],
    field: str,
    rate: RateFields | None,
    kind: type[enum.IntEnum],
    original: int | None,
    *,
    below_original: bool = False,
) -> tuple[int, int] | None:
    if rate is None:
        return None
    modality = _modality(problems, field, rate.modality, kind)
    value = _amount_text(problems, f"{field}.valorPerc", rate.value)
    if modality is None or value is None:
        return None
    if below_original and not _below_original(problems, f"{field}.valorPerc", modality == 2, value, original):
        return None
    return modality, value


def _below_original(problems: list[str], field: str, percent: bool, value: int, original: int | None) -> bool:
    """A rebate or discount must be less than the whole: below 100.00 percent, or below
    ``valor.original``."""
    if percent and value >= HUNDRED_PERCENT:
        problems.append(f"{field}: a percentage below 100.00")
        return False
    if not percent and original is not None and value >= original:
        problems.append(f"{field}: must be below valor.original ({format_amount_string(original)})")
        return False
    return True


def _discount_terms(
    problems: list[str], fields: DiscountFields | None, original: int | None, due_date: date | None
) -> Discount | None:
    if fields is None:
        return None
    field = "valor.desconto"
    number = _modality(problems, field, fields.modality, DiscountModality)
    if number is None:
        return None
    modality = DiscountModality(number)
    if modality.fixed_dates:
        if fields.value is not None:
            problems.append(
                f"{field}.valorPerc: must be left out with modalidade 1 or 2 (use descontoDataFixa)"
            )
        dates = _discount_dates(problems, fields.dates, modality, original, due_date)
        return None if dates is None else Discount(modality, dates=dates)
    if fields.dates is not None:
        problems.append(f"{field}.descontoDataFixa: must be left out with modalidade 3 to 6 (use valorPerc)")
    value = _amount_text(problems, f"{field}.valorPerc", fields.value)
    if value is None or not _below_original(
        problems, f"{field}.valorPerc", modality.percent, value, original
    ):
        return None
    return Discount(modality, value=value)


def _discount_dates(
    problems: list[str],
    items: tuple[DiscountDateFields, ...] | None,
    modality: DiscountModality,
    original: int | None,
    due_date: date | None,
) -> tuple[DiscountDate, ...] | None:
    field = "valor.desconto.descontoDataFixa"
    if not items or len(items) > MAX_DISCOUNT_DATES:
        problems.append(f"{field}: required with modalidade 1 or 2, 1 to {MAX_DISCOUNT_DATES} items")
        return None
    dates: list[DiscountDate] = []
    seen: set[date] = set()
    for index, item in enumerate(items):
        where = f"{field}[{index}]"
        until = collect(problems, f"{where}.data", partial(_date, item.until))
        value = _amount_text(problems, f"{where}.valorPerc", item.value)
        if until is not None:
            if due_date is not None and until > due_date:
                problems.append(f"{where}.data: must not be after calendario.dataDeVencimento")
                until = None
            elif until in seen:
                problems.append(f"{where}.data: each date at most once")
                until = None
            else:
                seen.add(until)
        if value is not None and not _below_original(
            problems, f"{where}.valorPerc", modality.percent, value, original
        ):
            value = None
        if until is not None and value is not None:
            dates.append(DiscountDate(until, value))
    if len(dates) != len(items):
        return None
    return tuple(sorted(dates, key=lambda item: item.until))
