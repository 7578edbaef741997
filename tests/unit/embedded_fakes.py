"""A fake embedded server and a scripted clock for the supervisor's tests."""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry

from pixinfra.postgres.supervisor import Supervisor, SupervisorMetrics

__all__ = ["FakeServer", "Read", "Script", "supervised"]


class FakeServer:
    """Alive for ``alive_checks`` checks, then dead; each start fails ``failing_starts`` times
    (raising, or returning without bringing it back) before one brings it back."""

    def __init__(
        self, *, alive_checks: int = 2, failing_starts: int = 0, leads: bool = True, raises: bool = True
    ) -> None:
        self.alive_checks, self.failing_starts, self.leads, self.raises = (
            alive_checks,
            failing_starts,
            leads,
            raises,
        )
        self.running = True
        self.checks = 0
        self.starts = 0

    def alive(self) -> bool:
        self.checks += 1
        if self.checks == self.alive_checks + 1:
            self.running = False  # killed
        return self.running

    def lead(self) -> bool:
        return self.leads

    def start(self) -> None:
        self.starts += 1
        if self.running:
            return  # attaching to a running server
        if self.starts <= self.failing_starts:
            if self.raises:
                raise RuntimeError("pg_ctl: could not start server")
            return  # pgserver attached to a postmaster not yet reaped: it does not run
        self.running = True


class Script:
    """The fake ``wait``: records each pause with the liveness seen then, advances a fake clock,
    and stops the supervisor after ``rounds`` waits."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.now = 1000.0
        self.pauses: list[float] = []
        self.problems: list[str | None] = []
        self.supervisor: Supervisor | None = None

    def clock(self) -> float:
        return self.now

    async def wait(self, stop: asyncio.Event, seconds: float) -> None:
        assert self.supervisor is not None
        self.pauses.append(seconds)
        self.problems.append(self.supervisor.problem())
        self.now += seconds
        if len(self.pauses) >= self.rounds:
            stop.set()


class Read:
    """The supervisor's metrics as a scrape shows them."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def __call__(self, *names: str) -> tuple[float | None, ...]:
        return tuple(self.registry.get_sample_value(f"pix_embedded_database_{name}") for name in names)


def supervised(server: FakeServer, rounds: int) -> tuple[Supervisor, Script, Read]:
    script = Script(rounds)
    registry = CollectorRegistry()
    metrics = SupervisorMetrics.of(registry)
    supervisor = Supervisor(server, metrics=metrics, wait=script.wait, clock=script.clock)
    script.supervisor = supervisor
    return supervisor, script, Read(registry)
