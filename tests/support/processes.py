"""Processes for tests: a ``pixweb``/``pixnotify`` process's environment, migrating with one,
serving with one, and stopping one the way a test must: a process that ignores its stop signal is
a failure that says so, never a process left behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import psutil


def process_env(url: str, data_dir: Path, **variables: str) -> dict[str, str]:
    """This process's environment without its ``PIX_*``, for a ``pixweb``/``pixnotify`` process on
    ``url`` with ``data_dir`` (and ``variables``), webhooks to 127.0.0.1 allowed, warnings only,
    a pool of at most 5 connections (tests run side by side on one server)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
    return (
        env
        | {
            "PIX_DATABASE_URL": url,
            "PIX_DATA_DIR": str(data_dir),
            "PIX_WEBHOOK_ALLOW_PRIVATE": "on",
            "PIX_LOG_LEVEL": "WARNING",
            "PIX_DB_POOL_SIZE": "5",
        }
        | variables
    )


async def migrated_by_command(url: str, data_dir: Path) -> str:
    """``url``, migrated by ``pixweb migrate`` in a process of its own (Piccolo migrates one
    database per process, and this one has migrated the run's database already)."""
    migrated = await asyncio.create_subprocess_exec(
        Path(sys.executable).parent / "pixweb", "migrate", env=process_env(url, data_dir),
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    assert await migrated.wait() == 0
    return url


STOP_WITHIN = 30.0
"""Seconds a process stopped by a test has to exit before it is killed and the test fails."""


async def stop_process(
    process: asyncio.subprocess.Process,
    name: str,
    *,
    signum: signal.Signals = signal.SIGTERM,
    within: float = STOP_WITHIN,
) -> int:
    """Send ``signum`` (SIGTERM) and wait for the exit status. A process still running after
    ``within`` seconds is killed and the caller fails: it ignored the signal, which is a bug (a
    leftover, or a hang), not something to swallow."""
    if process.returncode is not None:
        return process.returncode
    process.send_signal(signum)
    try:
        return await asyncio.wait_for(process.wait(), within)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(
            f"{name} (pid {process.pid}) ignored {signum.name} for {within} s: killed"
        ) from None


def stop_popen(process: subprocess.Popen[Any], name: str, *, within: float = STOP_WITHIN) -> int:
    """:func:`stop_process` for a process started with :class:`subprocess.Popen`."""
    if process.poll() is not None:
        return process.returncode
    process.terminate()
    try:
        return process.wait(timeout=within)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"{name} (pid {process.pid}) ignored SIGTERM for {within} s: killed") from None


def leftover_processes(folder: Path, before: set[int]) -> list[psutil.Process]:
    """The processes a test run left behind: children of this process (but those in ``before``,
    which it had already) and any process whose command line names a path under ``folder`` (the
    run's temporary folders: an embedded PostgreSQL's data folder, a ``pixweb serve``'s
    ``PIX_DATA_DIR``), whoever their parent is now. Exited ones not yet reaped do not count."""
    me = psutil.Process()
    found = {child.pid: child for child in me.children(recursive=True) if child.pid not in before}
    under = str(folder.resolve()) + os.sep
    for process in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if process.pid != me.pid and under in " ".join(process.info["cmdline"] or ()):
                found.setdefault(process.pid, process)
    alive = []
    for process in found.values():
        with contextlib.suppress(psutil.Error):
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
    return alive


def describe(process: psutil.Process) -> str:
    with contextlib.suppress(psutil.Error):
        return f"pid {process.pid}: {' '.join(process.cmdline())[:300]}"
    return f"pid {process.pid} (gone)"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def serving(env: dict[str, str], port: int) -> AsyncIterator[str]:
    """``pixweb serve --no-demo`` with ``env`` on ``port``, once it answers ``/health/ready``;
    its base URL. Stopped on the way out (:func:`stop_process`)."""
    async with serving_process(env, port) as (base, _):
        yield base


@asynccontextmanager
async def serving_process(
    env: dict[str, str], port: int
) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    """:func:`serving`, and the process (a test may stop it before the block ends)."""
    process = await asyncio.create_subprocess_exec(
        Path(sys.executable).parent / "pixweb", "serve", "--no-demo", env=env | {"PIX_PORT": str(port)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                if process.returncode is not None:
                    raise AssertionError(f"pixweb serve exited early ({process.returncode})")
                try:
                    if (await http.get(f"{base}/health/ready")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("pixweb serve did not answer within 30 s")
        yield base, process
    finally:
        await stop_process(process, "pixweb serve")
