"""The README's promise, checked from a fresh clone: `make test` passes, and
`make run` serves the demo, shares its embedded database with `pixweb admin`,
stops cleanly on Ctrl-C and starts again on the same data.

Only committed files exist in the clone. The run inside the clone does not
clone again (PIX_INSIDE_FRESH_CLONE deselects this module there).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.fresh_clone, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
READY_TIMEOUT = 240.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "VIRTUAL_ENV", "UV_"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    return env | {"PIX_INSIDE_FRESH_CLONE": "1"} | extra


@pytest.fixture(scope="module")
def clone() -> Iterator[Path]:
    """A clone in a folder of its own, not under pytest's temporary root.

    Run as root, the embedded PostgreSQL runs as another user and reads its libraries (plpgsql,
    loaded when a trigger first runs in a connection) from the clone's ``.venv``; pgserver opens
    the folders above it to that user when it starts the server. The run inside the clone starts
    a pytest session of its own, which closes pytest's root (``/tmp/pytest-of-<user>``) to
    everyone but its owner again: a clone under it would lose its server's plpgsql mid-run.
    """
    folder = Path(tempfile.mkdtemp(prefix="pix-fresh-clone-"))
    target = folder / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True)
    try:
        yield target
    finally:
        _stop_postgres_under(folder)
        shutil.rmtree(folder, ignore_errors=True)


def _postgres_under(folder: Path) -> list[int]:
    """The pids of the postgres processes whose command line names ``folder``."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "postgres" in text and str(folder) in text:
            pids.append(int(cmdline.parent.name))
    return pids


def _postgres_running_for(folder: Path) -> bool:
    return bool(_postgres_under(folder))


def _stop_postgres_under(folder: Path) -> None:
    """Stop what a failed run left serving from the clone (fast shutdown), before it is deleted:
    a postmaster whose installation is gone would linger and fail every new connection."""
    for pid in _postgres_under(folder):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGINT)


class Served:
    def __init__(self, clone: Path, port: int) -> None:
        self.port = port
        self.log = clone / f"run-{port}.log"
        self.started = time.monotonic()
        self._output = self.log.open("wb")
        self.process = subprocess.Popen(
            ["make", "run"],
            cwd=clone,
            env=_clean_env(PIX_PORT=str(port)),
            stdout=self._output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self) -> float:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"make run exited early:\n{self.log.read_text()}")
            try:
                if (
                    httpx.get(f"http://127.0.0.1:{self.port}/.well-known/jwks.json", timeout=1).status_code
                    == 200
                ):
                    return time.monotonic() - self.started
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"make run was not ready in {READY_TIMEOUT}s:\n{self.log.read_text()}")

    def interrupt(self) -> int:
        os.killpg(self.process.pid, signal.SIGINT)  # what Ctrl-C does to the terminal's process group
        try:
            return self.process.wait(timeout=60)
        finally:
            self._output.close()


def test_make_test_passes_in_a_fresh_clone(clone: Path) -> None:
    """The clone's whole `make test`, its output passed through line by line (seen as it comes with
    `pytest -s`, as `make fresh-clone` in CI runs it), its last lines in the failure's message."""
    lines: list[str] = []
    with subprocess.Popen(
        ["make", "test"],
        cwd=clone,
        env=_clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as process:
        assert process.stdout is not None
        # A hang is a failure, not a stuck CI: make and everything under it killed after an hour.
        timer = threading.Timer(3600, os.killpg, (process.pid, signal.SIGKILL))
        timer.start()
        try:
            for line in process.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                lines.append(line)
        finally:
            timer.cancel()
        returncode = process.wait()
    output = "".join(lines)
    assert returncode == 0, output[-8000:]
    assert re.search(r"\d+ passed", output)
    assert " failed" not in output


def test_make_run_serves_the_demo_and_restarts_quickly(clone: Path) -> None:
    assert shutil.which("curl"), "the README's tour uses curl"
    port = _free_port()
    served = Served(clone, port)
    try:
        served.wait_ready()
        output = served.log.read_text()
        assert "[created] Demo account" in output
        token_line = next(line.strip() for line in output.splitlines() if line.strip().startswith("TOKEN=$("))
        balance_line = next(
            line.strip()
            for line in output.splitlines()
            if line.strip().startswith("curl -s") and "/balance " in line
        )
        tour = subprocess.run(
            ["bash", "-c", f"set -e; {token_line}; {balance_line}"],
            cwd=clone,  # the project folder, where the banner's paths are
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert tour.returncode == 0, tour.stderr
        balance = json.loads(tour.stdout)
        assert set(balance) == {"grossBalance", "blockedBalance", "netBalance", "consultedAt"}

        # The operator's CLI acts on the same embedded database while it serves.
        admin = subprocess.run(
            [
                str(clone / ".venv/bin/pixweb"),
                "admin",
                "account",
                "create",
                "--name",
                "Second",
                "--document",
                "11144477735",
            ],
            cwd=clone,
            env=_clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert admin.returncode == 0, admin.stderr
        assert json.loads(admin.stdout)["accountId"] > 1
    finally:
        code = served.interrupt()
    # make passes Ctrl-C on by dying of it (-SIGINT); the server itself exits cleanly.
    assert code in (0, -signal.SIGINT), served.log.read_text()[-2000:]
    assert "Application shutdown complete" in served.log.read_text()
    pgdata = clone / ".pixdata" / "pg"
    deadline = time.monotonic() + 20
    while _postgres_running_for(pgdata) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _postgres_running_for(pgdata), "Ctrl-C left the embedded PostgreSQL running"

    # A second start reuses the data (how fast: bench/startup.py measures it).
    again = Served(clone, port)
    try:
        again.wait_ready()
        assert "[reused] Demo account" in again.log.read_text()
    finally:
        again.interrupt()
