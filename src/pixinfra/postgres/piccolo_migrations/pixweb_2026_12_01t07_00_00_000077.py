"""The service as a participant of a PIX network (``PIX_NETWORK_URL``).

- ``transfers.behavior`` takes ``spi``: a transfer the network's SPI settles, never decided here;
  ``transfers.sent_at``: when it was last sent to the SPI (None: never), and the index of the
  ones due to be sent;
- ``network_receipts``: a payment another institution sends, from the moment the service accepts
  it until the SPI settles (credited, once) or refuses it;
- ``network_cursor``: the id of the last network message handled.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-12-01T07:00:00:000077"
VERSION = "1.38.0"
DESCRIPTION = "the service as a participant of a PIX network"

SQL = """
ALTER TABLE transfers DROP CONSTRAINT transfers_behavior_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_behavior_check CHECK (behavior IN ('settle', 'reject', 'spi'));
ALTER TABLE transfers ADD COLUMN sent_at timestamptz;
CREATE INDEX transfers_spi_due_idx ON transfers (settle_after) WHERE state = 'PENDING' AND behavior = 'spi';

CREATE TABLE network_receipts (
    end_to_end_id     varchar(32)  PRIMARY KEY,
    account_id        bigint       NOT NULL REFERENCES accounts (id),
    amount            bigint       NOT NULL CHECK (amount > 0),
    payer_name        varchar(140) NOT NULL,
    payer_document    varchar(14)  NOT NULL,
    payer_ispb        varchar(8)   NOT NULL,
    payer_bank        varchar(100),
    payer_branch      varchar(4),
    payer_account     varchar(20),
    branch            varchar(4),
    account_number    varchar(20)  NOT NULL,
    tax_id            varchar(14)  NOT NULL,
    pix_key           varchar(77),
    description       varchar(140),
    state             varchar(8)   NOT NULL CHECK (state IN ('ACCEPTED', 'CREDITED', 'REJECTED')),
    transaction_id    bigint,
    accepted_at       timestamptz  NOT NULL,
    finished_at       timestamptz,
    CHECK ((state = 'CREDITED') = (transaction_id IS NOT NULL)),
    CHECK ((state = 'ACCEPTED') = (finished_at IS NULL))
);
COMMENT ON TABLE network_receipts IS
    'Payments from other institutions: accepted, then credited or rejected as the SPI settles them';

CREATE TABLE network_cursor (
    id     smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    after  bigint   NOT NULL CHECK (after >= 0)
);
COMMENT ON TABLE network_cursor IS 'The id of the last network message the service handled';
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
