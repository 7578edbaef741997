"""Business days in Brazil: weekdays that are not national holidays (the banks' calendar).

The national holidays are those of the national financial calendar (ANBIMA's, which the
banks and the central bank's systems follow): the fixed dates of Lei 662/1949, 6.802/1980 and
14.759/2023 (20 November from 2024), and the movable ones that hang on Easter Sunday: Carnival
Monday and Tuesday, Good Friday and Corpus Christi. Regional and municipal holidays are not
counted (the service does not know where its payers are; docs/due-charges.md).
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import cache, lru_cache

__all__ = ["business_days_between", "easter", "holidays", "is_business_day", "next_business_day"]

_FIXED = ((1, 1), (4, 21), (5, 1), (9, 7), (10, 12), (11, 2), (11, 15), (12, 25))
_EASTER_OFFSETS = (-48, -47, -2, 60)  # Carnival Monday and Tuesday, Good Friday, Corpus Christi
_BLACK_CONSCIOUSNESS_FROM = 2024  # 20 November, national since Lei 14.759/2023


def easter(year: int) -> date:
    """Easter Sunday of the Gregorian calendar (the anonymous algorithm of Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7  # noqa: E741 - the algorithm's own name
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return date(year, month, day + 1)


@lru_cache(maxsize=512)
def holidays(year: int) -> frozenset[date]:
    """The national holidays of ``year``."""
    fixed = {date(year, month, day) for month, day in _FIXED}
    if year >= _BLACK_CONSCIOUSNESS_FROM:
        fixed.add(date(year, 11, 20))
    sunday = easter(year)
    movable = {sunday + timedelta(days=offset) for offset in _EASTER_OFFSETS}
    return frozenset(fixed | movable)


def is_business_day(day: date) -> bool:
    """Monday to Friday, and not a national holiday."""
    return day.weekday() < 5 and day not in holidays(day.year)


def next_business_day(day: date) -> date:
    """``day`` itself if it is a business day, else the first business day after it.

    Raises ``OverflowError`` past the last date Python can hold.
    """
    while not is_business_day(day):
        day += timedelta(days=1)
    return day


def _weekdays_through(day: date) -> int:
    """Monday-to-Friday days from 0001-01-01 (a Monday) to ``day``, both included."""
    weeks, rest = divmod(day.toordinal(), 7)
    return 5 * weeks + min(rest, 5)


def business_days_between(start: date, end: date) -> int:
    """Business days ``d`` with ``start < d <= end`` (0 when ``end <= start``).

    Counted arithmetically (weekdays, less the holidays that fall on one; whole years by a
    cached count), so a range of centuries costs little: a request may ask for a window of
    millions of days.
    """
    if end <= start:
        return 0
    weekdays = _weekdays_through(end) - _weekdays_through(start)
    if start.year == end.year:
        return weekdays - _weekday_holidays(start.year, start, end)
    whole_years = sum(_weekday_holiday_count(year) for year in range(start.year + 1, end.year))
    first = _weekday_holidays(start.year, start, date(start.year, 12, 31))
    last = _weekday_holidays(end.year, date(end.year - 1, 12, 31), end)
    return weekdays - first - whole_years - last


def _weekday_holidays(year: int, after: date, through: date) -> int:
    """The holidays of ``year`` on a weekday, with ``after < holiday <= through``."""
    return sum(1 for holiday in holidays(year) if after < holiday <= through and holiday.weekday() < 5)


@cache  # unbounded, but a date's year is 1 to 9999: at most 9999 small ints
def _weekday_holiday_count(year: int) -> int:
    return sum(1 for holiday in holidays(year) if holiday.weekday() < 5)
