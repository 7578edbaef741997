"""The revisions of a charge (the standard's ``GET /cob/{txid}?revisao=N``,
docs/decisions/charge-revisions.md).

``charge_revisions`` keeps each revision of a charge (``cob``, cash-in or ``cobv``) as it was
written: the columns a revision may change, and the status it left. The adapter writes a row in
the statement that writes the revision (creation is revision 0, each ``PATCH`` one more, a
cancellation too); a payment or an expiry is no revision and writes none.

What came before cannot all be rebuilt: a charge revised before this migration has overwritten
its earlier revisions, so only its current revision is kept (``?revisao=`` of an earlier one is
the standard's ``CobConsultaInvalida``). Its status then is ATIVA (a charge is revised only while
ATIVA) unless the revision cancelled it; its moment is the creation for revision 0, otherwise
the charge's last change, which for a charge paid or expired since is that later moment (the
revision's own was not stored).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T13:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charge_revisions: each revision of a charge as it was written"

TABLE = """
CREATE TABLE charge_revisions (
    charge_id           bigint       NOT NULL REFERENCES charges (id),
    revision            integer      NOT NULL CHECK (revision >= 0),
    status              varchar(31)  NOT NULL CHECK (status IN ('ATIVA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR')),
    written_at          timestamptz  NOT NULL,
    expiration          integer      NOT NULL CHECK (expiration >= 1),
    expires_at          timestamptz  NOT NULL,
    amount              bigint       NOT NULL CHECK (amount >= 0),
    modality            smallint     NOT NULL CHECK (modality IN (0, 1)),
    pix_key             varchar(77)  NOT NULL,
    payer_request       varchar(140),
    debtor_name         varchar(200),
    debtor_document     varchar(14),
    info                jsonb        NOT NULL,
    terms               jsonb,
    br_code             varchar(512) NOT NULL,
    PRIMARY KEY (charge_id, revision)
);
"""
BACKFILL = """
INSERT INTO charge_revisions (charge_id, revision, status, written_at, expiration, expires_at, amount,
    modality, pix_key, payer_request, debtor_name, debtor_document, info, terms, br_code)
SELECT id, revision,
       CASE WHEN status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR' THEN status ELSE 'ATIVA' END,
       CASE WHEN revision = 0 THEN created_at ELSE updated_at END,
       expiration, expires_at, amount, modality, pix_key, payer_request, debtor_name, debtor_document,
       info, terms, br_code
  FROM charges
    ON CONFLICT DO NOTHING;
"""
"""Each charge's current revision, as well as it can be told (once more: what is kept stays)."""
SQL = TABLE + BACKFILL


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
