"""Ledger and transfers: transactions, ledger entries, transfers, idempotency keys, the outbox,
the sandbox's key directory and clock.

The ledger is double-entry: every posting's entries sum to zero, the outside
world (the settlement network) being the account NULL. A balance row is the
sum of its entries; ``pixweb admin ledger check`` proves it.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-22T00:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "ledger, transactions, transfers, idempotency, outbox, sandbox directory and clock"

SQL = """
CREATE TABLE transactions (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id          bigint       NOT NULL REFERENCES accounts (id),
    type                varchar(10)  NOT NULL
                        CHECK (type IN ('PAYMENT', 'WITHDRAW', 'REFUND_IN', 'REFUND_OUT')),
    status              varchar(9)   NOT NULL CHECK (status IN ('PENDING', 'CONFIRMED', 'ERROR')),
    amount              bigint       NOT NULL CHECK (amount > 0),
    fee                 bigint       NOT NULL DEFAULT 0 CHECK (fee >= 0),
    external_id         varchar(100),
    end_to_end_id       varchar(32),
    pix_key             varchar(77),
    description         varchar(140),
    counterpart_name     varchar(140),
    counterpart_document varchar(14),
    counterpart_ispb     varchar(8),
    counterpart_bank     varchar(100),
    counterpart_branch   varchar(4),
    counterpart_account  varchar(20),
    created_at          timestamptz  NOT NULL,
    updated_at          timestamptz  NOT NULL,
    processed_at        timestamptz
);
CREATE INDEX transactions_account_created_idx ON transactions (account_id, created_at DESC, id DESC);
CREATE INDEX transactions_e2e_idx ON transactions (end_to_end_id) WHERE end_to_end_id IS NOT NULL;

CREATE TABLE ledger_entries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id  bigint      NOT NULL REFERENCES transactions (id),
    posting         varchar(20) NOT NULL,
    account_id      bigint      REFERENCES accounts (id),
    bucket          varchar(9)  NOT NULL CHECK (bucket IN ('available', 'blocked', 'external')),
    amount          bigint      NOT NULL CHECK (amount <> 0),
    created_at      timestamptz NOT NULL,
    CHECK ((account_id IS NULL) = (bucket = 'external'))
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, bucket);
CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id);

CREATE TABLE transfers (
    transaction_id      bigint       PRIMARY KEY REFERENCES transactions (id),
    account_id          bigint       NOT NULL REFERENCES accounts (id),
    idempotency_key     uuid         NOT NULL,
    state               varchar(9)   NOT NULL CHECK (state IN ('PENDING', 'COMPLETED', 'ERROR')),
    priority            varchar(4)   NOT NULL CHECK (priority IN ('HIGH', 'NORM')),
    pix_key             varchar(77)  NOT NULL,
    creditor_document   varchar(14),
    description         varchar(140),
    payment_flow        varchar(100),
    amount              bigint       NOT NULL CHECK (amount > 0),
    end_to_end_id       varchar(32)  NOT NULL UNIQUE,
    receiver_account_id bigint       REFERENCES accounts (id),
    creditor_name       varchar(140) NOT NULL,
    creditor_ispb       varchar(8)   NOT NULL,
    behavior            varchar(6)   NOT NULL CHECK (behavior IN ('settle', 'reject')),
    error_code          varchar(4),
    settle_after        timestamptz  NOT NULL,
    deadline            timestamptz  NOT NULL,
    created_at          timestamptz  NOT NULL,
    finished_at         timestamptz,
    CHECK (receiver_account_id IS DISTINCT FROM account_id)
);
CREATE INDEX transfers_pending_idx ON transfers (settle_after) WHERE state = 'PENDING';
CREATE INDEX transfers_deadline_idx ON transfers (deadline) WHERE state = 'PENDING';

CREATE TABLE idempotency_keys (
    account_id      bigint      NOT NULL REFERENCES accounts (id),
    key             uuid        NOT NULL,
    request_hash    char(64)    NOT NULL,
    transaction_id  bigint      NOT NULL REFERENCES transactions (id),
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

CREATE TABLE outbox (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  bigint      NOT NULL REFERENCES accounts (id),
    event_type  varchar(10) NOT NULL,
    payload     jsonb       NOT NULL,
    created_at  timestamptz NOT NULL
);

CREATE TABLE sandbox_directory (
    key_value       varchar(77)  PRIMARY KEY,
    key_type        varchar(5)   NOT NULL CHECK (key_type IN ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP')),
    ispb            varchar(8)   NOT NULL CHECK (ispb ~ '^[0-9]{8}$'),
    name            varchar(140) NOT NULL,
    document        varchar(14)  NOT NULL,
    bank_name       varchar(100) NOT NULL,
    branch          varchar(4)   NOT NULL,
    account_number  varchar(20)  NOT NULL,
    behavior        varchar(6)   NOT NULL CHECK (behavior IN ('settle', 'reject')),
    created_at      timestamptz  NOT NULL DEFAULT now()
);

CREATE TABLE sandbox_clock (
    id              smallint PRIMARY KEY CHECK (id = 1),
    offset_micros   bigint   NOT NULL CHECK (offset_micros >= 0)
);
INSERT INTO sandbox_clock (id, offset_micros) VALUES (1, 0);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
