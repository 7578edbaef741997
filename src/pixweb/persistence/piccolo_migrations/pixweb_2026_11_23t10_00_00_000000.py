"""The outside world's ledger accounts, and the database's own proof that postings balance.

Every outside entry now names its institution (``institution``, an ISPB): the
outside world has one ledger account per institution, and the sum over every
ledger account, ours and the outside's, is constant (decisions §13). Entries
written before this migration take the institution of their transaction's
counterpart.

Three triggers keep the ledger honest whatever the code does:
- ``ledger_entries_balanced``: at COMMIT, the entries of every transaction that
  got entries sum to zero (a deferred constraint trigger: a posting's lines may
  be written one by one, but an unbalanced posting never commits);
- ``ledger_entries_outside``: an outside entry never names the institution of one
  of our accounts (money between two of our accounts never leaves the service);
- ``ledger_entries_append_only``: entries are never updated or deleted.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixweb.persistence.sql_migration import sql_migration

ID = "2026-11-23T10:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "outside ledger accounts per institution; balanced, append-only ledger"

SQL = """
ALTER TABLE ledger_entries ADD COLUMN institution varchar(8);
UPDATE ledger_entries e
   SET institution = coalesce(
       (SELECT t.counterpart_ispb FROM transactions t
         WHERE t.id = e.transaction_id AND t.counterpart_ispb ~ '^[0-9]{8}$'),
       '00000000')
 WHERE e.account_id IS NULL;
ALTER TABLE ledger_entries
    ADD CONSTRAINT ledger_entries_institution_check
    CHECK ((account_id IS NULL) = (institution IS NOT NULL) AND institution ~ '^[0-9]{8}$');
CREATE INDEX ledger_entries_institution_idx ON ledger_entries (institution) WHERE institution IS NOT NULL;

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

-- A refund between two of our accounts is one return, seen from both sides: the refunder's
-- sent refund and the payer's received one share its rtrId.
ALTER TABLE refunds DROP CONSTRAINT refunds_rtr_id_key;
ALTER TABLE refunds ADD CONSTRAINT refunds_rtr_id_kind_key UNIQUE (rtr_id, kind);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
