"""A paid Pix Saque or Pix Troco keeps the parts of its amount in ``charges.paid_parts``, as a
paid ``cobv`` does: the purchase (``original``) and the cash (``cash``: its kind, amount, agent and
facilitator), the standard's ``componentesValor``. The rule that only a ``cobv`` keeps parts gives
way to one that lets a ``cob`` with a withdrawal keep them too. Payments from before keep none
(their ``componentesValor`` stays their whole amount as ``original``).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-12-01T00:00:00:000011"
VERSION = "1.38.0"
DESCRIPTION = "charges: a paid Pix Saque or Troco keeps its purchase and cash parts"

SQL = """
DO $$
DECLARE name text;
BEGIN
    SELECT conname INTO STRICT name FROM pg_constraint
     WHERE conrelid = 'charges'::regclass AND contype = 'c'
       AND pg_get_constraintdef(oid) LIKE 'CHECK (((paid_parts IS NULL) OR %';
    EXECUTE format('ALTER TABLE charges DROP CONSTRAINT %I', name);
END $$;
ALTER TABLE charges ADD CONSTRAINT charges_paid_parts_check CHECK (paid_parts IS NULL
    OR (status = 'CONCLUIDA' AND (kind = 'cobv' OR (kind = 'cob' AND withdrawal IS NOT NULL))));
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
