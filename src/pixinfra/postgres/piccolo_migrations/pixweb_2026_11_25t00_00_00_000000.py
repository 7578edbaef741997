"""The web console's sessions (docs/decisions/console-sessions.md).

``id`` is the SHA-256 (hex) of the random token the browser's cookie holds, never the token: a
copy of the table opens no console. A session is never deleted by the service, only ended
(``ended_at``); ``fingerprint`` is the client certificate its sign-in presented (production
mode binds the session to it). The partial index serves the account's open sessions: the
revocations and ``pixweb admin session`` end or list them.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-25T00:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "console_sessions: the web console's sessions, held on the server"

SQL = """
CREATE TABLE console_sessions (
    id            char(64)     PRIMARY KEY CHECK (id ~ '^[0-9a-f]{64}$'),
    account_id    bigint       NOT NULL REFERENCES accounts (id),
    csrf          varchar(64)  NOT NULL CHECK (length(csrf) >= 32),
    fingerprint   char(64)     CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    created_at    timestamptz  NOT NULL,
    last_seen_at  timestamptz  NOT NULL CHECK (last_seen_at >= created_at),
    ended_at      timestamptz
);
CREATE INDEX console_sessions_open_idx ON console_sessions (account_id) WHERE ended_at IS NULL;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
