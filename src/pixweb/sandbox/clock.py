"""The service clock, which the sandbox can move forward (``POST /sandbox/clock``).

The offset lives in the database (table ``sandbox_clock``) so that every
process of the service agrees; each process refreshes it from there. A clock
handed in by tests stays private to the test (nothing is stored).
"""

from __future__ import annotations

from datetime import timedelta

from pixcore.clock import SystemClock
from pixweb.persistence.engine import DB

__all__ = ["ClockKeeper"]


class ClockKeeper:
    def __init__(self, clock: SystemClock, *, shared: bool) -> None:
        self.clock = clock
        self.shared = shared

    async def refresh(self) -> None:
        if not self.shared or DB.pool is None:
            return
        async with DB.pool.acquire() as conn:
            micros = await conn.fetchval("SELECT offset_micros FROM sandbox_clock WHERE id = 1")
        self.clock.offset = timedelta(microseconds=micros or 0)

    async def advance(self, seconds: int) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        if not self.shared or DB.pool is None:
            self.clock.advance(seconds)
            return
        async with DB.pool.acquire() as conn:
            micros = await conn.fetchval(
                "UPDATE sandbox_clock SET offset_micros = offset_micros + $1 WHERE id = 1"
                " RETURNING offset_micros",
                seconds * 1_000_000,
            )
        self.clock.offset = timedelta(microseconds=micros)
