"""Time, behind a port: the service never reads the wall clock directly.

``Clock`` is the port. ``SystemClock`` reads the wall clock; ``ManualClock`` is
the fake used in tests (and the base of the sandbox clock, which can only move
forward). ``format_timestamp`` is the one wire form of a moment:
RFC 3339, UTC, ``Z``, milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "ManualClock", "SystemClock", "format_timestamp", "parse_timestamp"]


class Clock(Protocol):
    """Tells the current time, always timezone-aware and in UTC."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, shifted forward by ``offset`` (the sandbox can move time on)."""

    def __init__(self, offset: timedelta = timedelta(0)) -> None:
        self.offset = offset

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self.offset += timedelta(seconds=seconds)


class ManualClock:
    """A clock that stands still until told to move: for tests."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        if self._now.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start")

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._now += timedelta(seconds=seconds)


def format_timestamp(moment: datetime) -> str:
    """``2026-11-21T15:05:59.224Z``: UTC, millisecond precision."""
    if moment.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    utc = moment.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )


def parse_timestamp(text: str) -> datetime:
    """Parse an ISO 8601 timestamp; a naive one is taken as UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
