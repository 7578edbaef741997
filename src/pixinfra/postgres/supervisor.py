"""Supervising the embedded PostgreSQL: notice its death, restart it, say when it cannot come back.

``pixweb serve`` and ``pixnotify run`` on an embedded server (no ``PIX_DATABASE_URL``) each run a
:class:`Supervisor` while they serve. Every ``interval`` (0.5 s) it asks whether the server's
postmaster runs. When it has died:

1. the death is logged (ERROR) and counted;
2. the process that leads (``EmbeddedPostgres.lead``: one per data folder) starts it again; the
   others only wait for it to come back, then re-attach;
3. an attempt that does not bring it back is followed by a pause of 0.5 s, doubling up to 10 s
   (:class:`Backoff`): attempts about 0, 0.5, 1.5, 3.5, 7.5 and 15.5 s after the death, then
   every 10 s;
4. once the pause has reached its cap (six failed attempts: the back-off budget is spent) the
   process reports not live (:meth:`Supervisor.problem`: ``/health/live`` answers 503), and
   keeps trying every 10 s;
5. once the server runs again the process is live again, the outage is logged (WARNING) with its
   length, and the pool reconnects by itself (readiness follows).

Meanwhile requests that need the database are 503s, as for any outage (``pixweb.errors``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge

from pixinfra.postgres.database import embedded_server

__all__ = ["Backoff", "Supervised", "Supervisor", "SupervisorMetrics", "supervising"]

log = logging.getLogger("pixweb.embedded")

Wait = Callable[[asyncio.Event, float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Pauses between restart attempts: ``first`` seconds, doubling up to ``most``."""

    first: float = 0.5
    most: float = 10.0

    def pause(self, failures: int) -> float:
        """The pause after the ``failures``-th failed attempt in a row (1, 2, ...)."""
        return min(self.first * 2.0 ** (failures - 1), self.most)

    def spent(self, failures: int) -> bool:
        """True once the pause has reached its cap: the server is not coming back by itself."""
        return self.first * 2.0 ** (failures - 1) >= self.most


class Supervised(Protocol):
    """The server as the supervisor sees it (``pixinfra.postgres.embedded.EmbeddedPostgres``)."""

    def alive(self) -> bool:
        """Its postmaster runs and is ready."""
        ...

    def lead(self) -> bool:
        """This process is the one that restarts it."""
        ...

    def start(self) -> None:
        """Start it unless it runs, and attach to it (blocking)."""
        ...


_BY_REGISTRY: weakref.WeakKeyDictionary[CollectorRegistry, SupervisorMetrics] = weakref.WeakKeyDictionary()


