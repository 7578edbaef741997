"""The outbox stores where an event goes: ``webhook_type``, the registration type it fans out to.

The outbox adapters write the typed event's ``webhook_type`` beside its payload; the notifier
routes by this column and never reads the payload to route. NULL means the event goes to no
registration. Rows written before this migration get the type from their payload by
:data:`WEBHOOK_TYPE_OF_PAYLOAD`, the rules the notifier applied until now (decisions §9):
RECEIVE to ``cash_in``, TRANSFER to ``cash_out``, REFUND to ``refund_in`` when its
``creditDebitType`` is DEBIT and ``refund_out`` otherwise, MED to ``med_<status>`` for CREATED,
ACCEPTED and REJECTED; anything else to none. So they fan out as they would have.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T01:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "outbox.webhook_type: the route stored with the event"

WEBHOOK_TYPE_OF_PAYLOAD = """
CASE payload->>'type'
    WHEN 'RECEIVE' THEN 'cash_in'
    WHEN 'TRANSFER' THEN 'cash_out'
    WHEN 'REFUND' THEN
        CASE WHEN payload->'data'->>'creditDebitType' = 'DEBIT' THEN 'refund_in' ELSE 'refund_out' END
    WHEN 'MED' THEN
        CASE payload->'data'->>'status'
            WHEN 'CREATED' THEN 'med_created'
            WHEN 'ACCEPTED' THEN 'med_accepted'
            WHEN 'REJECTED' THEN 'med_rejected'
        END
END
"""
"""The registration type of a stored ``payload`` (a jsonb column of that name), or NULL."""

SQL = f"""
ALTER TABLE outbox ADD COLUMN webhook_type varchar(12) CHECK (webhook_type IN ('cash_in', 'cash_out',
    'refund_in', 'refund_out', 'med_created', 'med_accepted', 'med_rejected'));
UPDATE outbox SET webhook_type = {WEBHOOK_TYPE_OF_PAYLOAD};
"""  # noqa: S608 - fixed text


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
