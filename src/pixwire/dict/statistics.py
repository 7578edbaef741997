"""The anti-fraud counters a ``getEntry`` answers with (``Statistics``): events by key, owner and
account over the last 3 days (``d3``), 30 days (``d30``) and the 6 months before the current one
(``m6``).

The counters of settled transactions are given quantized, as the DICT API document says: rounded
up to the scale 0, 1, 5, 10, 50, 100, 500, 1000, 5000, ... (3 is 5, 190 is 500), so that a look-up
tells how busy a key is without telling its exact traffic.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

__all__ = ["CountedBy", "Counter", "CounterType", "Statistics", "quantized", "windows"]


def quantized(count: int) -> int:
    """``count`` rounded up to the next of 0, 1, 5, 10, 50, 100, 500, ... (a negative is refused)."""
    if count < 0:
        raise ValueError(f"a counter is never negative: {count}")
    step = 1
    while True:
        for mark in (step, 5 * step):
            if count <= mark:
                return 0 if count == 0 else mark
        step *= 10


class CounterType(enum.StrEnum):
    SETTLEMENTS = "SETTLEMENTS"
    REPORTED_FRAUDS = "REPORTED_FRAUDS"
    CONFIRMED_FRAUDS = "CONFIRMED_FRAUDS"
    REJECTED = "REJECTED"


class CountedBy(enum.StrEnum):
    KEY = "KEY"
    OWNER = "OWNER"
    ACCOUNT = "ACCOUNT"


@dataclass(frozen=True, slots=True)
class Counter:
    type: CounterType
    by: CountedBy
    d3: int
    d30: int
    m6: int

    def shown(self) -> Counter:
        """As a look-up shows it: settlements quantized, the other counters exact."""
        if self.type is not CounterType.SETTLEMENTS:
            return self
        return replace(self, d3=quantized(self.d3), d30=quantized(self.d30), m6=quantized(self.m6))


@dataclass(frozen=True, slots=True)
class Statistics:
    last_updated: datetime
    counters: tuple[Counter, ...]


def windows(now: datetime) -> tuple[datetime, datetime, datetime, datetime]:
    """The windows' starts at ``now``: 3 days back, 30 days back, and the 6 months before the
    current one (from its first instant to the current month's first instant), in UTC."""
    month = now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    year, index = divmod(month.year * 12 + month.month - 1 - 6, 12)
    return now - timedelta(days=3), now - timedelta(days=30), month.replace(year=year, month=index + 1), month
