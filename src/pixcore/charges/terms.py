"""The terms of a due-date charge (``cobv``): its modalities and values, validated.

Values are integers: centavos, or hundredths of a percent (``"2.50"`` is 250) where the
modality is a percentage. :func:`pixcore.charges.cobv.parse_due_terms` builds them from a
request; :mod:`pixcore.charges.cobv` computes the amount due on a day.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date, timedelta

from pixcore.amount_parts import DueAmount
from pixcore.business_days import next_business_day

__all__ = [
    "DEFAULT_DAYS_AFTER_DUE",
    "HUNDRED_PERCENT",
    "Discount",
    "DiscountDate",
    "DiscountModality",
    "DueAmount",
    "DueTerms",
    "Fine",
    "FineModality",
    "Interest",
    "InterestModality",
    "Rebate",
    "RebateModality",
]

DEFAULT_DAYS_AFTER_DUE = 30
HUNDRED_PERCENT = 100_00  # percentages are kept in hundredths of a percent: "2.50" is 250


# ``n`` of the central bank's interest formula, (Vo - Va) x (Ij/100)/n x D: the days a rate per
# day, month or year is for. Calendar days count a month of 30 and a year of 365; business days
# count 21 and 252 (docs/due-charges.md, rule 7, with the sources and what of them is unverified).
_CALENDAR_MONTH, _CALENDAR_YEAR = 30, 365
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
        """``n``: the days the rate is for (None: the value is an amount per day)."""
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
