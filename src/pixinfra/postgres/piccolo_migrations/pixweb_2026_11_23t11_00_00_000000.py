"""The sandbox clock belongs to the operator (docs/decisions/sandbox-clock.md).

``accounts.sandbox_admin``: the operator made the account a sandbox administrator
(``pixweb admin account create --sandbox-admin``); only such an account may move the clock
through ``POST /sandbox/clock``.

``idempotency_keys.stored_at``: when the key was stored, by the database's own (real) clock.
``created_at`` is on the service clock, which the sandbox moves forward; purging by it let a
clock move forget a key minutes old, so that a retry debited twice. Keys are purged by
``stored_at`` (existing keys take the migration's moment: they are kept a full period more).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-23T11:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "sandbox administrators; idempotency keys kept by real time"

SQL = """
ALTER TABLE accounts ADD COLUMN sandbox_admin boolean NOT NULL DEFAULT false;

ALTER TABLE idempotency_keys ADD COLUMN stored_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX idempotency_keys_stored_idx ON idempotency_keys (stored_at);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
