"""A fake of the ``CertificateCheck`` port, as ``pixinfra.persistence.revocation`` checks."""

from __future__ import annotations

from collections.abc import Sequence

from pixcore.accounts.ports import PendingCredential
from pixcore.testing._store import StoreState

__all__ = ["InMemoryCertificateCheck"]


class InMemoryCertificateCheck:
    """Judges callers' certificates on ``store``'s committed certificates, as the PostgreSQL check
    reads them outside any unit of work: a caller's certificate is in force while it is linked to
    the caller's own account and not revoked; a link or a revocation counts once its unit of work
    has committed. The token's expiry is not judged here (the caller judges it on its clock, which
    this fake, with no shared sandbox clock to read, leaves as it is).

    ``calls`` records the credentials of each call.
    """

    def __init__(self, store: StoreState) -> None:
        self.store = store
        self.calls: list[list[PendingCredential]] = []

    async def in_force_many(self, credentials: Sequence[PendingCredential]) -> set[PendingCredential]:
        self.calls.append(list(credentials))
        return {credential for credential in credentials if self._in_force(credential)}

    def _in_force(self, credential: PendingCredential) -> bool:
        stored = self.store.certificates.get(credential.fingerprint)
        return stored is not None and stored.account_id == credential.account_id and stored.revoked_at is None
