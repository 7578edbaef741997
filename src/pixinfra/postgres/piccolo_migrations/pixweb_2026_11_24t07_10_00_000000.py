"""``charges_account_recent_idx``: the console's list of an account's newest charges.

``ChargeRepository.recent`` reads an account's newest charges by id; without this index PostgreSQL
reads every charge of the account through ``(account_id, txid)`` and sorts them, or walks the
primary key backwards through every other account's newer charges. With it, the newest 50 are the
first 50 entries of one range.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T07:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges: an index of each account's charges, newest first"

SQL = """
CREATE INDEX charges_account_recent_idx ON charges (account_id, id);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
