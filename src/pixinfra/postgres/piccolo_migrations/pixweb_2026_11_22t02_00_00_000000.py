"""Charges (``cob``) and cash-ins: one row per charge, the payload location its BR Code points at.

A txid is unique per account (another account's txids are none of the
caller's business, so they can neither collide nor be probed), a cash-in's
external id likewise; the location id is unique everywhere, since the payer's
PSP finds the charge by it alone.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-22T02:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges and cash-ins"

SQL = """
CREATE TABLE charges (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id          bigint       NOT NULL REFERENCES accounts (id),
    txid                varchar(35)  NOT NULL CHECK (txid ~ '^[a-zA-Z0-9]{26,35}$'),
    kind                varchar(6)   NOT NULL CHECK (kind IN ('cob', 'cashin')),
    status              varchar(31)  NOT NULL CHECK (status IN ('ATIVA', 'CONCLUIDA',
                        'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP')),
    revision            integer      NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_at          timestamptz  NOT NULL,
    updated_at          timestamptz  NOT NULL,
    expiration          integer      NOT NULL CHECK (expiration >= 1),
    expires_at          timestamptz  NOT NULL,
    amount              bigint       NOT NULL CHECK (amount >= 0),
    modality            smallint     NOT NULL CHECK (modality IN (0, 1)),
    pix_key             varchar(77)  NOT NULL,
    payer_request       varchar(140),
    debtor_name         varchar(200),
    debtor_document     varchar(14),
    info                jsonb        NOT NULL DEFAULT '[]'::jsonb,
    location_id         char(32)     NOT NULL UNIQUE,
    location            varchar(77)  NOT NULL,
    br_code             varchar(512) NOT NULL,
    external_id         varchar(100),
    correlation_id      uuid,
    transaction_id      bigint       REFERENCES transactions (id),
    paid_end_to_end_id  varchar(32),
    paid_at             timestamptz,
    UNIQUE (account_id, txid),
    CHECK ((debtor_name IS NULL) = (debtor_document IS NULL)),
    CHECK (amount > 0 OR modality = 1),
    CHECK ((status = 'CONCLUIDA') = (paid_at IS NOT NULL)),
    CHECK (kind = 'cob' OR (external_id IS NOT NULL AND transaction_id IS NOT NULL))
);
CREATE UNIQUE INDEX charges_external_id_idx ON charges (account_id, external_id)
    WHERE external_id IS NOT NULL;
CREATE INDEX charges_expiry_idx ON charges (expires_at) WHERE status = 'ATIVA';
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
