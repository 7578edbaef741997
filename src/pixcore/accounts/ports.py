"""The ports of accounts: their rows, balances, keys, credentials, certificates and console
sessions, and the secret hashing and token issuing the service plugs in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pixcore.accounts.rules import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
)
from pixcore.accounts.sessions import ConsoleSession
from pixcore.keys import PixKey

__all__ = [
    "AccountRepository",
    "BalanceRepository",
    "CertificateCheck",
    "CertificateRepository",
    "ConsoleSessionRepository",
    "CredentialRepository",
    "KeyRegistry",
    "PendingCredential",
    "PixKeyRepository",
    "SecretHasher",
    "SecretVerifier",
    "TokenIssuer",
]


class AccountRepository(Protocol):
    async def add(self, new: NewAccount) -> Account:
        """Store a new account with a zero balance; the store assigns id, branch and number."""
        ...

    async def get(self, account_id: int) -> Account | None: ...


class BalanceRepository(Protocol):
    async def get(self, account_id: int) -> Balance | None: ...

    async def lock(self, account_id: int) -> Balance | None:
        """The balance, its row locked until the unit of work ends (``FOR UPDATE``: waits for other
        writers); None if there is no such account."""
        ...


class PixKeyRepository(Protocol):
    async def add(self, account_id: int, key: PixKey) -> None:
        """Register ``key`` for the account; raises ``DuplicatePixKey`` if any account has it."""
        ...

    async def owner_of(self, key: PixKey) -> int | None: ...

    async def list_for(self, account_id: int) -> list[PixKey]: ...

    async def remove(self, account_id: int, key: PixKey) -> bool:
        """Take ``key`` off the account (it left for another institution); False if the account
        did not hold it."""
        ...


class KeyRegistry(Protocol):
    """Where an account's keys are registered besides this service's books: the network's DICT,
    when the service is a participant of one."""

    async def register(self, account: Account, key: PixKey) -> PixKey:
        """Register ``key`` for ``account``: the key as registered (the registry makes an EVP's
        value). ``DuplicatePixKey`` when the key is registered to someone else there."""
        ...

    async def unregister(self, account: Account, key: PixKey) -> None:
        """Remove ``key`` (registered for ``account``) from the registry."""
        ...


class CredentialRepository(Protocol):
    async def add(self, credential: ClientCredential) -> None: ...

    async def get(self, client_id: str) -> ClientCredential | None: ...

    async def replace_secret(self, account_id: int, secret_hash: str) -> str | None:
        """Give the account's credential this secret hash (the old secret stops working);
        its client id, or None if the account has no credential."""
        ...


class CertificateRepository(Protocol):
    async def link(self, account_id: int, certificate: CertificateInfo) -> LinkedCertificate:
        """Link a certificate to an account.

        Linking it again to the same account is a no-op; a certificate linked
        to another account raises ``CertificateInUse``.
        """
        ...

    async def get(self, fingerprint: str) -> LinkedCertificate | None: ...

    async def revoke(self, fingerprint: str, at: datetime) -> datetime:
        """Mark a linked certificate revoked at ``at``, unless it was already: when it was revoked."""
        ...


class ConsoleSessionRepository(Protocol):
    """The web console's sessions (``pixcore.accounts.sessions``): rows are never deleted by a port,
    only ended."""

    async def add(self, session: ConsoleSession) -> None:
        """Store a new session; its id is new (a second row with the same id is refused)."""
        ...

    async def get(self, session_id: str) -> ConsoleSession | None: ...

    async def touch(self, session_id: str, at: datetime) -> None:
        """Mark the session used at ``at`` (never moves ``last_seen_at`` back)."""
        ...

    async def end(self, session_id: str, at: datetime) -> bool:
        """End the session; False if there is none or it had ended (the first end stands)."""
        ...

    async def end_account(self, account_id: int, at: datetime) -> int:
        """End every session of the account not ended yet; how many."""
        ...

    async def list_open(self, account_id: int) -> list[ConsoleSession]:
        """The account's sessions not ended (idle or old ones too), newest sign-in first."""
        ...


@dataclass(frozen=True, slots=True)
class PendingCredential:
    """A caller whose token verified (signature, claims and time window on the clock the process
    last read) but whose certificate status is still to be checked: by the group that applies its
    request (docs/decisions/transfer-group-write.md)."""

    account_id: int
    fingerprint: str
    """The certificate's SHA-256, in hex."""
    expires_at: int
    """The token's ``exp`` (seconds since the epoch): judged again on the clock the check reads."""


class CertificateCheck(Protocol):
    """Whether callers' certificates are still in force, asked for many callers at once."""

    async def in_force_many(self, credentials: Sequence[PendingCredential]) -> set[PendingCredential]:
        """Those whose certificate is linked to their account and not revoked, read with one statement
        that also brings the service clock up to date (so that ``Clock.now()`` afterwards is the
        clock to judge their tokens' expiry on)."""
        ...


class SecretHasher(Protocol):
    """A slow, salted hash for client secrets."""

    def hash(self, secret: str) -> str: ...

    def verify(self, secret_hash: str, secret: str) -> bool: ...


class SecretVerifier(Protocol):
    """Checks client secrets off the event loop, within the bounds the adapter sets.

    Both methods may raise ``ServiceBusy`` at once when too many checks wait already.
    """

    async def verify(self, secret_hash: str, secret: str) -> bool: ...

    async def decoy(self, secret: str) -> None:
        """Take about as long as :meth:`verify` would, for a client id that does not exist,
        so that response times do not tell which client ids exist."""
        ...


class TokenIssuer(Protocol):
    """Mints access tokens bound to a certificate (RFC 8705)."""

    def issue(self, *, account_id: int, fingerprint: str, issued_at: datetime) -> str: ...
