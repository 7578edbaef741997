"""The balanced-entries check reads one month of ``ledger_entries``, not all of them.

At COMMIT, ``ledger_transaction_balances`` summed every entry of the inserted row's transaction:
a look-up of every monthly partition (the months ahead and the default one included) for each
entry of each posting, while the hot account's row lock is held until that COMMIT.

It now sums the entries of the transaction written at the row's own ``created_at``. The entries
of one posting are written by one statement with one ``created_at`` (``pixinfra.persistence.ledger``
and ``transfer_groups``), so every posting is still checked whole, and the sum is read from the one
partition that time falls in (pruned when the query runs). What is guaranteed does not weaken:
every group of a transaction's entries sharing a time sums to zero at the COMMIT that wrote it,
and a transaction's entries are the union of such groups, so they sum to zero too.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-12-01T08:00:00:000088"
VERSION = "1.38.0"
DESCRIPTION = "the balanced-entries check reads the posting's own month"

SQL = """
CREATE OR REPLACE FUNCTION ledger_transaction_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total bigint;
BEGIN
    SELECT sum(amount) INTO total FROM ledger_entries
     WHERE transaction_id = NEW.transaction_id AND created_at = NEW.created_at;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger: the entries of transaction % sum to %, not 0', NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
