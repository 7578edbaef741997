"""The life cycle of credentials: a new or revoked client secret, a revoked certificate
(docs/decisions/credentials.md).

Each takes effect at once in every process: the token endpoints read the secret's
hash from the store on every request, and the bearer check asks the store whether
the token's certificate is still in force. Each also ends the account's web console
sessions, in the same transaction (``pixcore.accounts.sessions``).
"""

from __future__ import annotations

import asyncio
import re

from pixcore.accounts.accounts_service import new_client_id, new_client_secret
from pixcore.accounts.ports import SecretHasher
from pixcore.accounts.rules import REVOKED_SECRET, ClientCredential, LinkedCertificate, RotatedSecret
from pixcore.clock import Clock, SystemClock
from pixcore.errors import AccountNotFound, CertificateNotFound, CredentialNotFound, InvalidIdentifier
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["parse_fingerprint", "revoke_certificate", "revoke_secret", "rotate_secret"]

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


async def rotate_secret(
    uow: UnitOfWorkFactory, hasher: SecretHasher, *, account_id: int, clock: Clock | None = None
) -> RotatedSecret:
    """Give the account's client a new secret; the old one stops working when this commits, and
    the account's console sessions end with it (``clock``: when; the wall clock by default).

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
        await tx.sessions.end_account(account_id, (clock or SystemClock()).now())
        await tx.commit()
    return RotatedSecret(account_id=account_id, client_id=client_id, client_secret=secret)


async def revoke_secret(uow: UnitOfWorkFactory, clock: Clock, *, account_id: int) -> str:
    """Revoke the account's client secret, issuing none: no secret signs in or gets a token until
    ``rotate_secret`` gives a new one (the client id stays). The account's console sessions end.
    The client id; ``CredentialNotFound`` (404) if the account has no credential."""
    async with uow() as tx:
        if await tx.accounts.get(account_id) is None:
            raise AccountNotFound(f"account {account_id} does not exist")
        client_id = await tx.credentials.replace_secret(account_id, REVOKED_SECRET)
        if client_id is None:
            raise CredentialNotFound(f"account {account_id} has no client credential")
        await tx.sessions.end_account(account_id, clock.now())
        await tx.commit()
    return client_id


async def revoke_certificate(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, fingerprint: str
) -> LinkedCertificate:
    """Revoke one of the account's certificates: its tokens are refused from now on, no
    token is issued with it, and it cannot be linked again. Revoking twice keeps the first
    moment. Every console session of the account ends with it (all of them: a session signed in
    with another certificate belongs to the same holder)."""
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
        await tx.sessions.end_account(account_id, revoked_at)
        await tx.commit()
    return LinkedCertificate(fingerprint=fingerprint, account_id=account_id, revoked_at=revoked_at)
