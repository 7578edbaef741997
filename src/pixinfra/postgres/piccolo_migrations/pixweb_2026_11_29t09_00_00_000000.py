"""Each account's postal address (``street``, ``state``, ``postal_code`` beside its ``city``): a
``cobv``'s ``recebedor`` shows it, and the standard requires all four parts there.

An account opened before this migration has no address the service could know: it gets the
placeholder of docs/decisions/account-address.md, ``NAO INFORMADO`` (street), its own city,
``SP`` and ``00000000`` (a postal code no place has). The columns keep that placeholder as their
default, for a row written without them by hand (the service's adapter always names the address:
``pixweb admin account create``).
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-29T09:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "accounts: the holder's postal address"

SQL = """
ALTER TABLE accounts
    ADD COLUMN street       varchar(200) NOT NULL DEFAULT 'NAO INFORMADO' CHECK (length(btrim(street)) > 0),
    ADD COLUMN state        varchar(2)   NOT NULL DEFAULT 'SP' CHECK (state ~ '^[A-Za-z]{2}$'),
    ADD COLUMN postal_code  varchar(8)   NOT NULL DEFAULT '00000000' CHECK (postal_code ~ '^[0-9]{8}$');
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
