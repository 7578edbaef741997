"""The sandbox clock: the service clock, which the operator can move forward.

The offset lives in the database (the single row of ``sandbox_clock``) so that every process of
the service agrees on it. A process reads it at the start of every request
(:class:`pixweb.sandbox.clock_middleware.SharedClockMiddleware`) and of every round of its
background loops (settlement; the notifier, ``pixnotify``, at most once per poll interval), so a
move is seen at once everywhere: a token issued by one process is valid in every other, and a
retry due by the moved clock is due for every notifier. Concurrent reads may finish in any order;
the offset a process keeps only grows. It is here, in ``pixinfra``, because the API and the
notifier both keep it.

A clock handed in by tests stays private to the test (nothing is read or stored), and with the
sandbox off (production mode) the service runs on the wall clock and reads nothing.
"""

from __future__ import annotations

from datetime import timedelta

from pixcore.clock import SystemClock
from pixcore.errors import InvalidClockMove
from pixinfra.postgres.pool import Database

__all__ = ["MAX_ADVANCE", "MAX_OFFSET", "OFFSET_QUERY", "ClockKeeper", "stored_offset"]

MAX_ADVANCE = 400 * 86_400  # seconds one move may take at most
MAX_OFFSET = 100 * 365 * 86_400  # seconds the clock may run ahead of the wall clock, all moves together
# (datetimes end at the year 9999: without a bound, enough moves would break every request)

OFFSET_QUERY = "SELECT offset_micros FROM sandbox_clock WHERE id = 1"
"""The stored offset in microseconds; a caller may read it as a subquery of its own statement,
to save a round trip, and hand the result to :meth:`ClockKeeper.adopt`."""
_READ = OFFSET_QUERY
_ADVANCE = """
UPDATE sandbox_clock SET offset_micros = offset_micros + $1
WHERE id = 1 AND offset_micros + $1 <= $2
RETURNING offset_micros
"""


async def stored_offset(database: Database) -> timedelta:
    """The offset stored in the database: one primary-key read."""
    micros = await database.pool.fetchval(_READ)
    return timedelta(microseconds=micros or 0)


class ClockKeeper:
    """Keeps ``clock`` at the offset stored in ``database`` when ``shared``; a clock that is not
    shared (or a keeper without an open database) moves alone."""

    def __init__(self, clock: SystemClock, *, shared: bool, database: Database | None = None) -> None:
        self.clock = clock
        self.shared = shared
        self.database = database

    @property
    def reads_database(self) -> bool:
        """True when :meth:`refresh` reads the database (a shared clock with its database open)."""
        return self._stored() is not None

    def _stored(self) -> Database | None:
        database = self.database
        return database if self.shared and database is not None and database.is_open else None

    async def refresh(self) -> None:
        """Bring the clock up to the database's offset (a no-op for a private clock)."""
        database = self._stored()
        if database is None:
            return
        self.adopt(await stored_offset(database))

    async def advance(self, seconds: int) -> None:
        """Move the clock ``seconds`` forward (0 to ``MAX_ADVANCE``), for every process."""
        if not 0 <= seconds <= MAX_ADVANCE:
            raise InvalidClockMove(f"The clock moves forward by 0 to {MAX_ADVANCE} seconds at a time.")
        database = self._stored()
        if database is None:
            if self.clock.offset.total_seconds() + seconds > MAX_OFFSET:
                raise InvalidClockMove(_TOO_FAR)
            self.clock.advance(seconds)
            return
        micros = await database.pool.fetchval(_ADVANCE, seconds * 1_000_000, MAX_OFFSET * 1_000_000)
        if micros is None:
            raise InvalidClockMove(_TOO_FAR)
        self.adopt(timedelta(microseconds=micros))

    def adopt(self, offset: timedelta) -> None:
        """Bring the clock up to ``offset``, read from the database (``OFFSET_QUERY``)."""
        # A read that finishes late (it began before another's) must not move the clock back.
        self.clock.offset = max(self.clock.offset, offset)


_TOO_FAR = f"The clock may run at most {MAX_OFFSET // 86_400} days ahead of real time."
