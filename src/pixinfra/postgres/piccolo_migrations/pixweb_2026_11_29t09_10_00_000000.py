"""A charge's debtor keeps its e-mail and postal address (the standard's ``DadosDevedor``:
``email``, ``logradouro``, ``cidade``, ``uf``, ``cep``), in ``charges`` and in each revision
kept in ``charge_revisions``.

Each is optional, and only a debtor (a document) has them; a ``uf`` is two letters, a ``cep`` 8
digits, as ``pixcore.addresses`` says. A charge from before has none of them.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-29T09:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges, charge_revisions: the debtor's e-mail and postal address"

_COLUMNS = """
    ADD COLUMN debtor_email        varchar(254),
    ADD COLUMN debtor_street       varchar(200),
    ADD COLUMN debtor_city         varchar(200),
    ADD COLUMN debtor_state        varchar(2) CHECK (debtor_state ~ '^[A-Za-z]{2}$'),
    ADD COLUMN debtor_postal_code  varchar(8) CHECK (debtor_postal_code ~ '^[0-9]{8}$'),
    ADD CHECK (debtor_document IS NOT NULL OR num_nonnulls(
        debtor_email, debtor_street, debtor_city, debtor_state, debtor_postal_code) = 0)
"""
SQL = f"ALTER TABLE charges {_COLUMNS};\nALTER TABLE charge_revisions {_COLUMNS};\n"


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
