"""Webhooks per key (the standard's ``PUT /webhook/{chave}``): a registration of type ``pix`` for
one key of the account, and the outbox's route to it.

* ``webhooks.pix_key`` and ``webhooks.webhook_url``: set exactly on a ``pix`` registration, the
  key and the ``webhookUrl`` the client gave (``url`` is where the notifier POSTs:
  ``webhookUrl`` with ``/pix`` added to its path, as the standard's callback says).
* One active registration per key of an account (``webhooks_active_key_idx``); the unique index
  of active URLs per event type no longer covers ``pix`` ones (two keys may share a receiver).
* ``outbox.pix_key``: the key a ``pix`` event was received on; the fan-out matches it with the
  registration's key. Other events leave it NULL.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T10:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhooks per key: webhooks.pix_key, webhooks.webhook_url, outbox.pix_key"

SQL = """
ALTER TABLE webhooks DROP CONSTRAINT webhooks_event_type_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_event_type_check CHECK (event_type IN ('cash_in', 'cash_out',
    'refund_in', 'refund_out', 'med_created', 'med_accepted', 'med_rejected', 'pix'));
ALTER TABLE webhooks ADD COLUMN pix_key varchar(77);
ALTER TABLE webhooks ADD COLUMN webhook_url varchar(2048);
ALTER TABLE webhooks ADD CONSTRAINT webhooks_pix_key_check
    CHECK ((event_type = 'pix') = (pix_key IS NOT NULL) AND (pix_key IS NULL) = (webhook_url IS NULL));
DROP INDEX webhooks_active_url_idx;
CREATE UNIQUE INDEX webhooks_active_url_idx ON webhooks (account_id, event_type, url)
    WHERE is_active AND pix_key IS NULL;
CREATE UNIQUE INDEX webhooks_active_key_idx ON webhooks (account_id, pix_key)
    WHERE is_active AND pix_key IS NOT NULL;

ALTER TABLE outbox DROP CONSTRAINT outbox_webhook_type_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_webhook_type_check CHECK (webhook_type IN ('cash_in', 'cash_out',
    'refund_in', 'refund_out', 'med_created', 'med_accepted', 'med_rejected', 'pix'));
ALTER TABLE outbox ADD COLUMN pix_key varchar(77);
ALTER TABLE outbox ADD CONSTRAINT outbox_pix_key_check CHECK ((webhook_type = 'pix') = (pix_key IS NOT NULL));
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
