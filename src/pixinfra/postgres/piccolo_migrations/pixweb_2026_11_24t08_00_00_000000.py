"""A notification on the ``pix_outbox`` channel when outbox rows are written.

The notifier fans events out when it polls (``PIX_NOTIFY_POLL_INTERVAL``, 0.1 s): an event
committed just after a poll waited a whole interval, and the commit-to-received p99 at 100
events/s was about 190 ms (bench/webhooks.py, target 150 ms). With this trigger the committing
transaction notifies the channel (once per statement, and PostgreSQL folds identical
notifications of one transaction into one, delivered at COMMIT only), the notifier, listening,
fans out at once, and polling stays as the fallback when the listening connection is lost.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T08:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "notify pix_outbox when outbox rows are written"

SQL = """
CREATE FUNCTION pix_outbox_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pix_outbox', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER outbox_written AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION pix_outbox_written();
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
