"""Pix Automático: recurrences, their requests for authorization, recurring charges with their
attempts, recurrence locations, and the sandbox's payers' balances.

* ``recurrence_locations``: ``/locrec``; a location serves at most one recurrence
  (``recurrences_loc_idx``), of its own account (the foreign key on ``(loc_id, account_id)``).
* ``recurrences``: ``idRec`` unique, its second letter the retry policy's (``R``/``N``);
  ``valorRec`` and ``valorMinimoRecebedor`` never both; an APROVADA one has its payer.
* ``recurrence_requests``: ``idSolicRec`` unique; one open request (CRIADA, ENVIADA, RECEBIDA) per
  recurrence (``recurrence_requests_open_idx``).
* ``recurring_charges``: a txid once per account; one charge per cycle of its recurrence unless
  REJEITADA or CANCELADA (``recurring_charges_cycle_idx``); CONCLUIDA exactly when it has its
  PAYMENT record (one charge per record).
* ``recurring_charge_attempts``: numbered 0 (AGND) to 3 (three retries at most), one per date, at
  most one pending (SOLICITADA or AGENDADA) per charge, each under its own end-to-end id.
* ``sandbox_payers``: a payer's balance at their bank, never below zero (the guarded debit's
  ``UPDATE ... WHERE balance >= $1`` behind the code's own rule).
* ``outbox.webhook_type`` takes ``rec`` and ``cobr``, the routes of the REC and COBR events.

Statuses and histories are stored as the standard names them; a history (``atualizacao``) is a
JSON array of ``{"status", "at"}`` and a closing (``encerramento``) a JSON object
``{"kind", "code", "description", "requester"}``.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-29T00:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "Pix Automático: recurrences, requests, recurring charges and attempts, locations, payers"

SQL = """
CREATE TABLE recurrence_locations (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  bigint      NOT NULL REFERENCES accounts (id),
    token       varchar(32) NOT NULL UNIQUE CHECK (token ~ '^[0-9a-f]{32}$'),
    created_at  timestamptz NOT NULL,
    UNIQUE (id, account_id)
);
CREATE INDEX recurrence_locations_account_idx ON recurrence_locations (account_id, created_at, id);

