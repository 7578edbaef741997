"""The calendar rules of Pix Automático: cycles of a periodicity, settlement dates, identifiers."""

from __future__ import annotations

import re
from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from pixcore.business_days import is_business_day
from pixcore.identifiers import new_recurrence_id, new_recurrence_request_id
from pixcore.recurrences import Periodicity, cycle_of, cycle_start, settlement_date

DAYS = st.dates(min_value=date(2024, 1, 1), max_value=date(2040, 12, 31))


@given(start=DAYS, periodicity=st.sampled_from(Periodicity), ahead=st.integers(0, 3_000))
def test_a_day_is_in_the_cycle_that_starts_on_or_before_it_and_ends_before_the_next(
    start: date, periodicity: Periodicity, ahead: int
) -> None:
    day = start + timedelta(days=ahead)
    cycle = cycle_of(start, periodicity, day)
    assert cycle_start(start, periodicity, cycle) <= day < cycle_start(start, periodicity, cycle + 1)


def test_monthly_cycles_keep_to_the_month_end() -> None:
    start = date(2026, 1, 31)
    assert cycle_start(start, Periodicity.MENSAL, 1) == date(2026, 2, 28)
    assert cycle_of(start, Periodicity.MENSAL, date(2026, 2, 27)) == 0
    assert cycle_of(start, Periodicity.MENSAL, date(2026, 2, 28)) == 1
    assert cycle_of(start, Periodicity.TRIMESTRAL, date(2026, 4, 30)) == 1
    assert cycle_of(start, Periodicity.SEMANAL, date(2026, 2, 7)) == 1
    assert cycle_of(start, Periodicity.ANUAL, date(2027, 1, 30)) == 0


@given(due=DAYS)
def test_the_settlement_date_is_the_next_business_day_only_when_adjusted(due: date) -> None:
    assert settlement_date(due, adjust=False) == due
    adjusted = settlement_date(due, adjust=True)
    assert is_business_day(adjusted)
    assert adjusted >= due
    assert all(not is_business_day(due + timedelta(days=d)) for d in range((adjusted - due).days))


def test_the_ids_follow_the_standards_layout() -> None:
    day = date(2026, 3, 15)
    assert re.fullmatch(
        r"RR99999999" r"20260315[A-Za-z0-9]{11}", new_recurrence_id("99999999", day, retries=True)
    )
    assert re.fullmatch(
        r"RN99999999" r"20260315[A-Za-z0-9]{11}", new_recurrence_id("99999999", day, retries=False)
    )
    assert re.fullmatch(r"SC99999999" r"20260315[A-Za-z0-9]{11}", new_recurrence_request_id("99999999", day))
