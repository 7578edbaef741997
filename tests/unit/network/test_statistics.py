"""The DICT's anti-fraud counters (``pixwire.dict.statistics``): their windows, and the
settlements quantized."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixwire.dict.statistics import CountedBy, Counter, CounterType, quantized, windows

SCALE = [0, 1, 5, 10, 50, 100, 500, 1_000, 5_000, 10_000, 50_000, 100_000]


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (0, 0),
        (1, 1),
        (2, 5),
        (3, 5),
        (5, 5),
        (6, 10),
        (10, 10),
        (11, 50),
        (190, 500),
        (500, 500),
        (501, 1_000),
    ],
)
def test_the_documents_examples_and_the_edges(count: int, shown: int) -> None:
    assert quantized(count) == shown


@given(st.integers(min_value=0, max_value=99_999))
def test_a_count_shows_as_the_least_mark_of_the_scale_at_or_above_it(count: int) -> None:
    assert quantized(count) == min(mark for mark in SCALE if mark >= count)


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="never negative"):
        quantized(-1)


@pytest.mark.parametrize(
    ("now", "m6"),
    [
        (
            datetime(2026, 11, 29, 12, tzinfo=UTC),
            (datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC)),
        ),
        (
            datetime(2026, 3, 1, 0, 0, 1, tzinfo=UTC),
            (datetime(2025, 9, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)),
        ),
        (
            datetime(2027, 6, 30, 23, tzinfo=UTC),
            (datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 6, 1, tzinfo=UTC)),
        ),
    ],
)
def test_the_windows_are_3_days_30_days_and_the_6_months_before_the_current(
    now: datetime, m6: tuple[datetime, datetime]
) -> None:
    d3, d30, m6_from, m6_to = windows(now)
    assert (now - d3, now - d30) == (timedelta(days=3), timedelta(days=30))
    assert (m6_from, m6_to) == m6


def test_only_settlements_are_shown_quantized() -> None:
    settled = Counter(CounterType.SETTLEMENTS, CountedBy.KEY, d3=3, d30=190, m6=0)
    reported = Counter(CounterType.REPORTED_FRAUDS, CountedBy.KEY, d3=3, d30=190, m6=0)
    assert (settled.shown().d3, settled.shown().d30, settled.shown().m6) == (5, 500, 0)
    assert reported.shown() == reported
