"""The outbox stores where an event goes: ``webhook_type``, the registration type it fans out to.

The outbox adapters write the typed event's ``webhook_type`` beside its payload; the notifier
routes by this column and never reads the payload to route. NULL means the event goes to no
registration.

``outbox_webhook_type(payload)`` holds the rules the notifier applied to a payload until then:
RECEIVE to ``cash_in``, TRANSFER to ``cash_out``, REFUND to ``refund_in`` when its
``creditDebitType`` is DEBIT and ``refund_out`` otherwise, MED to ``med_<status>`` for CREATED,
ACCEPTED and REJECTED; anything else to none. It serves twice, so that no event is routed
differently across the upgrade:

* rows written before this migration get their type from it (the backfill);
* ``outbox_route_unrouted``: a row inserted without a type gets it too. The previous version
  writes no ``webhook_type``, and it still runs beside this one during a rolling update
  (docs/operations.md): without the trigger its events would go nowhere. This version always
  writes the type (every typed event has one), so the trigger only serves the previous version;
  a later release may drop it.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T01:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "outbox.webhook_type: the route stored with the event"

SQL = """
CREATE OR REPLACE FUNCTION outbox_webhook_type(payload jsonb) RETURNS varchar(12)
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE payload->>'type'
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
$$;

ALTER TABLE outbox ADD COLUMN webhook_type varchar(12) CHECK (webhook_type IN ('cash_in', 'cash_out',
    'refund_in', 'refund_out', 'med_created', 'med_accepted', 'med_rejected'));
UPDATE outbox SET webhook_type = outbox_webhook_type(payload);

CREATE OR REPLACE FUNCTION outbox_route_unrouted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.webhook_type := outbox_webhook_type(NEW.payload);
    RETURN NEW;
END
$$;
CREATE TRIGGER outbox_route_unrouted
    BEFORE INSERT ON outbox
    FOR EACH ROW WHEN (NEW.webhook_type IS NULL) EXECUTE FUNCTION outbox_route_unrouted();
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
