"""``pixweb`` processes for tests: their environment, migrating with one, serving with one."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx


def process_env(url: str, data_dir: Path, **variables: str) -> dict[str, str]:
    """This process's environment without its ``PIX_*``, for a ``pixweb``/``pixnotify`` process on
    ``url`` with ``data_dir`` (and ``variables``), webhooks to 127.0.0.1 allowed, warnings only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
    return (
        env
        | {
            "PIX_DATABASE_URL": url,
            "PIX_DATA_DIR": str(data_dir),
            "PIX_WEBHOOK_ALLOW_PRIVATE": "on",
            "PIX_LOG_LEVEL": "WARNING",
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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def serving(env: dict[str, str], port: int) -> AsyncIterator[str]:
    """``pixweb serve --no-demo`` with ``env`` on ``port``, once it answers ``/health/ready``;
    its base URL. Stopped (SIGTERM, then waited for) on the way out."""
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
        yield base
    finally:
        process.terminate()
        await process.wait()
