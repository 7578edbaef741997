"""Is a token's certificate still in force? The bearer check asks on every request.

One statement on a pooled connection, outside any transaction, by the primary key
(the fingerprint): a revocation committed by any process (``pixweb admin cert
revoke``) refuses the very next request everywhere, with nothing cached in between.
With the shared sandbox clock, the request's clock read and this look-up are one
statement (:meth:`PostgresCertificateStatus.in_force_with_clock`): one round trip
a request instead of two.
"""

from __future__ import annotations

from datetime import timedelta

from pixinfra.postgres.clock import OFFSET_QUERY
from pixinfra.postgres.pool import Database

__all__ = ["PostgresCertificateStatus"]

_IN_FORCE = """
SELECT 1 FROM client_certificates
WHERE fingerprint = $1 AND account_id = $2 AND revoked_at IS NULL
"""
_IN_FORCE_WITH_CLOCK = f"SELECT ({OFFSET_QUERY}) AS offset_micros, EXISTS ({_IN_FORCE}) AS in_force"


class PostgresCertificateStatus:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def in_force(self, account_id: int, fingerprint: str) -> bool:
        """True while the certificate (hex SHA-256) is linked to the account and not revoked."""
        return await self._database.pool.fetchval(_IN_FORCE, fingerprint, account_id) is not None

    async def in_force_with_clock(self, account_id: int, fingerprint: str) -> tuple[bool, timedelta]:
        """:meth:`in_force`, and the sandbox clock's stored offset, read by one statement."""
        row = await self._database.pool.fetchrow(_IN_FORCE_WITH_CLOCK, fingerprint, account_id)
        if row is None:  # a SELECT without FROM always gives one row
            raise RuntimeError("the look-up returned no row")
        return bool(row["in_force"]), timedelta(microseconds=row["offset_micros"] or 0)
