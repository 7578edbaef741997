"""Is a token's certificate still in force? The bearer check asks on every request.

One statement on a pooled connection, outside any transaction, by the primary key
(the fingerprint): a revocation committed by any process (``pixweb admin cert
revoke``) refuses the very next request everywhere, with nothing cached in between.
With the shared sandbox clock, the request's clock read and this look-up are one
statement (:meth:`PostgresCertificateStatus.in_force_with_clock`): one round trip
a request instead of two. A transfer group asks for all its callers at once
(:class:`GroupCertificateCheck`): one round trip a group.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from pixcore.accounts.ports import PendingCredential
from pixinfra.persistence.sql import compose
from pixinfra.postgres.clock import OFFSET_QUERY, ClockKeeper
from pixinfra.postgres.pool import Database

__all__ = ["GroupCertificateCheck", "PostgresCertificateStatus"]

_IN_FORCE = """
SELECT 1 FROM client_certificates
WHERE fingerprint = $1 AND account_id = $2 AND revoked_at IS NULL
"""
_IN_FORCE_WITH_CLOCK = f"SELECT ({OFFSET_QUERY}) AS offset_micros, EXISTS ({_IN_FORCE}) AS in_force"
_IN_FORCE_MANY = """
SELECT c.fingerprint, c.account_id FROM client_certificates c
JOIN unnest($1::text[], $2::bigint[]) AS asked (fingerprint, account_id)
  ON c.fingerprint = asked.fingerprint AND c.account_id = asked.account_id
WHERE c.revoked_at IS NULL
"""
_IN_FORCE_MANY_WITH_CLOCK = compose(
    "SELECT (",
    OFFSET_QUERY,
    ") AS offset_micros, ARRAY(SELECT account_id::text || ' ' || fingerprint FROM (",
    _IN_FORCE_MANY,
    ") AS found) AS in_force",
)


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

    async def in_force_many(self, pairs: Sequence[tuple[int, str]]) -> set[tuple[int, str]]:
        """:meth:`in_force` for several (account id, fingerprint) pairs, one statement: those in force."""
        rows = await self._database.pool.fetch(
            _IN_FORCE_MANY, [fp for _, fp in pairs], [account for account, _ in pairs]
        )
        return {(row["account_id"], row["fingerprint"]) for row in rows}

    async def in_force_many_with_clock(
        self, pairs: Sequence[tuple[int, str]]
    ) -> tuple[set[tuple[int, str]], timedelta]:
        """:meth:`in_force_many`, and the sandbox clock's stored offset, read by one statement."""
        row = await self._database.pool.fetchrow(
            _IN_FORCE_MANY_WITH_CLOCK, [fp for _, fp in pairs], [account for account, _ in pairs]
        )
        if row is None:  # a SELECT without FROM always gives one row
            raise RuntimeError("the look-up returned no row")
        found = set()
        for pair in row["in_force"]:
            account, fingerprint = pair.split(" ")
            found.add((int(account), fingerprint))
        return found, timedelta(microseconds=row["offset_micros"] or 0)


class GroupCertificateCheck:
    """The ``CertificateCheck`` port: a group's callers' certificates, and the sandbox clock (when
    it is the shared one) brought up to date by the same statement."""

    def __init__(self, status: PostgresCertificateStatus, keeper: ClockKeeper) -> None:
        self._status, self._keeper = status, keeper

    async def in_force_many(self, credentials: Sequence[PendingCredential]) -> set[PendingCredential]:
        pairs = [(c.account_id, c.fingerprint) for c in credentials]
        if self._keeper.reads_database:
            found, offset = await self._status.in_force_many_with_clock(pairs)
            self._keeper.adopt(offset)
        else:
            found = await self._status.in_force_many(pairs)
        return {c for c in credentials if (c.account_id, c.fingerprint) in found}
