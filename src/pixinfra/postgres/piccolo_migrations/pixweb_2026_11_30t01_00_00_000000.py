"""A ``cob``'s Pix Saque or Pix Troco (the standard's ``valor.retirada``), kept in ``charges`` and
in each revision kept in ``charge_revisions``: ``withdrawal``, a JSON object (``kind`` ``saque``
or ``troco``, ``amount`` in centavos, ``modality``, ``agent``, ``facilitator``), NULL for a charge
without one. Only a ``cob`` has one; a charge from before has none.

A Pix Saque asks 0.00 of ``original`` with the modality 0: the rule that a charge of 0.00 lets the
payer choose the amount (``amount > 0 OR modality = 1``) gives way to one that allows it too.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-30T01:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges, charge_revisions: a cob's withdrawal (Pix Saque, Pix Troco)"

SQL = """
DO $$
DECLARE name text;
BEGIN
    SELECT conname INTO STRICT name FROM pg_constraint
     WHERE conrelid = 'charges'::regclass AND contype = 'c'
       AND pg_get_constraintdef(oid) = 'CHECK (((amount > 0) OR (modality = 1)))';
    EXECUTE format('ALTER TABLE charges DROP CONSTRAINT %I', name);
END $$;
ALTER TABLE charges ADD COLUMN withdrawal jsonb,
    ADD CONSTRAINT charges_withdrawal_check CHECK (withdrawal IS NULL OR (kind = 'cob'
        AND withdrawal->>'kind' IN ('saque', 'troco') AND (withdrawal->>'amount')::bigint >= 0)),
    ADD CONSTRAINT charges_amount_check1 CHECK (amount > 0 OR modality = 1 OR withdrawal->>'kind' = 'saque');
ALTER TABLE charge_revisions ADD COLUMN withdrawal jsonb;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
