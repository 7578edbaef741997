"""The outside world's ledger accounts.

Every outside entry now names its institution (``institution``, an ISPB): the
outside world has one ledger account per institution, and the sum over every
ledger account, ours and the outside's, is constant (docs/decisions/ledger.md). Entries
written before this migration take the institution of their transaction's
counterpart.

(The database-side guards, plpgsql triggers for balanced postings, no outside
entry of our own institution and append-only entries, are not here yet: the
embedded PostgreSQL failed to load plpgsql in one CI scenario; see the issue.)
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-23T10:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "outside ledger accounts per institution"

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


-- A refund between two of our accounts is one return, seen from both sides: the refunder's
-- sent refund and the payer's received one share its rtrId.
ALTER TABLE refunds DROP CONSTRAINT refunds_rtr_id_key;
ALTER TABLE refunds ADD CONSTRAINT refunds_rtr_id_kind_key UNIQUE (rtr_id, kind);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
