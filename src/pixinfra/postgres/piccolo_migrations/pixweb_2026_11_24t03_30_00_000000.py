"""``webhook_attempts``: one row per attempt of a delivery (docs/decisions/webhook-deliveries.md,
"Webhooks: seeing and testing deliveries").

The notifier inserts an attempt in the statement that stores the delivery's outcome, so a
delivery's ``attempts`` and its rows here never disagree. Nothing here holds a secret or a custom
header's value: the moment, the status code (NULL when no answer came), how long it took, the
error (NULL on an answer) and at most 2048 characters of the answer's body.

``webhook_attempts_delivery_idx`` serves a delivery's log, in order; ``webhook_attempts_at_idx``
the notifier's pruning of rows older than ``PIX_WEBHOOK_ATTEMPT_RETENTION_DAYS``.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T03:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook_attempts: every attempt of a delivery"

SQL = """
CREATE TABLE webhook_attempts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id   bigint       NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at  timestamptz  NOT NULL,
    status_code   integer,
    duration_ms   integer      NOT NULL CHECK (duration_ms >= 0),
    error         varchar(300),
    response_body text         CHECK (char_length(response_body) <= 2048)
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_at_idx ON webhook_attempts (attempted_at);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
