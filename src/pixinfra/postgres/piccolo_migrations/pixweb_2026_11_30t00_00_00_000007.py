"""Read-your-writes with a read replica: ``read_marks`` holds, per account, the primary's WAL
position (in bytes, ``pg_lsn - '0/0'``) after that account's client last wrote; a read sent to the
replica waits until the replica has replayed it (``pixinfra.postgres.replica``).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-30T00:00:00:000007"
VERSION = "1.38.0"
DESCRIPTION = "read_marks: each account's last write position, for reads from a replica"

SQL = """
CREATE TABLE read_marks (
    account_id bigint PRIMARY KEY REFERENCES accounts (id),
    lsn bigint NOT NULL CHECK (lsn >= 0)
);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
