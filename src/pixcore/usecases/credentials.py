"""The life cycle of credentials: a new client secret, a revoked certificate (decisions 13).

Both take effect at once in every process: the token endpoints read the secret's
hash from the store on every request, and the bearer check asks the store whether
the token's certificate is still in force.
"""

from __future__ import annotations

import asyncio
import re

from pixcore.accounts import ClientCredential, LinkedCertificate, RotatedSecret
from pixcore.clock import Clock
from pixcore.errors import AccountNotFound, CertificateNotFound, InvalidIdentifier
from pixcore.ports import SecretHasher, UnitOfWorkFactory
from pixcore.usecases.accounts import new_client_id, new_client_secret

__all__ = ["parse_fingerprint", "revoke_certificate", "rotate_secret"]

_FINGERPRINT = re.compile(r"[0-9a-f]{64}")


def parse_fingerprint(text: str) -> str:
    """A SHA-256 fingerprint as the service writes it (64 lowercase hex digits).

    Upper case and the colon-separated form that ``openssl x509 -fingerprint`` prints
    are accepted too.
    """
    value = text.strip().replace(":", "").lower()
    if not _FINGERPRINT.fullmatch(value):
        raise InvalidIdentifier("a fingerprint is the SHA-256 of the certificate's DER: 64 hex digits")
    return value


async def rotate_secret(uow: UnitOfWorkFactory, hasher: SecretHasher, *, account_id: int) -> RotatedSecret:
    """Give the account's client a new secret; the old one stops working when this commits.

    The client id stays. Tokens issued before keep working until they expire (they are
    bound to a certificate, not to the secret); revoke the certificate to end them too.
    """
    secret = new_client_secret()
    secret_hash = await asyncio.to_thread(hasher.hash, secret)  # slow by design: off the loop
    async with uow() as tx:
        if await tx.accounts.get(account_id) is None:
            raise AccountNotFound(f"account {account_id} does not exist")
        client_id = await tx.credentials.replace_secret(account_id, secret_hash)
        if client_id is None:  # every account is opened with one; give it one if it has none
            client_id = new_client_id()
            await tx.credentials.add(ClientCredential(client_id, account_id, secret_hash))
        await tx.commit()
    return RotatedSecret(account_id=account_id, client_id=client_id, client_secret=secret)


async def revoke_certificate(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, fingerprint: str
) -> LinkedCertificate:
    """Revoke one of the account's certificates: its tokens are refused from now on, no
    token is issued with it, and it cannot be linked again. Revoking twice keeps the first
    moment."""
    fingerprint = parse_fingerprint(fingerprint)
    async with uow() as tx:
        if await tx.accounts.get(account_id) is None:
            raise AccountNotFound(f"account {account_id} does not exist")
        linked = await tx.certificates.get(fingerprint)
        if linked is None:
            raise CertificateNotFound(f"no certificate with fingerprint {fingerprint} is linked")
        if linked.account_id != account_id:
            raise CertificateNotFound(
                f"the certificate {fingerprint} is linked to another account, not to account {account_id}"
            )
        revoked_at = await tx.certificates.revoke(fingerprint, clock.now())
        await tx.commit()
    return LinkedCertificate(fingerprint=fingerprint, account_id=account_id, revoked_at=revoked_at)
