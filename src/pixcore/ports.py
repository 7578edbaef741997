"""The ports: what the domain needs from persistence and the outside world.

Each is a ``typing.Protocol``. ``pixinfra.persistence`` implements them on
PostgreSQL (``DeliveryStore``: ``pixinfra.persistence.deliveries``); ``pixcore.testing`` implements
them in memory for unit tests.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Protocol, Self

from pixcore.accounts import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    Counterpart,
    LinkedCertificate,
    NewAccount,
)
from pixcore.charges import Charge, ChargeLine, ChargeStatus, NewCharge
from pixcore.console_sessions import ConsoleSession
from pixcore.due_batches import DueBatch
from pixcore.events import Event
from pixcore.keys import PixKey
from pixcore.ledger import Posting
from pixcore.locations import Location, NewLocation
from pixcore.med import MedCase, MedStatus, NewMedCase
from pixcore.records import NewTransaction, NewTransfer, TransactionStatus, TransactionType, Transfer
from pixcore.refunds import NewRefund, Original, Refund, RefundKind, RefundStatus
from pixcore.standard_queries import BatchQuery, ChargeQuery, LocationQuery, ReceivedQuery
from pixcore.transfers import DirectoryEntry, TransferState
from pixcore.webhook_delivery import Attempted, Claim, Verdict
from pixcore.webhooks import (
    Delivery,
    DeliveryDetail,
    DeliveryFilter,
    DeliveryStatus,
    EventType,
    NewWebhook,
    Webhook,
    WebhookSecret,
)

__all__ = [
    "AccountRepository",
    "BalanceRepository",
    "CertificateCheck",
    "CertificateRepository",
    "ChargeRepository",
    "ConsoleSessionRepository",
    "CredentialRepository",
    "DeliveryStore",
    "DueBatchRepository",
    "HostResolver",
    "IdempotencyRecord",
    "IdempotencyRepository",
    "KeyDirectory",
    "LedgerRepository",
    "LocationRepository",
    "MedRepository",
    "OutboxRepository",
    "PendingCredential",
    "PixKeyRepository",
    "ProbeResult",
    "RefundRepository",
    "SecretHasher",
    "SecretVerifier",
    "TokenIssuer",
    "TransactionRepository",
    "TransferBatchStore",
    "TransferRepository",
    "TransferReservation",
    "UnitOfWork",
    "UnitOfWorkFactory",
    "WebhookProbe",
    "WebhookRepository",
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
    """The web console's sessions (``pixcore.console_sessions``): rows are never deleted by a port,
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


class TransferRepository(Protocol):
    async def add(self, transfer: NewTransfer) -> None: ...

    async def add_many(self, transfers: Sequence[NewTransfer]) -> None:
        """Store several transfers with one statement."""
        ...

    async def get(self, transaction_id: int) -> Transfer | None: ...

    async def due(self, now: datetime, limit: int) -> list[int]:
        """Ids of PENDING transfers whose settlement time or deadline has come."""
        ...

    async def lock_pending(self, transaction_id: int) -> Transfer | None:
        """Lock a PENDING transfer for this unit of work; None if it is not pending or
        another worker holds it (``FOR UPDATE SKIP LOCKED``)."""
        ...

    async def lock_pending_many(self, transaction_ids: Sequence[int]) -> list[Transfer]:
        """:meth:`lock_pending` for several ids with one statement: those still PENDING that no
        other worker holds, in ascending id order."""
        ...

    async def finish(
        self, transaction_id: int, state: TransferState, error_code: str | None, at: datetime
    ) -> None: ...

    async def finish_many(
        self, finished: Sequence[tuple[int, TransferState, str | None]], at: datetime
    ) -> None:
        """:meth:`finish` for several ``(transaction_id, state, error_code)`` with one statement."""
        ...


