"""Transaction queries: indexes that answer every list and look-up without a sequential scan.

* ``transactions_account_created_idx`` (account, createdAt, id) now carries
  ``status`` and ``type`` as included columns: a list, its count and its
  status or type filters are index-only scans over the date window, and a deep
  page skips its offset inside the index, reading only the rows it returns.
* ``transactions_account_key_idx``: the pix-key list, the same way per key.
* ``transactions_account_external_idx``: look-ups and filters by externalId.

Look-ups by endToEndId use ``transactions_e2e_idx``, by id the primary key.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-22T02:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "indexes of the transaction queries"

SQL = """
DROP INDEX transactions_account_created_idx;
CREATE INDEX transactions_account_created_idx
    ON transactions (account_id, created_at DESC, id DESC) INCLUDE (status, type);
CREATE INDEX transactions_account_key_idx
    ON transactions (account_id, pix_key, created_at DESC, id DESC) INCLUDE (status, type)
    WHERE pix_key IS NOT NULL;
CREATE INDEX transactions_account_external_idx
    ON transactions (account_id, external_id) WHERE external_id IS NOT NULL;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
