"""The database keeps the ledger honest by itself, whatever the code does (docs/decisions/ledger.md).

Three triggers on ``ledger_entries``:
- ``ledger_entries_balanced``: at COMMIT, the entries of every transaction that
  got entries sum to zero (a deferred constraint trigger: a posting's lines may
  be written one by one, but an unbalanced posting never commits);
- ``ledger_entries_outside``: an outside entry never names the institution of one
  of our accounts (money between two of our accounts never leaves the service);
  ``accounts_number_unique`` (ispb, branch, number) serves its lookup;
- ``ledger_entries_append_only``: entries are never updated or deleted.

An embedded server loads plpgsql from its own installation when a trigger first
runs in a connection (docs/operations.md says what that asks of the folder).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T00:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "balanced, append-only ledger: the database's own guards"

SQL = """
CREATE FUNCTION ledger_transaction_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total bigint;
BEGIN
    SELECT sum(amount) INTO total FROM ledger_entries WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger: the entries of transaction % sum to %, not 0', NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced
    AFTER INSERT ON ledger_entries DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balances();

CREATE FUNCTION ledger_outside_is_not_ours() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE ispb = NEW.institution) THEN
        RAISE EXCEPTION 'ledger: institution % is this service''s own (money between our accounts stays)',
            NEW.institution USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER ledger_entries_outside
    BEFORE INSERT ON ledger_entries
    FOR EACH ROW WHEN (NEW.institution IS NOT NULL) EXECUTE FUNCTION ledger_outside_is_not_ours();

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger: entries are never changed or deleted (post a correcting entry instead)'
        USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER ledger_entries_append_only
    BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