CREATE TABLE recurrences (
    id               bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id       bigint       NOT NULL REFERENCES accounts (id),
    rec_id           varchar(29)  NOT NULL UNIQUE CHECK (rec_id ~ '^R[RN][0-9A-Za-z]{27}$'),
    contract         varchar(35)  NOT NULL,
    debtor_document  varchar(14)  NOT NULL,
    debtor_name      varchar(140) NOT NULL,
    purpose          varchar(35),
    start_date       date         NOT NULL,
    end_date         date,
    periodicity      varchar(10)  NOT NULL
        CHECK (periodicity IN ('SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL')),
    fixed_amount     bigint       CHECK (fixed_amount > 0),
    minimum_amount   bigint       CHECK (minimum_amount > 0),
    retry_policy     varchar(13)  NOT NULL CHECK (retry_policy IN ('NAO_PERMITE', 'PERMITE_3R_7D')),
    agreement        varchar(60),
    loc_id           bigint,
    journey_txid     varchar(35)  CHECK (journey_txid ~ '^[A-Za-z0-9]{26,35}$'),
    status           varchar(9)   NOT NULL
        CHECK (status IN ('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
    history          jsonb        NOT NULL,
    journey          varchar(20)  NOT NULL CHECK (journey IN
        ('JORNADA_1', 'JORNADA_2', 'JORNADA_3', 'JORNADA_4', 'AGUARDANDO_DEFINICAO')),
    payer_document   varchar(14),
    payer_ispb       varchar(8)   CHECK (payer_ispb ~ '^[0-9]{8}$'),
    payer_city_code  varchar(7),
    closing          jsonb,
    created_at       timestamptz  NOT NULL,
    updated_at       timestamptz  NOT NULL,
    CHECK (end_date IS NULL OR end_date >= start_date),
    CHECK (fixed_amount IS NULL OR minimum_amount IS NULL),
    CHECK (substr(rec_id, 2, 1) = CASE retry_policy WHEN 'PERMITE_3R_7D' THEN 'R' ELSE 'N' END),
    CHECK ((payer_document IS NULL) = (payer_ispb IS NULL)),
    CHECK (status <> 'APROVADA' OR (payer_document IS NOT NULL AND journey <> 'AGUARDANDO_DEFINICAO')),
    FOREIGN KEY (loc_id, account_id) REFERENCES recurrence_locations (id, account_id)
);
CREATE UNIQUE INDEX recurrences_loc_idx ON recurrences (loc_id) WHERE loc_id IS NOT NULL;
CREATE INDEX recurrences_account_idx ON recurrences (account_id, created_at, id);

CREATE TABLE recurrence_requests (
    id                   bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id           bigint      NOT NULL REFERENCES accounts (id),
    request_id           varchar(29) NOT NULL UNIQUE CHECK (request_id ~ '^SC[0-9A-Za-z]{27}$'),
    recurrence_id        bigint      NOT NULL REFERENCES recurrences (id),
    recipient_document   varchar(14) NOT NULL,
    recipient_ispb       varchar(8)  NOT NULL CHECK (recipient_ispb ~ '^[0-9]{8}$'),
    recipient_city_code  varchar(7),
    recipient_account    varchar(20) NOT NULL,
    recipient_branch     varchar(4),
    expires_at           timestamptz NOT NULL,
    status               varchar(9)  NOT NULL CHECK (status IN
        ('CRIADA', 'ENVIADA', 'RECEBIDA', 'ACEITA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
    history              jsonb       NOT NULL,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    CHECK (expires_at > created_at)
);
CREATE UNIQUE INDEX recurrence_requests_open_idx ON recurrence_requests (recurrence_id)
    WHERE status IN ('CRIADA', 'ENVIADA', 'RECEBIDA');

CREATE TABLE recurring_charges (
    id                     bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id             bigint       NOT NULL REFERENCES accounts (id),
    txid                   varchar(35)  NOT NULL CHECK (txid ~ '^[A-Za-z0-9]{26,35}$'),
    recurrence_id          bigint       NOT NULL REFERENCES recurrences (id),
    cycle                  integer      NOT NULL CHECK (cycle >= 0),
    amount                 bigint       NOT NULL CHECK (amount > 0),
    due_date               date         NOT NULL,
    first_date             date         NOT NULL,
    adjust                 boolean      NOT NULL,
    retry_policy           varchar(13)  NOT NULL CHECK (retry_policy IN ('NAO_PERMITE', 'PERMITE_3R_7D')),
    information            varchar(140),
    receiver_account       varchar(20)  NOT NULL,
    receiver_branch        varchar(4),
    receiver_account_type  varchar(9)   NOT NULL
        CHECK (receiver_account_type IN ('CORRENTE', 'POUPANCA', 'PAGAMENTO')),
    debtor_email           varchar(200),
    debtor_street          varchar(200),
    debtor_city            varchar(200),
    debtor_state           varchar(2),
    debtor_postal_code     varchar(9),
    status                 varchar(9)   NOT NULL CHECK (status IN
        ('CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA')),
    history                jsonb        NOT NULL,
    closing                jsonb,
    transaction_id         bigint       UNIQUE REFERENCES transactions (id),
    paid_at                timestamptz,
    created_at             timestamptz  NOT NULL,
    updated_at             timestamptz  NOT NULL,
    UNIQUE (account_id, txid),
    CHECK (first_date >= due_date AND (adjust OR first_date = due_date)),
    CHECK ((status = 'CONCLUIDA') = (transaction_id IS NOT NULL)),
    CHECK ((transaction_id IS NULL) = (paid_at IS NULL))
);
CREATE UNIQUE INDEX recurring_charges_cycle_idx ON recurring_charges (recurrence_id, cycle)
    WHERE status NOT IN ('REJEITADA', 'CANCELADA');
CREATE INDEX recurring_charges_account_idx ON recurring_charges (account_id, created_at, id);
CREATE INDEX recurring_charges_live_idx ON recurring_charges (first_date, id)
    WHERE status IN ('CRIADA', 'ATIVA');

CREATE TABLE recurring_charge_attempts (
    charge_id      bigint      NOT NULL REFERENCES recurring_charges (id),
    number         smallint    NOT NULL CHECK (number BETWEEN 0 AND 3),
    type           varchar(4)  NOT NULL CHECK (type IN ('AGND', 'NTAG', 'RIFL')),
    settles_on     date        NOT NULL,
    end_to_end_id  varchar(32) NOT NULL UNIQUE,
    status         varchar(10) NOT NULL CHECK (status IN
        ('SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA')),
    history        jsonb       NOT NULL,
    rejection      jsonb,
    PRIMARY KEY (charge_id, number),
    UNIQUE (charge_id, settles_on),
    CHECK ((number = 0) = (type = 'AGND'))
);
CREATE UNIQUE INDEX recurring_charge_attempts_pending_idx ON recurring_charge_attempts (charge_id)
    WHERE status IN ('SOLICITADA', 'AGENDADA');
CREATE UNIQUE INDEX recurring_charge_attempts_paid_idx ON recurring_charge_attempts (charge_id)
    WHERE status = 'PAGA';

CREATE TABLE sandbox_payers (
    ispb      varchar(8)  NOT NULL CHECK (ispb ~ '^[0-9]{8}$'),
    document  varchar(14) NOT NULL,
    balance   bigint      NOT NULL CHECK (balance >= 0),
    PRIMARY KEY (ispb, document)
);

ALTER TABLE outbox DROP CONSTRAINT outbox_webhook_type_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_webhook_type_check CHECK (webhook_type IN ('cash_in', 'cash_out',
    'refund_in', 'refund_out', 'med_created', 'med_accepted', 'med_rejected', 'pix', 'rec', 'cobr'));
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
