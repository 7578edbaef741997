"""Is a token's certificate still in force? The bearer check asks on every request.

One statement on a pooled connection, outside any transaction, by the primary key
(the fingerprint): a revocation committed by any process (``pixweb admin cert
revoke``) refuses the very next request everywhere, with nothing cached in between.
"""

from __future__ import annotations

from pixinfra.postgres.pool import Database

__all__ = ["PostgresCertificateStatus"]

IN_FORCE = """
SELECT 1 FROM client_certificates
WHERE fingerprint = $1 AND account_id = $2 AND revoked_at IS NULL
"""


class PostgresCertificateStatus:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def in_force(self, account_id: int, fingerprint: str) -> bool:
        """True while the certificate (hex SHA-256) is linked to the account and not revoked."""
        return await self._database.pool.fetchval(IN_FORCE, fingerprint, account_id) is not None
