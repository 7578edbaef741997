"""Batches of due-date charges (the standard's ``/lotecobv``).

* ``due_batches``: one row per batch of an account (its id is the client's int32, so the key is
  ``(account_id, id)``), with its description, creation and ``items``: each charge's request in
  the order given, ``{txid, status, createdAt, refusal}`` (``refusal`` the error a refused charge
  got, ``{branch, message, details}``). Listed by ``due_batches_account_created_idx``.
* ``charges.batch_id``: the batch a ``cobv`` was created in (only a ``cobv`` has one), a foreign key
  to its batch of the same account; ``GET /cobv?loteCobVId=`` reads ``charges_account_batch_idx``.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T12:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "batches of due-date charges: due_batches, charges.batch_id"

SQL = """
CREATE TABLE due_batches (
    account_id   bigint       NOT NULL REFERENCES accounts (id),
    id           integer      NOT NULL,
    description  varchar(140) NOT NULL,
    created_at   timestamptz  NOT NULL,
    items        jsonb        NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(items) = 'array'),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX due_batches_account_created_idx ON due_batches (account_id, created_at, id);

ALTER TABLE charges ADD COLUMN batch_id integer;
ALTER TABLE charges ADD CONSTRAINT charges_batch_check CHECK (batch_id IS NULL OR kind = 'cobv');
ALTER TABLE charges ADD CONSTRAINT charges_batch_fk
    FOREIGN KEY (account_id, batch_id) REFERENCES due_batches (account_id, id);
CREATE INDEX charges_account_batch_idx ON charges (account_id, batch_id, created_at, id)
    WHERE batch_id IS NOT NULL;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
