"""Is this process ready for traffic? The database answers, and every migration it knows is applied.

One round trip on the process's pool: ``SELECT 1`` and the count of this code's migrations that
Piccolo's ``migration`` table records, within a short timeout. A load balancer takes a process
out of rotation while :meth:`ReadinessProbe.check` returns a reason.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import cache

import asyncpg

from pixinfra.postgres.pool import Database

__all__ = ["ReadinessProbe", "expected_migrations"]

PROBE = """
SELECT 1 AS alive,
    (SELECT count(*) FROM migration WHERE app_name = 'pixweb' AND name = ANY($1::text[])) AS applied
"""


@cache
def expected_migrations() -> tuple[str, ...]:
    """The ids of the migrations this code ships (what ``pixweb migrate`` applies)."""
    from piccolo.apps.migrations.commands.base import BaseMigrationManager

    from pixinfra.postgres.piccolo_app import APP_CONFIG

    modules = BaseMigrationManager().get_migration_modules(str(APP_CONFIG.migrations_folder_path))
    return tuple(sorted(modules))


@dataclass(slots=True)
class ReadinessProbe:
    """Probes ``database`` (the process's, opened by the app's lifespan)."""

    database: Database
    timeout: float = 2.0

    async def check(self) -> str | None:
        """None when ready; otherwise why not, in a sentence fit for the client."""
        if not self.database.is_open:
            return "The database pool is not open."
        pool = self.database.pool
        migrations = expected_migrations()
        try:
            async with asyncio.timeout(self.timeout), pool.acquire() as conn:
                row = await conn.fetchrow(PROBE, list(migrations))
        except TimeoutError:
            return f"The database did not answer within {self.timeout:g} seconds."
        except asyncpg.UndefinedTableError:
            return "The database has no migrations applied."
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            return "The database is unreachable."
        if row is None or row["applied"] < len(migrations):
            applied = 0 if row is None else row["applied"]
            return f"Migrations are not all applied ({applied} of {len(migrations)})."
        return None
