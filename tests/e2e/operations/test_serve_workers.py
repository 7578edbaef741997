"""``pixweb serve --workers 2``: two API processes answer on one port, and a signal stops them all.

The process that answers is told by ``/metrics`` (``pix_process_info{pid=...}``): requests are sent
on many connections at once until both workers have answered, each a child of the server process.
SIGTERM (what a supervisor sends) and SIGINT (Ctrl-C) must end the server with status 0, its
workers, and, on an embedded PostgreSQL, the database server too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from tests.e2e.cli.test_cli import (
    PIXWEB,
    _base_env,
    _fingerprint,
    _processes_mentioning,
    _token_status,
    pixweb,
)
from tests.e2e.cli.test_cli_credentials import _linked_account
from tests.support.processes import stop_process

PROCESS = re.compile(r'^pix_process_info\{pid="([0-9]+)"\} 1\.0$', re.MULTILINE)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _answering_pids(base_url: str, *, want: int, seconds: float = 60.0) -> set[int]:
    """The pids that answer ``/metrics``, asked on 16 fresh connections at a time, until ``want``."""
    seen: set[int] = set()
    deadline = time.monotonic() + seconds

    async def ask() -> int | None:
        try:
            async with httpx.AsyncClient(base_url=base_url, timeout=5) as http:
                response = await http.get("/metrics")
        except httpx.TransportError:
            return None
        match = PROCESS.search(response.text) if response.status_code == 200 else None
        return int(match.group(1)) if match else None

    while len(seen) < want and time.monotonic() < deadline:
        seen |= {pid for pid in await asyncio.gather(*(ask() for _ in range(16))) if pid is not None}
        if len(seen) < want:
            await asyncio.sleep(0.25)
    return seen


@contextlib.asynccontextmanager
async def _two_workers(env: dict[str, str], stop: signal.Signals) -> AsyncIterator[tuple[str, set[int]]]:
    """``pixweb serve --workers 2`` until both workers answer: (base URL, their pids). On exit
    ``stop`` is sent: the server must exit with 0, and no worker outlive it."""
    port = _free_port()
    server = await asyncio.create_subprocess_exec(
        str(PIXWEB),
        "serve",
        "--no-demo",
        "--port",
        str(port),
        "--workers",
        "2",
        env=env | {"PIX_LOG_LEVEL": "WARNING"},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        pids = await _answering_pids(base_url, want=2)
        assert len(pids) == 2, f"two processes should answer, saw {pids}"
        assert server.pid not in pids  # the parent supervises; the workers answer
        assert {_parent_of(pid) for pid in pids} == {server.pid}
        yield base_url, pids
        code = await stop_process(server, "pixweb serve --workers 2", signum=stop, within=40)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    assert code == 0
    # uvicorn's supervisor waits for its workers before it returns: none may outlive it
    assert not any(_alive(pid) for pid in pids), "a worker outlived pixweb serve"


async def _serve_two_workers_then_stop(env: dict[str, str], stop: signal.Signals) -> None:
    async with _two_workers(env, stop):
        pass


async def _balance_answers(base_url: str, pids: set[int], token: str, status: int) -> None:
    """GET /balance with ``token`` on fresh connections until each worker has answered it with
    ``status`` (its ``/metrics`` counts it); every answer must be ``status``."""
    status_class = f"{status // 100}xx"
    pattern = re.compile(
        r"^pix_http_request_duration_seconds_count"
        rf'\{{method="GET",route="/balance",status="{status_class}"\}} ([0-9.]+)$',
        re.MULTILINE,
    )
    answered: set[int] = set()
    deadline = time.monotonic() + 60

    async def one() -> None:
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
            response = await http.get("/balance", headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == status, response.text
            metrics = (await http.get("/metrics")).text
        pid, count = PROCESS.search(metrics), pattern.search(metrics)
        if pid is not None and count is not None and float(count.group(1)) >= 1:
            answered.add(int(pid.group(1)))

    while answered != pids and time.monotonic() < deadline:
        await asyncio.gather(*(one() for _ in range(8)))
    assert answered == pids, f"not every worker answered /balance with {status}: {answered} of {pids}"


@pytest.mark.slow
async def test_a_revocation_in_another_process_refuses_a_token_cached_by_every_worker(
    migrated_database: str, tmp_path: Path
) -> None:
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}
    account, cert_pem = await _linked_account(env, tmp_path)
    async with _two_workers(env, signal.SIGTERM) as (base_url, pids):
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
            status, token = await _token_status(SimpleNamespace(client=http), account, cert_pem)  # type: ignore[arg-type]
        assert status == 201
        await _balance_answers(base_url, pids, token, 200)  # verified, and cached, in both workers
        args = ("admin", "cert", "revoke", "--account", str(account["accountId"]), "--fingerprint")
        (await pixweb(env, *args, _fingerprint(cert_pem))).ok()
        await _balance_answers(base_url, pids, token, 401)  # refused at once by both


@pytest.mark.slow
async def test_two_workers_on_an_embedded_database_answer_and_sigterm_stops_all(tmp_path: Path) -> None:
    await _serve_two_workers_then_stop(_base_env(tmp_path), signal.SIGTERM)
    pgdata = str((tmp_path / "pg").resolve())
    deadline = time.monotonic() + 15  # the last process to leave stops the server
    left = _processes_mentioning(pgdata)
    while left and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        left = _processes_mentioning(pgdata)
    assert left == [], f"the embedded PostgreSQL outlived pixweb serve --workers 2: {left}"


@pytest.mark.slow
async def test_two_workers_on_a_database_server_answer_and_ctrl_c_stops_all(
    migrated_database: str, tmp_path: Path
) -> None:
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}
    await _serve_two_workers_then_stop(env, signal.SIGINT)


@pytest.mark.parametrize("value", ["0", "-2", "two", "65"])
async def test_a_wrong_number_of_workers_is_a_usage_error_and_starts_nothing(
    tmp_path: Path, value: str
) -> None:
    env = _base_env(tmp_path) | {"PIX_PORT": str(_free_port())}
    outcome = await pixweb(env, "serve", "--no-demo", "--workers", value)
    assert outcome.code == 2
    assert "--workers" in outcome.stderr
    assert not (tmp_path / "pg").exists()  # refused before any database was started


async def test_a_wrong_pix_processes_is_a_json_error(tmp_path: Path) -> None:
    env = _base_env(tmp_path) | {"PIX_PROCESSES": "0"}
    outcome = await pixweb(env, "serve", "--no-demo")
    assert outcome.code == 2
    error = json.loads(outcome.stderr.strip().splitlines()[-1])
    assert error["error"] == "InvalidSetting"
    assert "PIX_PROCESSES" in error["message"]
    assert not (tmp_path / "pg").exists()


BUSY_LOOPS = 3  # on a 2-core machine: a worker's start-up (imports, the app) gets a fraction of a core
DIED = re.compile(r"Child process \[[0-9]+\] died")  # uvicorn's supervisor, on replacing a worker


@pytest.mark.slow
async def test_two_workers_starting_on_a_busy_cpu_both_come_up_and_none_is_killed(
    migrated_database: str, tmp_path: Path
) -> None:
    """uvicorn's supervisor pings each worker, and kills one that does not answer within
    ``PIX_WORKER_HEALTHCHECK_TIMEOUT`` seconds; a new worker answers only once it has imported the
    service's modules. With the CPU busy, start-up is slow: both workers must still come up, and
    none be replaced. (With uvicorn's 5 s on a 2-core machine this fails: workers die.)"""
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database, "PIX_LOG_LEVEL": "INFO"}
    log = tmp_path / "serve.log"
    port = _free_port()
    burners = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", "while True: pass")
        for _ in range(BUSY_LOOPS)
    ]
    try:
        with log.open("wb") as sink:
            server = await asyncio.create_subprocess_exec(
                str(PIXWEB),
                "serve",
                "--no-demo",
                "--port",
                str(port),
                "--workers",
                "2",
                env=env,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=sink,
            )
        try:
            pids = await _answering_pids(f"http://127.0.0.1:{port}", want=2, seconds=300)
            parents = {_parent_of(pid) for pid in pids}
        finally:
            for burner in burners:
                burner.kill()
            if server.returncode is None:
                server.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(server.wait(), timeout=60)
                except TimeoutError:
                    server.kill()
                    await server.wait()
    finally:
        for burner in burners:
            if burner.returncode is None:
                burner.kill()
            await burner.wait()
    text = log.read_text(errors="replace")
    assert len(pids) == 2, f"two workers should answer, saw {pids}; log:\n{text[-4000:]}"
    assert parents == {server.pid}
    assert text.count("Started server process") >= 2  # the log is the workers' too
    assert DIED.search(text) is None, text[-4000:]
    assert server.returncode == 0
