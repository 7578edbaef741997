"""The standard's webhooks of Pix Automático (``PUT /webhookrec``, ``PUT /webhookcobr``): a
registration of type ``rec`` or ``cobr``, one active per account each.

* ``webhooks.event_type`` takes ``rec`` and ``cobr``.
* ``webhooks.webhook_url`` (the URL the client gave; ``url`` is where the notifier POSTs, with
  ``/rec`` or ``/cobr`` added as the document's callbacks say) is set exactly on the standard's
  registrations (``pix``, ``rec``, ``cobr``); ``pix_key`` still on a ``pix`` one only.
* One active registration per account of each of ``rec`` and ``cobr``
  (``webhooks_active_recurring_idx``).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-30T00:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhooks of types rec and cobr: one per account each, with their webhookUrl"

SQL = """
ALTER TABLE webhooks DROP CONSTRAINT webhooks_event_type_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_event_type_check CHECK (event_type IN ('cash_in', 'cash_out',
    'refund_in', 'refund_out', 'med_created', 'med_accepted', 'med_rejected', 'pix', 'rec', 'cobr'));
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pix_key_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_pix_key_check
    CHECK ((event_type = 'pix') = (pix_key IS NOT NULL)
           AND (event_type IN ('pix', 'rec', 'cobr')) = (webhook_url IS NOT NULL));
CREATE UNIQUE INDEX webhooks_active_recurring_idx ON webhooks (account_id, event_type)
    WHERE is_active AND event_type IN ('rec', 'cobr');
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
