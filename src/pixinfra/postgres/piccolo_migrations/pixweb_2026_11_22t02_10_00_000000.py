"""Webhooks: registrations, the per-account signing secret, and deliveries fanned out from the outbox.

An outbox row is consumed once (``dispatched_at``) in the same transaction that
creates one delivery per active registration of its event type; each delivery
then carries its own retry schedule (``next_attempt_at``) and is claimed with
``FOR UPDATE SKIP LOCKED``, so any number of notifiers can run at once.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-22T02:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook registrations, secrets and deliveries"

SQL = """
CREATE TABLE webhooks (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id          bigint        NOT NULL REFERENCES accounts (id),
    event_type          varchar(12)   NOT NULL CHECK (event_type IN ('cash_in', 'cash_out', 'refund_in',
                        'refund_out', 'med_created', 'med_accepted', 'med_rejected')),
    url                 varchar(2048) NOT NULL,
    headers             jsonb         NOT NULL DEFAULT '{}'::jsonb,
    version             integer       NOT NULL DEFAULT 1 CHECK (version >= 1),
    is_active           boolean       NOT NULL DEFAULT true,
    created_at          timestamptz   NOT NULL,
    updated_at          timestamptz   NOT NULL,
    deactivated_at      timestamptz,
    deactivation_reason varchar(40)
);
CREATE UNIQUE INDEX webhooks_active_url_idx ON webhooks (account_id, event_type, url) WHERE is_active;
CREATE INDEX webhooks_account_idx ON webhooks (account_id, event_type) WHERE is_active;

CREATE TABLE webhook_secrets (
    account_id      bigint      PRIMARY KEY REFERENCES accounts (id),
    secret          varchar(80) NOT NULL CHECK (secret LIKE 'whsec\\_%'),
    previous_secret varchar(80) CHECK (previous_secret LIKE 'whsec\\_%'),
    previous_until  timestamptz,
    created_at      timestamptz NOT NULL,
    rotated_at      timestamptz,
    CHECK ((previous_secret IS NULL) = (previous_until IS NULL))
);

ALTER TABLE outbox ADD COLUMN dispatched_at timestamptz;
CREATE INDEX outbox_undispatched_idx ON outbox (id) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_deliveries (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id       varchar(64)  NOT NULL UNIQUE,
    outbox_id        bigint       NOT NULL REFERENCES outbox (id),
    webhook_id       bigint       NOT NULL REFERENCES webhooks (id),
    account_id       bigint       NOT NULL REFERENCES accounts (id),
    status           varchar(9)   NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         integer      NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_error       varchar(300),
    created_at       timestamptz  NOT NULL,
    finished_at      timestamptz,
    UNIQUE (outbox_id, webhook_id),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_account_idx ON webhook_deliveries (account_id, created_at DESC, id DESC);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
