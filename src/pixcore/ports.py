"""The ports: what the domain needs from persistence and the outside world.

Each is a ``typing.Protocol``. ``pixweb.persistence`` implements them on
PostgreSQL; ``pixcore.testing`` implements them in memory for unit tests.
"""

from __future__ import annotations

from datetime import datetime
from types import TracebackType
from typing import Protocol, Self

from pixcore.accounts import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
)
from pixcore.keys import PixKey

__all__ = [
    "AccountRepository",
    "BalanceRepository",
    "CertificateRepository",
    "CredentialRepository",
    "PixKeyRepository",
    "SecretHasher",
    "TokenIssuer",
    "UnitOfWork",
    "UnitOfWorkFactory",
]


class AccountRepository(Protocol):
    async def add(self, new: NewAccount) -> Account:
        """Store a new account with a zero balance; the store assigns id, branch and number."""
        ...

    async def get(self, account_id: int) -> Account | None: ...


class BalanceRepository(Protocol):
    async def get(self, account_id: int) -> Balance | None: ...


class PixKeyRepository(Protocol):
    async def add(self, account_id: int, key: PixKey) -> None:
        """Register ``key`` for the account; raises ``DuplicatePixKey`` if any account has it."""
        ...

    async def owner_of(self, key: PixKey) -> int | None: ...

    async def list_for(self, account_id: int) -> list[PixKey]: ...


class CredentialRepository(Protocol):
    async def add(self, credential: ClientCredential) -> None: ...

    async def get(self, client_id: str) -> ClientCredential | None: ...


class CertificateRepository(Protocol):
    async def link(self, account_id: int, certificate: CertificateInfo) -> LinkedCertificate:
        """Link a certificate to an account.

        Linking it again to the same account is a no-op; a certificate linked
        to another account raises ``CertificateInUse``.
        """
        ...

    async def get(self, fingerprint: str) -> LinkedCertificate | None: ...


class UnitOfWork(Protocol):
    """One database transaction. Leaving the block without ``commit()`` rolls back."""

    @property
    def accounts(self) -> AccountRepository: ...

    @property
    def balances(self) -> BalanceRepository: ...

    @property
    def keys(self) -> PixKeyRepository: ...

    @property
    def credentials(self) -> CredentialRepository: ...

    @property
    def certificates(self) -> CertificateRepository: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    async def commit(self) -> None: ...

    async def rollback(self) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self) -> UnitOfWork: ...


class SecretHasher(Protocol):
    """A slow, salted hash for client secrets."""

    def hash(self, secret: str) -> str: ...

    def verify(self, secret_hash: str, secret: str) -> bool: ...


class TokenIssuer(Protocol):
    """Mints access tokens bound to a certificate (RFC 8705)."""

    def issue(self, *, account_id: int, fingerprint: str, issued_at: datetime) -> str: ...
