"""``transactions_account_flows_idx``: the console overview's money in and out per day.

A partial index of the settled (``CONFIRMED``) records by account and creation time, carrying
type, amount and fee: the daily sums of the last 30 days (``daily_flows_statement``) are one
index-only range scan, whatever else the account holds, instead of reading every row of the
window from the table.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T04:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "transactions: an index of the settled records for the daily money in and out"

SQL = """
CREATE INDEX transactions_account_flows_idx
    ON transactions (account_id, created_at) INCLUDE (type, amount, fee)
    WHERE status = 'CONFIRMED';
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
