"""Foundation schema: accounts, balances, PIX keys, client credentials and certificates.

Written by hand in SQL rather than generated: the rules that money depends on
(balances never negative, one owner per key) are enforced here by the database
itself, with CHECK constraints and unique indexes that Piccolo's generator
does not express.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-21T23:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "accounts, balances, keys, credentials, certificates"

SQL = """
CREATE TABLE accounts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ispb        varchar(8)   NOT NULL CHECK (ispb ~ '^[0-9]{8}$'),
    branch      varchar(4)   NOT NULL CHECK (branch ~ '^[0-9]{4}$'),
    number      varchar(20)  NOT NULL CHECK (number ~ '^[0-9]{1,20}$'),
    name        varchar(140) NOT NULL CHECK (length(btrim(name)) > 0),
    document    varchar(14)  NOT NULL CHECK (document ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$'),
    city        varchar(60)  NOT NULL,
    created_at  timestamptz  NOT NULL DEFAULT now(),
    CONSTRAINT accounts_number_unique UNIQUE (ispb, branch, number)
);

CREATE TABLE balances (
    account_id  bigint      PRIMARY KEY REFERENCES accounts (id),
    available   bigint      NOT NULL DEFAULT 0 CONSTRAINT balances_available_nonneg CHECK (available >= 0),
    blocked     bigint      NOT NULL DEFAULT 0 CONSTRAINT balances_blocked_nonneg CHECK (blocked >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pix_keys (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  bigint      NOT NULL REFERENCES accounts (id),
    key_type    varchar(5)  NOT NULL CHECK (key_type IN ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP')),
    key_value   varchar(77) NOT NULL CONSTRAINT pix_keys_value_unique UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pix_keys_account_idx ON pix_keys (account_id, id);

CREATE TABLE client_credentials (
    client_id   varchar(64) PRIMARY KEY,
    account_id  bigint      NOT NULL REFERENCES accounts (id),
    secret_hash text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX client_credentials_account_idx ON client_credentials (account_id);

CREATE TABLE client_certificates (
    fingerprint varchar(64) PRIMARY KEY CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    account_id  bigint      NOT NULL REFERENCES accounts (id),
    subject     text        NOT NULL,
    not_before  timestamptz NOT NULL,
    not_after   timestamptz NOT NULL,
    linked_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX client_certificates_account_idx ON client_certificates (account_id);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
