"""Databases of a test's own, migrated by a process of their own: Piccolo's migration table keeps
the first engine a process gives it, and the test process's is the run's database."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from pixinfra.postgres.database import with_database

__all__ = ["forwards", "own_database"]

_FORWARDS = """
import asyncio, io, sys
from contextlib import redirect_stdout

import pixinfra.runtime  # noqa: F401 - Piccolo's configuration module
from piccolo.apps.migrations.commands.forwards import run_forwards
from piccolo.engine.postgres import PostgresEngine

from pixinfra.postgres.database import migrate
from pixinfra.postgres.piccolo_conf import migrating


async def main(url, migration_id):
    if migration_id == "all":
        await migrate(url)
        return
    migrating.set(PostgresEngine(config={"dsn": url}, extensions=()))
    with redirect_stdout(io.StringIO()):
        result = await run_forwards(app_name="pixweb", migration_id=migration_id)
    if not result.success:
        sys.exit(result.message)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def forwards(url: str, migration_id: str) -> None:
    """Migrate ``url`` up to ``migration_id`` ("all": every one) in a process of its own: Piccolo's
    migration table keeps the first engine a process gives it (this one's is the run's database)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _FORWARDS, url, migration_id, stderr=asyncio.subprocess.PIPE
    )
    _, errors = await process.communicate()
    assert process.returncode == 0, errors.decode()


@asynccontextmanager
async def own_database(server_url: str, prefix: str) -> AsyncIterator[str]:
    """The URL of a new empty database on ``server_url``, dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield with_database(server_url, name)
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