class ChargeRepository(Protocol):
    async def add(self, charge: NewCharge) -> Charge:
        """Store a new ATIVA charge, and keep it as its revision 0. Raises ``DuplicateCharge`` if
        the account has its txid, ``DuplicateExternalId`` if it has a cash-in with its external id."""
        ...

    async def get(self, account_id: int, txid: str) -> Charge | None: ...

    async def get_by_location(self, location_id: str) -> Charge | None: ...

    async def recent(self, account_id: int, limit: int) -> list[ChargeLine]:
        """The lines of the account's newest charges and cash-ins, newest first, ``limit`` at most."""
        ...

    async def get_by_external_id(self, account_id: int, external_id: str) -> Charge | None: ...

    async def search(
        self, account_id: int, query: ChargeQuery, now: datetime, *, due: bool = False
    ) -> tuple[int, list[Charge]]:
        """``GET /cob``: how many of the account's charges match, and the page asked for, oldest
        first (``created_at``, then id). ``status`` matches the status a reader sees at ``now``.
        ``due``: its ``cobv`` only (``GET /cobv``); else every other kind."""
        ...

    async def revise(self, charge: Charge) -> None:
        """Store a revised charge's fields (calendar, amount, key, debtor, texts, BR Code, revision),
        and keep that revision (:meth:`revision`)."""
        ...

    async def revision(self, charge_id: int, revision: int) -> Charge | None:
        """The charge as it stood when ``revision`` was written: that revision's fields and status,
        without payment. :meth:`add` keeps revision 0, :meth:`revise` and an :meth:`update` that
        changes the revision keep theirs, each in its own unit of work. None: not kept (a charge
        revised before revisions were kept has only its revisions since)."""
        ...

    async def lock(self, account_id: int, txid: str) -> Charge | None:
        """The charge, locked for this unit of work (``FOR UPDATE``: waits for other writers)."""
        ...

    async def lock_by_location(self, location_id: str) -> Charge | None: ...

    async def lock_expired(self, now: datetime, limit: int) -> list[Charge]:
        """ATIVA charges past their expiry, locked; rows other workers hold are skipped."""
        ...

    async def update(
        self,
        charge_id: int,
        *,
        status: ChargeStatus,
        revision: int,
        at: datetime,
        transaction_id: int | None = None,
        paid_end_to_end_id: str | None = None,
    ) -> None:
        """Store a new status (and, when paid, the PAYMENT record and its E2E id); a ``revision``
        other than the stored one (a cancellation) is kept as :meth:`revise` keeps one."""
        ...

    async def locate(self, charge_id: int, location: Location | None, *, url: str, br_code: str) -> None:
        """Put the charge at ``location`` (its payload ``url`` and BR Code made for it), or at none
        (``None``: unlinked; ``url`` and ``br_code`` then kept as they were). Raises
        ``LocationTaken`` if the location serves another charge (the unique index's guard)."""
        ...


class LocationRepository(Protocol):
    """Payload locations (``/loc``). A location's charge is the one whose ``loc_id`` it is."""

    async def add(self, location: NewLocation) -> Location:
        """Store a new location serving no charge; its id comes from the locations' sequence."""
        ...

    async def get(self, account_id: int, location_id: int) -> Location | None:
        """The account's location with its charge's txid; another account's is None."""
        ...

    async def lock(self, account_id: int, location_id: int) -> Location | None:
        """As :meth:`get`, the location row locked for this unit of work (``FOR UPDATE``), its
        charge read after the lock (so a link committed meanwhile is seen)."""
        ...

    async def search(self, account_id: int, query: LocationQuery) -> tuple[int, list[Location]]:
        """``GET /loc``: how many of the account's locations match, and the page, oldest first
        (``created_at``, then id)."""
        ...


class DueBatchRepository(Protocol):
    """Batches of due-date charges (``/lotecobv``), each the account's: ``(account_id, id)``."""

    async def add(self, batch: DueBatch) -> None:
        """Store a new batch (its items too). Raises ``DuplicateBatch`` if the account has its id
        (a second writer of the same id waits for the first, then fails)."""
        ...

    async def get(self, account_id: int, batch_id: int) -> DueBatch | None: ...

    async def lock(self, account_id: int, batch_id: int) -> DueBatch | None:
        """The batch, locked for this unit of work (``FOR UPDATE``: waits for other writers)."""
        ...

    async def save(self, batch: DueBatch) -> None:
        """Store a locked batch's description and its items' outcomes (by txid)."""
        ...

    async def search(self, account_id: int, query: BatchQuery) -> tuple[int, list[DueBatch]]:
        """``GET /lotecobv``: how many of the account's batches were created in the window, and
        the page asked for, oldest first (creation, then id)."""
        ...


