"""Due-date charges (``cobv``) in the ``charges`` table (docs/decisions/due-charges.md).

A ``cobv`` is a charge of kind ``cobv`` whose terms (the standard's ``calendario`` and ``valor``
of a ``cobv``, in their wire form) are kept in ``terms``; ``amount`` is its ``valor.original``
and ``expires_at`` the end of its last payable day, so that locking, the expiry sweep, the
receipts' ``txid`` and the console's lists treat it as any other charge. The database holds
the rules the money depends on: a ``cobv`` has terms (and only a ``cobv``), a debtor, a fixed
amount above zero.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T10:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges: due-date charges (cobv) with their terms"

SQL = """
ALTER TABLE charges ADD COLUMN terms jsonb;
ALTER TABLE charges DROP CONSTRAINT charges_kind_check;
ALTER TABLE charges ADD CONSTRAINT charges_kind_check CHECK (kind IN ('cob', 'cashin', 'cobv'));
ALTER TABLE charges DROP CONSTRAINT charges_check3;
ALTER TABLE charges ADD CONSTRAINT charges_cash_in_check
    CHECK (kind <> 'cashin' OR (external_id IS NOT NULL AND transaction_id IS NOT NULL));
ALTER TABLE charges ADD CONSTRAINT charges_cobv_check CHECK (
    (kind = 'cobv') = (terms IS NOT NULL)
    AND (kind <> 'cobv' OR (debtor_document IS NOT NULL AND amount > 0 AND modality = 0))
);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
