"""Refunds and MED cases.

``refunds`` holds the refunds we send (``sent``: of a receipt, to its payer)
and those we receive (``received``: of one of our transfers). A sent refund's
id is unique per original transaction (the path is ``/pix/{e2eid}/devolucao/{id}``);
every refund has its own transaction record and a unique return id (rtrId).
A receipt has at most one open MED case.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-22T03:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "refunds and MED cases"

SQL = """
CREATE TABLE med_cases (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id              bigint      NOT NULL REFERENCES accounts (id),
    original_transaction_id bigint      NOT NULL REFERENCES transactions (id),
    end_to_end_id           varchar(32) NOT NULL,
    reason                  varchar(15) NOT NULL CHECK (reason IN ('MED_FRAUDE', 'MED_OPERACIONAL')),
    status                  varchar(8)  NOT NULL CHECK (status IN ('CREATED', 'ACCEPTED', 'REJECTED')),
    amount                  bigint      NOT NULL CHECK (amount > 0),
    blocked                 bigint      NOT NULL CHECK (blocked >= 0 AND blocked <= amount),
    created_at              timestamptz NOT NULL,
    finished_at             timestamptz,
    CHECK ((status = 'CREATED') = (finished_at IS NULL))
);
CREATE UNIQUE INDEX med_cases_open_idx ON med_cases (original_transaction_id) WHERE status = 'CREATED';
CREATE INDEX med_cases_account_idx ON med_cases (account_id, id);

CREATE TABLE refunds (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind                    varchar(8)   NOT NULL CHECK (kind IN ('sent', 'received')),
    account_id              bigint       NOT NULL REFERENCES accounts (id),
    original_transaction_id bigint       NOT NULL REFERENCES transactions (id),
    refund_id               varchar(35)  NOT NULL CHECK (refund_id ~ '^[a-zA-Z0-9]{1,35}$'),
    rtr_id                  char(32)     NOT NULL UNIQUE,
    amount                  bigint       NOT NULL CHECK (amount > 0),
    nature                  varchar(15)  NOT NULL
                            CHECK (nature IN ('ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE')),
    description             varchar(140),
    status                  varchar(16)  NOT NULL
                            CHECK (status IN ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')),
    reason                  varchar(200),
    reserved                boolean      NOT NULL,
    transaction_id          bigint       NOT NULL UNIQUE REFERENCES transactions (id),
    med_case_id             bigint       REFERENCES med_cases (id),
    requested_at            timestamptz  NOT NULL,
    process_after           timestamptz  NOT NULL,
    finished_at             timestamptz,
    UNIQUE (original_transaction_id, kind, refund_id),
    CHECK ((status = 'EM_PROCESSAMENTO') = (finished_at IS NULL))
);
CREATE INDEX refunds_pending_idx ON refunds (process_after) WHERE status = 'EM_PROCESSAMENTO';
CREATE INDEX refunds_original_idx ON refunds (original_transaction_id, kind);
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
