"""Revoked client certificates.

``revoked_at`` (the service clock's time of ``pixweb admin cert revoke``) stays set:
a revoked certificate is refused at the token endpoints, its tokens are refused on
every request, and it cannot be linked again. The bearer check looks a certificate
up by its primary key (the fingerprint) with the token's account, so it needs no
index of its own.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-23T12:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "revoked client certificates"

SQL = """
ALTER TABLE client_certificates ADD COLUMN revoked_at timestamptz;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
