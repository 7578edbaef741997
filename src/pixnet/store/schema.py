"""The network's schema, in SQL, applied in order by :func:`migrate`.

The network has a database of its own, apart from any institution's. Its migrations are the SQL
files of ``migrations/`` (``0001_participants_and_entries.sql``, ...), each applied once, in its
own transaction, and remembered in ``pixnet_migrations``; an advisory lock lets one process
migrate at a time (every ``pixnet serve`` migrates at start). Piccolo, which migrates the
service's database, reads its configuration from one module a process (``PICCOLO_CONF``): a
second database in the same process would share it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

__all__ = ["MIGRATIONS_FOLDER", "migrate", "migrations"]

log = logging.getLogger(__name__)

_LOCK = 7_305_112_101  # pg_advisory_lock key: one migrator of the network's database at a time

MIGRATIONS_FOLDER = Path(__file__).with_name("migrations")


def migrations() -> list[tuple[str, str]]:
    """Each migration's name (its file's, without ``.sql``) and SQL, in the order of their names."""
    return [(path.stem, path.read_text(encoding="utf-8")) for path in sorted(MIGRATIONS_FOLDER.glob("*.sql"))]


async def _applied(connection: Any) -> set[str]:
    await connection.execute(
        "CREATE TABLE IF NOT EXISTS pixnet_migrations ("
        " name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
    )
    return {row["name"] for row in await connection.fetch("SELECT name FROM pixnet_migrations")}


async def migrate(connection: Any) -> list[str]:
    """Apply the migrations ``connection``'s database lacks; the names applied."""
    await connection.execute("SELECT pg_advisory_lock($1)", _LOCK)
    try:
        applied = await _applied(connection)
        done = []
        for name, sql in migrations():
            if name in applied:
                continue
            async with connection.transaction():
                await connection.execute(sql)
                await connection.execute("INSERT INTO pixnet_migrations (name) VALUES ($1)", name)
            log.info("network migration applied: %s", name, extra={"migration": name})
            done.append(name)
        return done
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _LOCK)
