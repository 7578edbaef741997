"""``ledger_closings``: the sums a retention pass carried forward from each month of ledger entries
it let go, per ledger account (our account's bucket, or an outside institution). The ledger check
adds them to the entries, so the books still prove after a month is dropped.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-12-01T02:00:00:000022"
VERSION = "1.38.0"
DESCRIPTION = "ledger_closings: the sums of the ledger months let go"

SQL = """
CREATE TABLE ledger_closings (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    partition varchar(63) NOT NULL,
    account_id bigint REFERENCES accounts(id),
    bucket varchar(9) NOT NULL CHECK (bucket IN ('available', 'blocked', 'external')),
    institution varchar(8),
    amount bigint NOT NULL,
    entries bigint NOT NULL CHECK (entries > 0),
    closed_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((account_id IS NULL) = (bucket = 'external')),
    CHECK ((account_id IS NULL) = (institution IS NOT NULL))
);
CREATE INDEX ledger_closings_account_idx ON ledger_closings (account_id, bucket);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
