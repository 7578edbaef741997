"""``idempotency_keys_taken(account, keys, locks)``: whether any of ``keys`` of ``account`` is
claimed, judged under the keys' advisory locks (``pixinfra.persistence.idempotency``), taken first
in the order of ``locks`` and held until the transaction ends.

A transfer group's write calls it from inside its one statement (``persistence.transfer_groups``).
The function is VOLATILE, so its look-up runs on a snapshot of its own, taken once the locks are
had: it sees every claim committed before, which the calling statement's snapshot, older, may not.
So a group's write stays one round trip, and the balance row's lock is held only inside the server.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-12-01T05:00:00:000055"
VERSION = "1.38.0"
DESCRIPTION = "idempotency_keys_taken: a claim check under the keys' advisory locks"

SQL = """
CREATE FUNCTION idempotency_keys_taken(account bigint, keys uuid[], locks int[]) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM count(pg_advisory_xact_lock(1, lock)) FROM unnest(locks) AS lock;
    RETURN EXISTS (SELECT FROM idempotency_keys WHERE account_id = account AND key = ANY(keys)
                      AND stored_at > now() - interval '25 hours');
END $$;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