class RefundRepository(Protocol):
    async def lock_original(
        self, account_id: int, end_to_end_id: str, kind: TransactionType
    ) -> Original | None:
        """The account's CONFIRMED transaction of ``kind`` with this end-to-end id, locked
        (``FOR UPDATE``) so that refunds of it are counted one request at a time."""
        ...

    async def original_of(self, transaction_id: int) -> Original | None:
        """The transaction a refund refers to, read without a lock."""
        ...

    async def total(self, original_transaction_id: int, kind: RefundKind) -> int:
        """The refunds of ``kind`` of a transaction that are not NAO_REALIZADO, in centavos."""
        ...

    async def add(self, refund: NewRefund) -> Refund: ...

    async def find(self, original_transaction_id: int, refund_id: str) -> Refund | None: ...

    async def list_sent(self, original_transaction_id: int) -> list[Refund]:
        """The refunds of a receipt to its payer (``devolucoes``), every status, oldest first."""
        ...

    async def list_sent_of(self, original_transaction_ids: Sequence[int]) -> list[Refund]:
        """:meth:`list_sent` of several receipts at once, oldest first."""
        ...

    async def search_received(self, account_id: int, query: ReceivedQuery) -> tuple[int, list[Original]]:
        """``GET /pix``: how many PIX the account received (CONFIRMED PAYMENT records) match, and
        the page asked for, oldest first (``received_at``, then id)."""
        ...

    async def find_received(self, account_id: int, end_to_end_id: str) -> Original | None:
        """``GET /pix/{e2eid}``: the account's received PIX with this end-to-end id."""
        ...

    async def due(self, now: datetime, limit: int) -> list[int]:
        """Ids of EM_PROCESSAMENTO refunds whose processing time has come."""
        ...

    async def lock_pending(self, refund_pk: int) -> Refund | None:
        """An EM_PROCESSAMENTO refund locked for this unit; None if finished or held elsewhere."""
        ...

    async def finish(
        self, refund_pk: int, status: RefundStatus, reason: str | None, at: datetime
    ) -> None: ...


