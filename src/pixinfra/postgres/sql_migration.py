"""Migrations written in SQL, run by Piccolo's migration manager inside its transaction."""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine import engine_finder
from piccolo.engine.postgres import PostgresEngine

__all__ = ["sql_migration"]


def sql_migration(migration_id: str, description: str, sql: str) -> MigrationManager:
    """A migration that runs ``sql``: all of it lands, or none of it."""
    manager = MigrationManager(migration_id=migration_id, app_name="pixweb", description=description)

    async def run() -> None:
        # The engine Piccolo migrates with (``PICCOLO_CONF``'s ``DB``), whose transaction is open.
        engine = engine_finder()
        if not isinstance(engine, PostgresEngine):
            raise TypeError("migrations run on Piccolo's PostgreSQL engine")
        transaction = engine.current_transaction.get()
        if transaction is None:
            raise RuntimeError("migrations run inside a transaction")
        await transaction.connection.execute(sql)

    manager.add_raw(run)
    return manager
