"""Issuing access tokens: client credentials plus a linked certificate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from pixcore.accounts.ports import SecretVerifier, TokenIssuer
from pixcore.accounts.rules import REVOKED_SECRET, CertificateInfo, ClientCredential, LinkedCertificate
from pixcore.clock import Clock
from pixcore.errors import CertificateNotLinked, CertificateRevoked, InvalidCertificate, InvalidCredentials
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = [
    "TOKEN_LIFETIME_SECONDS",
    "IssuedToken",
    "OwnCertificateHook",
    "check_credentials",
    "issue_operator_token",
    "issue_token",
]

TOKEN_LIFETIME_SECONDS = 1800

OwnCertificateHook = Callable[[bool], None]
"""Told, before the secret is checked, whether the certificate is the client's own: linked to its
account, not revoked, valid now (the caller's rate limit keys on it; it may raise to refuse)."""


def _no_hook(_own: bool) -> None:
    return None


@dataclass(frozen=True, slots=True)
class IssuedToken:
    access_token: str
    account_id: int
    expires_in: int = TOKEN_LIFETIME_SECONDS
    token_type: str = "Bearer"  # noqa: S105 - the OAuth token type, not a secret


async def issue_token(
    uow: UnitOfWorkFactory,
    verifier: SecretVerifier,
    issuer: TokenIssuer,
    clock: Clock,
    *,
    client_id: str,
    client_secret: str,
    certificate: CertificateInfo,
    before_secret: OwnCertificateHook = _no_hook,
) -> IssuedToken:
    """Check, in this order: the credentials (401), the certificate's validity
    period (401), that the certificate is linked to the same account (403) and not
    revoked (401, as an expired one).

    The caller has already turned a missing or malformed certificate into a 400.
    ``before_secret`` hears, once the client and the certificate are read and before
    any hashing, whether the certificate is the client's own (in force).
    """
    async with uow() as tx:
        credential = await tx.credentials.get(client_id)
        linked = await tx.certificates.get(certificate.fingerprint)
    now = clock.now()
    before_secret(_is_own(credential, certificate, linked, now))
    account_id = await _verified(verifier, credential, client_secret)
    return _bound_token(issuer, now, account_id=account_id, certificate=certificate, linked=linked)


async def check_credentials(
    uow: UnitOfWorkFactory, verifier: SecretVerifier, *, client_id: str, client_secret: str
) -> int:
    """The account of these client credentials (401 otherwise): the first check of
    :func:`issue_token`, alone, for the web console's sign-in (a browser has no client
    certificate; where one is required, the console calls :func:`issue_token` instead)."""
    async with uow() as tx:
        credential = await tx.credentials.get(client_id)
    return await _verified(verifier, credential, client_secret)


def _is_own(
    credential: ClientCredential | None,
    certificate: CertificateInfo,
    linked: LinkedCertificate | None,
    now: datetime,
) -> bool:
    """Whether ``certificate`` is the one a token would be issued for, with the right secret."""
    return (
        credential is not None
        and linked is not None
        and linked.account_id == credential.account_id
        and linked.revoked_at is None
        and certificate.is_valid_at(now)
    )


async def _verified(verifier: SecretVerifier, credential: ClientCredential | None, client_secret: str) -> int:
    # Hashing is slow by design: the verifier runs it off the event loop, within its bounds.
    if credential is None or credential.secret_hash == REVOKED_SECRET:
        await verifier.decoy(client_secret)  # as long as a real check: no client-id oracle
        raise InvalidCredentials()
    if not await verifier.verify(credential.secret_hash, client_secret):
        raise InvalidCredentials()
    return credential.account_id


async def issue_operator_token(
    uow: UnitOfWorkFactory,
    issuer: TokenIssuer,
    clock: Clock,
    *,
    account_id: int,
    certificate: CertificateInfo,
) -> IssuedToken:
    """The operator's token for an account (``pixweb admin token``): no client secret, and the same
    certificate checks as :func:`issue_token` (valid now, linked to the account, not revoked)."""
    async with uow() as tx:
        linked = await tx.certificates.get(certificate.fingerprint)
    return _bound_token(issuer, clock.now(), account_id=account_id, certificate=certificate, linked=linked)


def _bound_token(
    issuer: TokenIssuer,
    now: datetime,
    *,
    account_id: int,
    certificate: CertificateInfo,
    linked: LinkedCertificate | None,
) -> IssuedToken:
    if not certificate.is_valid_at(now):
        raise InvalidCertificate("The client certificate is expired or not yet valid.")
    if linked is None or linked.account_id != account_id:
        raise CertificateNotLinked()
    if linked.revoked_at is not None:
        raise CertificateRevoked()
    token = issuer.issue(account_id=account_id, fingerprint=certificate.fingerprint, issued_at=now)
    return IssuedToken(access_token=token, account_id=account_id)
