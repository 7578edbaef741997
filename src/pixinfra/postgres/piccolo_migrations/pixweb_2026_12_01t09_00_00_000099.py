"""The MED between institutions: ``network_med`` links each refund request of the network's DICT
against a payment we received to the MED case it opened here, until the request is closed at the
DICT (``closed_at``)."""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-12-01T09:00:00:000099"
VERSION = "1.38.0"
DESCRIPTION = "refund requests of the network's DICT and the MED cases they opened"

SQL = """
CREATE TABLE network_med (
    refund_id      uuid         PRIMARY KEY,
    case_id        bigint       NOT NULL UNIQUE REFERENCES med_cases (id),
    account_id     bigint       NOT NULL REFERENCES accounts (id),
    end_to_end_id  varchar(32)  NOT NULL,
    report_id      uuid,
    closed_at      timestamptz
);
CREATE INDEX network_med_open_idx ON network_med (refund_id) WHERE closed_at IS NULL;
COMMENT ON TABLE network_med IS
    'A refund request of the network''s DICT and the MED case it opened here, until closed at the DICT';
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
