"""The amount due of a ``cobv`` against a second implementation of the rules of docs/due-charges.md.

The reference below is written from the rules' text alone, in ``Decimal`` reais, with its own
calendar (Easter by another algorithm, business days counted one by one): it calls nothing of
pixcore but the terms' fields. Hypothesis draws terms of every modality, rebates included, due
dates on and around weekends and holidays, and any day of payment, and the two must agree on
every part. The worked examples of the central bank's documents are checked by name too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixcore.charges.cobv import (
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
    amount_breakdown,
    amount_due,
)
from pixcore.errors import DueChargeClosed

CENT = Decimal("0.01")
EXACT = Context(prec=60)  # wide enough that nothing but the rounding to the centavo rounds

# -- the calendar, from its own rules ---------------------------------------------------------

_FIXED_HOLIDAYS = ((1, 1), (4, 21), (5, 1), (9, 7), (10, 12), (11, 2), (11, 15), (12, 25))


def _easter(year: int) -> date:
    """Easter Sunday by Gauss's rule as Lichtenberg wrote it."""
    k = year // 100
    m = 15 + (3 * k + 3) // 4 - (8 * k + 13) // 25
    s = 2 - (3 * k + 3) // 4
    a = year % 19
    d = (19 * a + m) % 30
    r = (d + a // 11) // 29
    full_moon = 21 + d - r
    first_sunday = 7 - (year + year // 4 + s) % 7
    sunday = full_moon + 7 - (full_moon - first_sunday) % 7
    return date(year, 3, 1) + timedelta(days=sunday - 1)


def _holidays(year: int) -> set[date]:
    """Brazil's national holidays: the fixed dates, 20 November from 2024, Carnival Monday and
    Tuesday, Good Friday and Corpus Christi."""
    found = {date(year, month, day) for month, day in _FIXED_HOLIDAYS}
    if year >= 2024:
        found.add(date(year, 11, 20))
    sunday = _easter(year)
    found |= {sunday - timedelta(days=48), sunday - timedelta(days=47), sunday - timedelta(days=2)}
    found.add(sunday + timedelta(days=60))
    return found


def _business(day: date) -> bool:
    return day.isoweekday() <= 5 and day not in _holidays(day.year)


def _roll(day: date) -> date:
    """The day itself if a business day, else the next one."""
    while not _business(day):
        day += timedelta(days=1)
    return day


def _business_days(after: date, through: date) -> int:
    """Business days ``d`` with ``after < d <= through``, counted one by one."""
    return sum(1 for n in range(1, (through - after).days + 1) if _business(after + timedelta(days=n)))


# -- the rules ----------------------------------------------------------------------------------


def _reais(cents: int) -> Decimal:
    return Decimal(cents) / 100


def _percent(hundredths: int) -> Decimal:
    return Decimal(hundredths) / 100


def _round(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


_N = {2: 1, 3: 30, 4: 365, 6: 1, 7: 21, 8: 252}  # the days a rate per day, month or year is for


@dataclass(frozen=True)
class Parts:
    rebate: Decimal
    discount: Decimal
    fine: Decimal
    interest: Decimal


def reference(terms: DueTerms, day: date) -> Parts | None:
    """The parts due on ``day``, or None once the charge is closed."""
    effective = _roll(terms.due_date)
    if day > _roll(effective + timedelta(days=terms.days_after_due)):
        return None
    with localcontext(EXACT):
        vo = _reais(terms.original)
        va = Decimal(0)
        if terms.rebate is not None:  # first, on the original
            rate = terms.rebate
            va = _reais(rate.value) if int(rate.modality) == 1 else _round(vo * _percent(rate.value) / 100)
            va = min(va, vo - CENT)
        base = vo - va  # every other percentage is of what the rebate leaves
        discount = min(_discount_of(terms, base, day), base - CENT)
        fine = interest = Decimal(0)
        if day > effective:
            if terms.fine is not None:
                value = terms.fine.value
                fine = (
                    _reais(value) if int(terms.fine.modality) == 1 else _round(base * _percent(value) / 100)
                )
            if terms.interest is not None:
                interest = _interest_of(terms.interest, base, effective, day)
        return Parts(va, discount, fine, interest)


def _interest_of(interest: Interest, base: Decimal, effective: date, day: date) -> Decimal:
    """Vj = (Vo - Va) x (Ij/100)/n x D, or a value per day late; D calendar days (1 to 4) or
    business days (5 to 8) after the effective due date."""
    modality = int(interest.modality)
    late = (day - effective).days if modality <= 4 else _business_days(effective, day)
    if modality in (1, 5):
        return _reais(interest.value) * late
    return _round(base * (_percent(interest.value) / 100) / _N[modality] * late)


def _discount_of(terms: DueTerms, base: Decimal, day: date) -> Decimal:
    discount = terms.discount
    if discount is None:
        return Decimal(0)
    modality = int(discount.modality)
    if modality in (1, 2):  # the largest item whose date, moved to a business day, is not past
        held = [item.value for item in discount.dates if day <= _roll(item.until)]
        if not held:
            return Decimal(0)
        best = max(held)
        return _reais(best) if modality == 1 else _round(base * _percent(best) / 100)
    early = max((terms.due_date - day).days, 0) if modality in (3, 5) else _business_days(day, terms.due_date)
    if modality in (3, 4):
        return _reais(discount.value) * early
    return _round(base * _percent(discount.value) / 100 * early)


def _cents(amount: Decimal) -> int:
    cents = amount * 100
    assert cents == cents.to_integral_value()
    return int(cents)


def expected(terms: DueTerms, day: date) -> DueAmount | None:
    parts = reference(terms, day)
    if parts is None:
        return None
    return DueAmount(
        terms.original,
        _cents(parts.rebate),
        _cents(parts.discount),
        _cents(parts.fine),
        _cents(parts.interest),
    )


# -- random terms -------------------------------------------------------------------------------

# Every day within a week of a national holiday, 2024 to 2030: due dates that move, windows that
# cross long weekends, Carnival and Easter.
_NEAR_HOLIDAYS = sorted(
    {
        holiday + timedelta(days=offset)
        for year in range(2024, 2031)
        for holiday in _holidays(year)
        for offset in range(-7, 8)
    }
)
_DUE_DATES = st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 12, 31)) | st.sampled_from(
    _NEAR_HOLIDAYS
)


@st.composite
def terms_and_day(draw: st.DrawFn) -> tuple[DueTerms, date]:
    """Terms of any modality, and a day from 100 days before the due date to past the window."""
    original = draw(st.integers(1, 100_000_000) | st.integers(1, 1_000))
    due_date = draw(_DUE_DATES)
    fine = draw(st.none() | st.builds(Fine, st.sampled_from(FineModality), st.integers(0, 200_000)))
    interest = draw(
        st.none() | st.builds(Interest, st.sampled_from(InterestModality), st.integers(0, 50_000))
    )
    rebate = draw(
        st.none()
        | st.builds(Rebate, st.just(RebateModality.FIXED), st.integers(0, original - 1))
        | st.builds(Rebate, st.just(RebateModality.PERCENT), st.integers(0, 99_99))
    )
    terms = DueTerms(
        original,
        due_date,
        draw(st.integers(0, 45)),
        fine,
        interest,
        rebate,
        draw(_discounts(original, due_date)),
    )
    day = terms.due_date + timedelta(days=draw(st.integers(-100, terms.days_after_due + 12)))
    return terms, day


def _discounts(original: int, due_date: date) -> st.SearchStrategy[Discount | None]:
    def of(modality: DiscountModality) -> st.SearchStrategy[Discount]:
        bound = 99_99 if modality in (2, 5, 6) else original - 1  # the percentages are 2, 5 and 6
        value = st.integers(0, bound)
        if modality <= 2:
            items = st.lists(st.integers(0, 60), min_size=1, max_size=3, unique=True).flatmap(
                lambda offsets: st.tuples(
                    *(st.builds(DiscountDate, st.just(due_date - timedelta(days=o)), value) for o in offsets)
                )
            )
            return items.map(
                lambda dates: Discount(modality, dates=tuple(sorted(dates, key=lambda d: d.until)))
            )
        return value.map(lambda v: Discount(modality, value=v))

    return st.none() | st.sampled_from(DiscountModality).flatmap(of)


@settings(max_examples=1500, deadline=None)
@given(terms_and_day())
def test_the_amount_is_that_of_an_independent_implementation_of_the_rules(
    case: tuple[DueTerms, date],
) -> None:
    terms, day = case
    want = expected(terms, day)
    if want is None:
        with pytest.raises(DueChargeClosed):
            amount_breakdown(terms, day)
        return
    assert amount_breakdown(terms, day) == want
    assert amount_due(terms, day) == want.final


def test_the_reference_calendar_is_the_banks() -> None:
    assert sorted(_holidays(2025)) == [
        date(2025, 1, 1), date(2025, 3, 3), date(2025, 3, 4), date(2025, 4, 18), date(2025, 4, 21),
        date(2025, 5, 1), date(2025, 6, 19), date(2025, 9, 7), date(2025, 10, 12), date(2025, 11, 2),
        date(2025, 11, 15), date(2025, 11, 20), date(2025, 12, 25),
    ]  # fmt: skip
    assert _business_days(date(2025, 4, 16), date(2025, 4, 28)) == 6  # Good Friday and Tiradentes between


# -- the worked examples of the central bank's documents ----------------------------------------


def test_the_standards_example_of_a_late_payment() -> None:
    """The document's ``componentesValor``: R$100.00 paid 2 days late with a 3% fine and 1% a day
    of interest is R$105.00 (multa 3.00, juros 2.00)."""
    terms = DueTerms(
        100_00,
        date(2025, 4, 8),  # a Tuesday: 10 April is 2 calendar days late
        5,
        fine=Fine(FineModality.PERCENT, 3_00),
        interest=Interest(InterestModality.PERCENT_PER_DAY_CALENDAR_DAYS, 1_00),
    )
    assert amount_breakdown(terms, date(2025, 4, 10)) == DueAmount(100_00, 0, 0, 3_00, 2_00)
    assert amount_due(terms, date(2025, 4, 10)) == 105_00


def test_the_manuals_interest_formula_with_a_monthly_rate() -> None:
    """Vj = (Vo - Va) x (Ij/100)/n x D with Vo 30000.00, Va 0, Ij 1.00 a month of calendar days
    (n 30), one day late: 10.00."""
    terms = DueTerms(
        30_000_00,
        date(2024, 9, 4),
        5,
        interest=Interest(InterestModality.PERCENT_PER_MONTH_CALENDAR_DAYS, 1_00),
    )
    assert amount_breakdown(terms, date(2024, 9, 5)).interest == 10_00


@pytest.mark.parametrize(
    ("modality", "rate", "interest"),
    [
        (InterestModality.PERCENT_PER_DAY_CALENDAR_DAYS, 10, 10_80),  # 900.00 x 0.10% x 12
        (InterestModality.PERCENT_PER_MONTH_CALENDAR_DAYS, 1_00, 3_60),  # 900.00 x 1%/30 x 12
        (InterestModality.PERCENT_PER_YEAR_CALENDAR_DAYS, 36_50, 10_80),  # 900.00 x 36.5%/365 x 12
        (InterestModality.PERCENT_PER_DAY_BUSINESS_DAYS, 10, 5_40),  # 900.00 x 0.10% x 6
        (InterestModality.PERCENT_PER_MONTH_BUSINESS_DAYS, 1_00, 2_57),  # 900.00 x 1%/21 x 6 = 2.571..
        (InterestModality.PERCENT_PER_YEAR_BUSINESS_DAYS, 25_20, 5_40),  # 900.00 x 25.2%/252 x 6
    ],
)
def test_the_interest_and_the_fine_are_on_the_rebated_value_with_the_manuals_n(
    modality: InterestModality, rate: int, interest: int
) -> None:
    """Due Wednesday 16 April 2025, paid Monday 28 April: 12 calendar days late, 6 business days
    (Good Friday, the weekends and Tiradentes do not count). A rebate of 10% leaves 900.00, the
    base of the interest and of the 2% fine (18.00)."""
    terms = DueTerms(
        1_000_00,
        date(2025, 4, 16),
        10,
        fine=Fine(FineModality.PERCENT, 2_00),
        interest=Interest(modality, rate),
        rebate=Rebate(RebateModality.PERCENT, 10_00),
    )
    assert amount_breakdown(terms, date(2025, 4, 28)) == DueAmount(1_000_00, 100_00, 0, 18_00, interest)
    assert amount_due(terms, date(2025, 4, 28)) == 900_00 + 18_00 + interest


@pytest.mark.parametrize(
    ("discount", "day", "amount"),
    [
        (
            Discount(DiscountModality.PERCENT_UNTIL_DATES, dates=(DiscountDate(date(2025, 4, 30), 5_00),)),
            29,
            45_00,
        ),
        (Discount(DiscountModality.PERCENT_PER_CALENDAR_DAY, value=10), 20, 9_00),  # 10 days early
        (Discount(DiscountModality.PERCENT_PER_BUSINESS_DAY, value=10), 17, 6_30),  # 7 business days early
        (
            Discount(
                DiscountModality.FIXED_VALUE_UNTIL_DATES, dates=(DiscountDate(date(2025, 4, 30), 5_00),)
            ),
            29,
            5_00,
        ),
    ],
)
def test_a_discount_is_taken_after_the_rebate_a_percentage_of_what_it_leaves(
    discount: Discount, day: int, amount: int
) -> None:
    """Original 1000.00 due Wednesday 30 April 2025, a rebate of 100.00: a percentage discount is
    of 900.00; a value is itself."""
    terms = DueTerms(
        1_000_00, date(2025, 4, 30), 10, rebate=Rebate(RebateModality.FIXED, 100_00), discount=discount
    )
    parts = amount_breakdown(terms, date(2025, 4, day))
    assert (parts.rebate, parts.discount) == (100_00, amount)
    assert parts.final == 900_00 - amount
