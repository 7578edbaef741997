"""The clock port, its fakes and the one wire form of a moment."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.clock import Clock, ManualClock, SystemClock, format_timestamp, parse_timestamp

WIRE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")

offsets = st.integers(min_value=-23 * 60 - 59, max_value=23 * 60 + 59).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
# From the year 2 (not 1): a zone offset must not push the UTC moment before datetime.min.
aware = st.datetimes(
    min_value=datetime(2, 1, 2),  # noqa: DTZ001 - bounds of a naive strategy, zones come from `offsets`
    max_value=datetime(9999, 12, 30),  # noqa: DTZ001
    timezones=offsets,
)


def _truncated_to_ms(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


@given(aware)
def test_format_timestamp_shape(moment: datetime) -> None:
    text = format_timestamp(moment)
    assert WIRE.fullmatch(text)
    assert len(text) == 24


@given(aware)
def test_parse_format_round_trip_truncates_to_milliseconds(moment: datetime) -> None:
    parsed = parse_timestamp(format_timestamp(moment))
    assert parsed == _truncated_to_ms(moment)
    assert parsed.utcoffset() == timedelta(0)


def test_format_timestamp_example() -> None:
    moment = datetime(2026, 11, 21, 12, 5, 59, 224_999, tzinfo=timezone(timedelta(hours=-3)))
    assert format_timestamp(moment) == "2026-11-21T15:05:59.224Z"


def test_format_timestamp_refuses_naive() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        format_timestamp(datetime(2026, 1, 1))  # noqa: DTZ001 - naive on purpose


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-21T15:05:59.224Z", datetime(2026, 11, 21, 15, 5, 59, 224_000, tzinfo=UTC)),
        ("2026-11-21T15:05:59.224z", datetime(2026, 11, 21, 15, 5, 59, 224_000, tzinfo=UTC)),
        ("2026-11-21T12:05:59-03:00", datetime(2026, 11, 21, 15, 5, 59, tzinfo=UTC)),
        ("2026-11-21T15:05:59", datetime(2026, 11, 21, 15, 5, 59, tzinfo=UTC)),  # naive is UTC
    ],
)
def test_parse_timestamp_examples(text: str, expected: datetime) -> None:
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.tzinfo is not None


def test_manual_clock_stands_still_and_moves_forward() -> None:
    clock: Clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    assert clock.now() == clock.now() == datetime(2026, 1, 1, tzinfo=UTC)
    assert isinstance(clock, ManualClock)
    clock.advance(90.5)
    assert clock.now() == datetime(2026, 1, 1, 0, 1, 30, 500_000, tzinfo=UTC)
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)


def test_manual_clock_defaults_and_refuses_naive_start() -> None:
    assert ManualClock().now().tzinfo is not None
    with pytest.raises(ValueError, match="timezone-aware"):
        ManualClock(datetime(2026, 1, 1))  # noqa: DTZ001 - naive on purpose


def test_system_clock_is_aware_and_can_be_moved_on() -> None:
    clock = SystemClock()
    before = datetime.now(UTC)
    now = clock.now()
    assert now.utcoffset() == timedelta(0)
    assert before <= now <= datetime.now(UTC)
    clock.advance(3600)
    assert clock.now() - datetime.now(UTC) > timedelta(minutes=59)
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)