class MedRepository(Protocol):
    async def add(self, case: NewMedCase) -> MedCase:
        """Store an open case; raises ``DuplicateMedCase`` if the receipt has one open."""
        ...

    async def lock(self, account_id: int, case_id: int) -> MedCase | None: ...

    async def open_amount(self, original_transaction_id: int) -> int:
        """The disputed amount of the receipt's open case (0 when none)."""
        ...

    async def finish(self, case_id: int, status: MedStatus, at: datetime) -> None: ...


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

    async def find_many(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> dict[uuid.UUID, IdempotencyRecord]:
        """The records of those of ``keys`` that are taken."""
        ...

    async def find_many_and_lock(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        """The account's balance, its row locked as ``BalanceRepository.lock`` locks it (None if there
        is no such account), and :meth:`find_many` of ``keys``: one round trip (a transfer batch)."""
        ...

    async def claim_many(
        self, account_id: int, claims: Sequence[tuple[uuid.UUID, str, int]], at: datetime
    ) -> set[uuid.UUID]:
        """:meth:`claim` for several ``(key, request_hash, transaction_id)`` with one statement:
        the keys claimed (a taken one is left out)."""
        ...

    async def add_and_claim_many(
        self,
        account_id: int,
        records: Sequence[NewTransaction],
        claims: Sequence[tuple[uuid.UUID, str]],
        at: datetime,
    ) -> tuple[list[int], set[uuid.UUID]]:
        """``TransactionRepository.add_many(records)``, then :meth:`claim_many` of each ``(key,
        request_hash)`` with the id of the record at its place, in one round trip: the records'
        ids in their order, and the keys claimed (a taken one is left out; its record stays)."""
        ...


@dataclass(frozen=True, slots=True)
class TransferReservation:
    """What one transfer of a batch writes when it is reserved: its record, its idempotency key's
    claim, the transfer itself once the record has its id, and the posting that reserves its amount."""

    record: NewTransaction
    key: uuid.UUID
    request_hash: str
    transfer: Callable[[int], NewTransfer]
    posting: Posting


class TransferBatchStore(Protocol):
    """A batch of transfers out of one account reserved with one read and one write, each a single
    statement outside any open transaction: the batch is decided on what :meth:`seen`
    read, and :meth:`reserve` writes it only if the decision still holds: the account's available
    balance still covers it and, when the decision refused some transfer for its amount, is still
    exactly what it was decided on (a higher one might have covered it). That is the decision a
    locked balance would have given. When it does not hold (or a key was claimed meanwhile),
    nothing is written and the caller decides again."""

    async def seen(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        """``IdempotencyRepository.find_many_and_lock`` without the lock (and without a transaction):
        the account's committed balance (None if there is no such account) and the taken ``keys``."""
        ...

    async def reserve(
        self,
        account_id: int,
        exactly: int | None,
        reservations: Sequence[TransferReservation],
        at: datetime,
    ) -> list[int] | None:
        """All of ``reservations`` at once, atomically, if the account's available balance covers
        them and (unless ``exactly`` is None) is ``exactly``: each record added (its id in the order
        given), its key claimed, its transfer added and its posting applied, every posting moving
        ``account_id``'s balance only. The records' ids; None, with nothing written, when the balance
        does not cover them or is not ``exactly``, or a key is taken."""
        ...


class OutboxRepository(Protocol):
    async def add(self, account_id: int, event: Event, at: datetime) -> None:
        """Queue a notification for delivery: store ``event.type`` as its type and
        ``pixcore.events.payload(event)`` as its content."""
        ...

    async def add_many(self, account_id: int, events: Sequence[Event], at: datetime) -> None:
        """:meth:`add` for several events of one account, with one statement."""
        ...

    async def add_each(self, events: Sequence[tuple[int, Event]], at: datetime) -> None:
        """:meth:`add` for several ``(account_id, event)`` of any accounts, with one statement."""
        ...


class WebhookRepository(Protocol):
    """Webhook registrations, the account's signing secret, and the deliveries' state."""

    async def lock_account(self, account_id: int) -> bool:
        """Serialise the account's registration changes until the unit of work ends (other
        units wait here); False if there is no such account."""
        ...

    async def add(self, new: NewWebhook) -> Webhook:
        """Store an active registration (version 1)."""
        ...

    async def get(self, account_id: int, webhook_id: int) -> Webhook | None:
        """One of the account's registrations, active or not; None for another account's and for
        a key's webhook (those are the standard's ``/webhook``'s, not ``/api/webhooks``')."""
        ...

    async def of_key(self, account_id: int, pix_key: str) -> Webhook | None:
        """The active webhook of one of the account's keys (type PIX), if any."""
        ...

    async def of_keys(
        self, account_id: int, *, start: datetime | None, end: datetime | None, offset: int, limit: int
    ) -> tuple[int, list[Webhook]]:
        """A page of the account's active key webhooks created between ``start`` and ``end``
        (inclusive, None: unbounded), oldest first, and how many match in all."""
        ...

    async def active(self, account_id: int, event_type: EventType) -> list[Webhook]:
        """The account's active registrations of one event type, oldest first."""
        ...

    async def list_for(self, account_id: int) -> list[Webhook]:
        """Every registration of the account, active or not, oldest first (key webhooks aside)."""
        ...

    async def update_headers(self, webhook_id: int, headers: Mapping[str, str], at: datetime) -> Webhook:
        """Replace an active registration's headers and bump its version."""
        ...

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None: ...

    async def secret(self, account_id: int) -> WebhookSecret | None: ...

    async def add_secret(self, account_id: int, secret: str, at: datetime) -> WebhookSecret:
        """Store the account's first secret; if it has one already, that one is kept and returned."""
        ...

    async def rotate_secret(
        self, account_id: int, secret: str, at: datetime, previous_until: datetime
    ) -> WebhookSecret:
        """Make ``secret`` current; the current one (if any) signs too until ``previous_until``."""
        ...

    async def deliveries(
        self,
        account_id: int,
        *,
        limit: int,
        status: DeliveryStatus | None = None,
        filters: DeliveryFilter | None = None,
    ) -> list[Delivery]:
        """The account's most recent deliveries, newest first, narrowed by ``status`` and ``filters``
        (each of its fields that is set; the dates bound ``created_at``, inclusive)."""
        ...

    async def get_delivery(self, account_id: int, delivery_id: int) -> Delivery | None: ...

    async def delivery_detail(self, account_id: int, delivery_id: int) -> DeliveryDetail | None:
        """A delivery of the account with its notification and its attempts, oldest first; None if
        there is no such delivery of the account."""
        ...

    async def requeue_delivery(self, account_id: int, delivery_id: int, at: datetime) -> Delivery | None:
        """A finished (delivered or failed) delivery becomes pending again, due at ``at``, with no
        attempts; a pending one becomes due at ``at`` (if not due earlier), its attempts kept. None
        (and nothing changed) if it is not the account's."""
        ...


class DeliveryStore(Protocol):
    """The notifier's tables: the outbox, registrations and secrets (read), the deliveries.

    Any number of notifiers may share one store. Each outbox event is fanned out once; a claim is
    a lease: a claimed delivery is not claimable again until ``lease_until`` has passed, and an
    outcome is stored only while the claim's lease is still the delivery's (a notifier that lost
    its lease writes nothing: the methods below return False, or leave the delivery out).
    """

    async def dispatch(self, now: datetime, limit: int) -> list[int]:
        """Consume up to ``limit`` undispatched outbox events, oldest first: one pending delivery,
        due at ``now``, per active registration of each event's account and type that was made
        when the event happened (``created_at`` not after the event's: a registration never
        receives older events). Returns the ids of the events consumed (with or without
        registrations)."""
        ...

    async def claim_due(self, now: datetime, limit: int, lease_until: datetime) -> list[Claim]:
        """Lease up to ``limit`` pending deliveries due at ``now`` (oldest due first) until
        ``lease_until``."""
        ...

    async def record(
        self,
        claim: Claim,
        verdict: Verdict,
        *,
        attempted_at: datetime,
        status_code: int | None,
        duration_ms: int = 0,
        error: str | None = None,
        response_body: str | None = None,
    ) -> bool:
        """Store an attempt's outcome and its line of the attempt log (``Attempted.log_error``,
        ``Attempted.log_body``), and deactivate the registration if the verdict says so (410),
        together. False: the lease was lost, nothing was written."""
        ...

    async def record_many(self, outcomes: Sequence[Attempted]) -> set[int]:
        """Store many outcomes at once, each with its line of the attempt log (none may
        deactivate: ``ValueError``); the ids of the deliveries whose lease still held (the others
        get no line)."""
        ...

    async def prune_attempts(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` lines of the attempt log made before ``before``, oldest first;
        how many were deleted."""
        ...

    async def finish_inactive(self, claim: Claim, now: datetime) -> bool:
        """Fail, without an attempt, a delivery whose registration went inactive after the fan-out
        (``INACTIVE_REASON``); False if the lease was lost."""
        ...

    async def release(self, claims: Sequence[Claim], now: datetime) -> int:
        """Give leases back unused: those deliveries are due again at ``now``. How many were."""
        ...


class HostResolver(Protocol):
    """Name resolution (DNS): the addresses a host name stands for."""

    async def resolve(self, host: str, port: int) -> list[str]:
        """The host's IP addresses as text; empty if it does not resolve."""
        ...


class KeyDirectory(Protocol):
    """The DICT: who owns a PIX key."""

    async def lookup(self, key: PixKey) -> DirectoryEntry | None: ...

    async def lookup_many(self, keys: Sequence[PixKey]) -> dict[str, DirectoryEntry]:
        """:meth:`lookup` for several keys with one round trip: the entries found, by key value."""
        ...


@dataclass(frozen=True, slots=True)
class PendingCredential:
    """A caller whose token verified (signature, claims and time window on the clock the process
    last read) but whose certificate status is still to be checked: by the batch that applies its
    request (docs/decisions/transfer-batch-write.md)."""

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


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What a test event got: the receiver's status code, or an error (no answer)."""

    success: bool
    status_code: int | None
    duration_ms: int
    error: str | None


class WebhookProbe(Protocol):
    """Sends one signed notification to a registration now, once (no retry): the test event of
    ``POST /api/webhooks/{id}/test``. The notifier implements it (``pixnotify.probe``) with its
    own HTTP client and signer, so the address guard and the TLS settings apply."""

    async def send(
        self,
        *,
        url: str,
        headers: Mapping[str, str],
        secrets: Sequence[str],
        msg_id: str,
        event: Mapping[str, object],
    ) -> ProbeResult:
        """POST ``event`` (``{type, data}``) signed with ``secrets`` as ``msg_id`` (its
        ``webhook-timestamp`` the wall clock's, which receivers check it against)."""
        ...
