"""The unit of work: one database transaction, and the repositories that share it.

The transaction records, the ledger and the outbox are every feature's: their ports are here.
Each feature's own repositories are in its ``ports`` module; ``pixinfra.persistence``
implements them all on PostgreSQL, ``pixcore.testing`` in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from pixcore.accounts.ports import (
    AccountRepository,
    BalanceRepository,
    CertificateRepository,
    ConsoleSessionRepository,
    CredentialRepository,
    PixKeyRepository,
)
from pixcore.accounts.rules import (
    Counterpart,
)
from pixcore.charges.ports import ChargeRepository, DueBatchRepository, LocationRepository
from pixcore.events import Event
from pixcore.ledger import Posting
from pixcore.records import NewTransaction, TransactionStatus
from pixcore.refunds.ports import MedRepository, RefundRepository
from pixcore.transfers.ports import IdempotencyRepository, TransferRepository
from pixcore.webhooks.ports import WebhookRepository

if TYPE_CHECKING:  # annotations only: the recurrences' package imports its use cases, which import this
    from pixcore.network.ports import NetworkRepository
    from pixcore.recurrences.ports import (
        PayerBank,
        RecurrenceLocationRepository,
        RecurrenceRepository,
        RecurrenceRequestRepository,
        RecurringChargeRepository,
    )

__all__ = [
    "LedgerRepository",
    "OutboxRepository",
    "ReadUnitsOfWork",
    "TransactionRepository",
    "UnitOfWork",
    "UnitOfWorkFactory",
]


class TransactionRepository(Protocol):
    async def add(self, record: NewTransaction) -> int:
        """Store a transaction record; returns its id."""
        ...

    async def add_many(self, records: Sequence[NewTransaction]) -> list[int]:
        """Store several records with one statement; their ids, in the order of ``records``."""
        ...

    async def set_status(self, transaction_id: int, status: TransactionStatus, at: datetime) -> None: ...

    async def set_status_many(self, statuses: Sequence[tuple[int, TransactionStatus]], at: datetime) -> None:
        """:meth:`set_status` for several ``(transaction_id, status)`` with one statement."""
        ...

    async def confirm(
        self, transaction_id: int, end_to_end_id: str, counterpart: Counterpart, at: datetime
    ) -> None:
        """A PENDING receipt (a cash-in) was paid: CONFIRMED, with its E2E id and payer."""
        ...


class LedgerRepository(Protocol):
    async def post(self, transaction_id: int, posting: Posting, at: datetime) -> None:
        """Write the posting's entries and apply them to the balances, guarded.

        Raises ``InsufficientFunds`` (and changes nothing) if any bucket would go
        below zero.
        """
        ...

    async def try_post(self, transaction_id: int, posting: Posting, at: datetime) -> bool:
        """Like :meth:`post`, but False instead of ``InsufficientFunds``, the unit of work intact."""
        ...

    async def post_many(self, postings: Sequence[tuple[int, Posting]], at: datetime) -> None:
        """:meth:`post` for several ``(transaction_id, posting)`` at once: the entries in one
        statement, each balance changed once by the sum. ``InsufficientFunds`` if a sum does not fit."""
        ...


class OutboxRepository(Protocol):
    async def add(self, account_id: int, event: Event, at: datetime) -> None:
        """Queue a notification for delivery: store ``event.type`` as its type, the event as its
        content and ``event.webhook_type`` as where it goes."""
        ...

    async def add_many(self, account_id: int, events: Sequence[Event], at: datetime) -> None:
        """:meth:`add` for several events of one account, with one statement."""
        ...

    async def add_each(self, events: Sequence[tuple[int, Event]], at: datetime) -> None:
        """:meth:`add` for several ``(account_id, event)`` of any accounts, with one statement."""
        ...


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
    def sessions(self) -> ConsoleSessionRepository: ...

    @property
    def transactions(self) -> TransactionRepository: ...

    @property
    def charges(self) -> ChargeRepository: ...

    @property
    def locations(self) -> LocationRepository: ...

    @property
    def batches(self) -> DueBatchRepository: ...

    @property
    def refunds(self) -> RefundRepository: ...

    @property
    def med(self) -> MedRepository: ...

    @property
    def ledger(self) -> LedgerRepository: ...

    @property
    def transfers(self) -> TransferRepository: ...

    @property
    def idempotency(self) -> IdempotencyRepository: ...

    @property
    def outbox(self) -> OutboxRepository: ...

    @property
    def webhooks(self) -> WebhookRepository: ...

    @property
    def recurrences(self) -> RecurrenceRepository: ...

    @property
    def recurrence_requests(self) -> RecurrenceRequestRepository: ...

    @property
    def recurring_charges(self) -> RecurringChargeRepository: ...

    @property
    def recurrence_locations(self) -> RecurrenceLocationRepository: ...

    @property
    def network(self) -> NetworkRepository:
        """The payments received through the network's SPI, and the network messages handled."""
        ...

    @property
    def payer_bank(self) -> PayerBank:
        """The payer's institution as the sandbox simulates it (balances of payers elsewhere)."""
        ...

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


class ReadUnitsOfWork(Protocol):
    """Where the query endpoints read: a read replica when one is configured, else the primary."""

    def uow(self, account_id: int) -> UnitOfWorkFactory:
        """Units of work reading ``account_id``'s data, read-only (a write in one fails); none
        misses a write of that account's client."""
        ...