class SupervisorMetrics:
    """The supervisor's Prometheus metrics in ``registry``. Build with :meth:`of` (one set per registry)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.deaths = Counter(
            "pix_embedded_database_deaths",
            "Deaths of the embedded PostgreSQL this process saw.",
            registry=registry,
        )
        self.restarts = Counter(
            "pix_embedded_database_restarts",
            "Restarts of the embedded PostgreSQL this process made.",
            registry=registry,
        )
        self.failures = Counter(
            "pix_embedded_database_restart_failures",
            "Restart attempts that did not bring the embedded PostgreSQL back.",
            registry=registry,
        )
        self.up = Gauge(
            "pix_embedded_database_up", "1 while the embedded PostgreSQL runs.", registry=registry
        )
        self.up.set(1)
        self.live = Gauge(
            "pix_embedded_database_live",
            "0 once the embedded PostgreSQL could not be restarted within the back-off budget.",
            registry=registry,
        )
        self.live.set(1)

    @classmethod
    def of(cls, registry: CollectorRegistry) -> SupervisorMetrics:
        metrics = _BY_REGISTRY.get(registry)
        if metrics is None:
            metrics = _BY_REGISTRY[registry] = cls(registry)
        return metrics


async def _wait(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


class Supervisor:
    """Watches ``server`` until ``stop`` is set (:meth:`run`). ``wait`` and ``clock`` are for tests."""

    def __init__(
        self,
        server: Supervised,
        *,
        metrics: SupervisorMetrics | None = None,
        backoff: Backoff = Backoff(),
        interval: float = 0.5,
        wait: Wait = _wait,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server, self.metrics, self.backoff = server, metrics, backoff
        self.interval, self.wait, self.clock = interval, wait, clock
        self.failures = 0  # failed attempts in the current outage
        self.up = True

    def problem(self) -> str | None:
        """None while the process is live; otherwise why not, for ``/health/live``."""
        if self.up or not self.backoff.spent(self.failures):
            return None
        return f"The embedded database is down and {self.failures} restart attempts did not bring it back."

    async def run(self, stop: asyncio.Event) -> None:
        self.server.lead()  # the first process to supervise a folder leads it
        while not stop.is_set():
            if self.server.alive():
                await self.wait(stop, self.interval)
            else:
                await self._recover(stop)

    async def _recover(self, stop: asyncio.Event) -> None:
        died = self.clock()
        self.up, self.failures = False, 0
        log.error("the embedded PostgreSQL died; restarting it")
        if self.metrics is not None:
            self.metrics.deaths.inc()
            self.metrics.up.set(0)
        while not stop.is_set():
            led, reason = await self._attempt()
            if reason is None:
                self._back(died, restarted=led)
                return
            self.failures += 1
            pause = self.backoff.pause(self.failures)
            if self.metrics is not None and led:
                self.metrics.failures.inc()
            if self.backoff.spent(self.failures) and not self.backoff.spent(self.failures - 1):
                if self.metrics is not None:
                    self.metrics.live.set(0)
                log.error(
                    "the embedded PostgreSQL is still down after %d attempts (%s): this process "
                    "reports not live until it is back; trying again every %g s",
                    self.failures,
                    reason,
                    pause,
                    extra={"attempt": self.failures, "next_attempt_in": pause},
                )
            else:
                log.warning(
                    "the embedded PostgreSQL is still down (attempt %d: %s); next attempt in %g s",
                    self.failures,
                    reason,
                    pause,
                    extra={"attempt": self.failures, "next_attempt_in": pause},
                )
            await self.wait(stop, pause)

    async def _attempt(self) -> tuple[bool, str | None]:
        """One attempt: (whether this process ran a start, None if the server runs now or why not)."""
        if self.server.alive():  # another process started it: re-attach (to stop it if we leave last)
            return False, await self._start("re-attaching")
        if not self.server.lead():
            return False, "waiting for the process that restarts it"
        reason = await self._start("the start")
        if reason is None and not self.server.alive():
            reason = "it does not run"
        return True, reason

    async def _start(self, what: str) -> str | None:
        try:
            await asyncio.to_thread(self.server.start)
        except Exception as exc:  # noqa: BLE001 - pg_ctl's failure, or pgserver's assertion
            return f"{what} failed: {type(exc).__name__}: {str(exc)[:300]}"
        return None

    def _back(self, died: float, *, restarted: bool) -> None:
        down = self.clock() - died
        log.warning(
            "the embedded PostgreSQL is back after %.1f s (%d failed attempts, %s)",
            down,
            self.failures,
            "restarted by this process" if restarted else "restarted by another process",
            extra={"down_seconds": round(down, 3), "failed_attempts": self.failures},
        )
        self.up, self.failures = True, 0
        if self.metrics is not None:
            if restarted:
                self.metrics.restarts.inc()
            self.metrics.up.set(1)
            self.metrics.live.set(1)


@contextlib.asynccontextmanager
async def supervising(registry: CollectorRegistry | None) -> AsyncIterator[Supervisor | None]:
    """A supervisor of this process's embedded server for the block (None without one); its
    metrics go to ``registry`` if given."""
    server = embedded_server()
    if server is None:
        yield None
        return
    supervisor = Supervisor(server, metrics=SupervisorMetrics.of(registry) if registry is not None else None)
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.run(stop))
    try:
        yield supervisor
    finally:
        stop.set()
        await task
        server.release()
