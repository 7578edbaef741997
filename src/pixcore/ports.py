"""The ports: what the domain needs from persistence and the outside world.

Each is a ``typing.Protocol``. ``pixweb.persistence`` implements them on
PostgreSQL; ``pixcore.testing`` implements them in memory for unit tests.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self

from pixcore.accounts import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
)
from pixcore.keys import PixKey
from pixcore.ledger import Posting
from pixcore.records import NewTransaction, NewTransfer, TransactionStatus, Transfer
from pixcore.transfers import DirectoryEntry, TransferState

__all__ = [
    "AccountRepository",
    "BalanceRepository",
    "CertificateRepository",
    "CredentialRepository",
    "IdempotencyRecord",
    "IdempotencyRepository",
    "KeyDirectory",
    "LedgerRepository",
    "OutboxRepository",
    "PixKeyRepository",
    "SecretHasher",
    "TokenIssuer",
    "TransactionRepository",
    "TransferRepository",
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


class TransactionRepository(Protocol):
    async def add(self, record: NewTransaction) -> int:
        """Store a transaction record; returns its id."""
        ...

    async def set_status(self, transaction_id: int, status: TransactionStatus, at: datetime) -> None: ...


class LedgerRepository(Protocol):
    async def post(self, transaction_id: int, posting: Posting, at: datetime) -> None:
        """Write the posting's entries and apply them to the balances, guarded.

        Raises ``InsufficientFunds`` (and changes nothing) if any bucket would go
        below zero.
        """
        ...


class TransferRepository(Protocol):
    async def add(self, transfer: NewTransfer) -> None: ...

    async def get(self, transaction_id: int) -> Transfer | None: ...

    async def due(self, now: datetime, limit: int) -> list[int]:
        """Ids of PENDING transfers whose settlement time or deadline has come."""
        ...

    async def lock_pending(self, transaction_id: int) -> Transfer | None:
        """Lock a PENDING transfer for this unit of work; None if it is not pending or
        another worker holds it (``FOR UPDATE SKIP LOCKED``)."""
        ...

    async def finish(
        self, transaction_id: int, state: TransferState, error_code: str | None, at: datetime
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    request_hash: str
    transaction_id: int


class IdempotencyRepository(Protocol):
    async def find(self, account_id: int, key: uuid.UUID) -> IdempotencyRecord | None: ...

    async def claim(
        self, account_id: int, key: uuid.UUID, request_hash: str, transaction_id: int, at: datetime
    ) -> bool:
        """Bind the key to the transaction. False if the key is taken (waits for a
        concurrent claimant to finish first)."""
        ...


class OutboxRepository(Protocol):
    async def add(self, account_id: int, event: dict[str, Any], at: datetime) -> None:
        """Queue a notification (``{type, data}``) for delivery."""
        ...


class KeyDirectory(Protocol):
    """The DICT: who owns a PIX key."""

    async def lookup(self, key: PixKey) -> DirectoryEntry | None: ...


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

    @property
    def transactions(self) -> TransactionRepository: ...

    @property
    def ledger(self) -> LedgerRepository: ...

    @property
    def transfers(self) -> TransferRepository: ...

    @property
    def idempotency(self) -> IdempotencyRepository: ...

    @property
    def outbox(self) -> OutboxRepository: ...

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
