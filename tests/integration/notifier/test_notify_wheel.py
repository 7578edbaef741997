"""``pip install 'pixservice[notify]'`` gives a working notifier without the web stack.

The wheel is built from this checkout, and installed into an empty virtual environment that
holds only what the ``notify`` extra declares (at the versions of ``uv.lock``, from uv's cache:
no network). Then that environment's ``pixnotify`` migrates a database of its own and delivers
an event, signed, to a receiver on 127.0.0.1. Nothing of the web stack is there: a dependency
the notifier needs but the extra forgot, or an import of ``pixweb`` on its path, fails here.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from pixcore.webhooks.delivery import message_id
from pixcore.webhooks.rules import EventType
from tests.integration.notifier.test_notifier import Tables, new_secret, transfer
from tests.integration.receiver import Receiver, running_receiver
from tests.support import process_env, scratch_database
from tests.support.processes import stop_process

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def _uv() -> str:
    found = shutil.which("uv", path=str(BIN)) or shutil.which("uv")
    assert found, "uv is in the project's environment (tox-uv brings it) or on the PATH"
    return found


def _run(*command: str | Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=300)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def notify_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An environment with the wheel and the ``notify`` extra's dependencies only: its ``bin``."""
    root = tmp_path_factory.mktemp("notify-wheel")
    uv = _uv()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "VIRTUAL_ENV"))}
    env |= {"UV_PYTHON_DOWNLOADS": "never", "UV_PROJECT_ENVIRONMENT": str(root / "venv")}
    _run(uv, "build", "--wheel", "--offline", "--out-dir", root / "dist", ROOT, env=env)
    (wheel,) = (root / "dist").glob("pixservice-*.whl")
    python = Path(sys.base_prefix) / "bin" / Path(sys.executable).name
    # What `pip install 'pixservice[notify]'` resolves, pinned by the lock file (offline, from uv's
    # cache), then the wheel itself, as an index would serve it.
    _run(
        uv, "sync", "--frozen", "--offline", "--extra", "notify", "--no-dev", "--no-install-project",
        "--project", ROOT, "--python", python, env=env,
    )  # fmt: skip
    venv = root / "venv"
    _run(uv, "pip", "install", "--offline", "--python", venv / "bin" / "python",
         f"pixservice[notify] @ {wheel.as_uri()}", env=env)  # fmt: skip
    yield venv / "bin"
    shutil.rmtree(root, ignore_errors=True)


def test_the_notifier_environment_has_no_web_stack(notify_env: Path) -> None:
    python = notify_env / "python"
    # httpx: the notifier's one HTTP client is aiohttp's (docs/decisions/notifier-http-client.md).
    for absent in ("litestar", "uvicorn", "jwt", "argon2", "segno", "httpx", "httpcore"):
        done = subprocess.run([python, "-c", f"import {absent}"], capture_output=True, check=False)
        assert done.returncode != 0, f"{absent} is installed with pixservice[notify]"
    assert "pixservice" in _run(python, "-c", "import pixnotify, pixinfra; print('pixservice')")
    # The project's packages come from the wheel, not from this checkout.
    where = _run(python, "-c", "import pixnotify; print(pixnotify.__file__)")
    assert str(ROOT / "src") not in where
    assert "Deliver webhooks" in _run(notify_env / "pixnotify", "run", "--help")
    assert "webhook notifier" in _run(notify_env / "pixnotify", "--help")


@pytest.fixture
async def empty_database(database_server: str) -> AsyncIterator[str]:
    async with scratch_database(database_server, "pixwheel") as url:
        yield url


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running


async def test_the_wheel_s_notifier_migrates_and_delivers(
    notify_env: Path, empty_database: str, receiver: Receiver, tmp_path: Path
) -> None:
    env = process_env(empty_database, tmp_path)
    # `pixnotify status` brings the database up as `run` does: created tables, from the wheel's migrations.
    status = await asyncio.create_subprocess_exec(
        notify_env / "pixnotify", "status", env=env, stdout=subprocess.PIPE
    )
    out, _ = await status.communicate()
    assert status.returncode == 0
    assert json.loads(out)["pendingDeliveries"] == 0
    conn = await asyncpg.connect(empty_database)
    try:
        account = await conn.fetchval(
            """INSERT INTO accounts (ispb, branch, number, name, document, city)
               VALUES ('99999999', '0001', '00000001', 'Wheel Test', '12345678909', 'RECIFE') RETURNING id"""
        )
        await conn.execute("INSERT INTO balances (account_id) VALUES ($1)", account)
        secret = new_secret()
        tables = Tables(conn)
        await tables.secret(account, secret)
        hook = await tables.webhook(account, receiver.url("/wheel"))
        event = await tables.emit(account, transfer(1), EventType.CASH_OUT)
        log = tmp_path / "notifier.log"
        with log.open("wb") as out_file:
            notifier = await asyncio.create_subprocess_exec(
                notify_env / "pixnotify", "run", "--poll-interval=0.05", env=env, stdout=out_file,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        try:
            await receiver.wait_for(1, "/wheel")
        finally:
            assert await stop_process(notifier, "pixnotify run") == 0, log.read_text()
        (received,) = receiver.at("/wheel")
        assert received.webhook_id == message_id(event, hook)
        assert received.verify(secret) == transfer(1)
        row = await tables.delivery(event, hook)
        assert (row["status"], row["attempts"]) == ("delivered", 1)
    finally:
        await conn.close()
