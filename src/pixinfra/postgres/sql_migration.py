"""Migrations written in SQL, run by Piccolo's migration manager inside its transaction (and the
few that compute in Python what SQL cannot, on the same connection)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine import engine_finder
from piccolo.engine.postgres import PostgresEngine

__all__ = ["connection_migration", "sql_migration"]


def connection_migration(
    migration_id: str, description: str, run: Callable[[Any], Awaitable[None]]
) -> MigrationManager:
    """A migration that calls ``run`` with the connection of Piccolo's open transaction (asyncpg's):
    all it writes lands, or none of it."""
    manager = MigrationManager(migration_id=migration_id, app_name="pixweb", description=description)

    async def raw() -> None:
        # The engine Piccolo migrates with (``PICCOLO_CONF``'s ``DB``), whose transaction is open.
        engine = engine_finder()
        if not isinstance(engine, PostgresEngine):
            raise TypeError("migrations run on Piccolo's PostgreSQL engine")
        transaction = engine.current_transaction.get()
        if transaction is None:
            raise RuntimeError("migrations run inside a transaction")
        await run(transaction.connection)

    manager.add_raw(raw)
    return manager


def sql_migration(migration_id: str, description: str, sql: str) -> MigrationManager:
    """A migration that runs ``sql``: all of it lands, or none of it."""

    async def run(connection: Any) -> None:
        await connection.execute(sql)

    return connection_migration(migration_id, description, run)
