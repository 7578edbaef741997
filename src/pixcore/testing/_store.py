"""The data of the fakes: the committed tables of a store and the staged tables of a unit of work.

:class:`StoreState` is the store's committed state and what its units of work call (sequences, row
locks, ``apply``); :class:`Repository` is the base of the fake repositories, which know their unit
of work only as a :class:`Unit`. ``pixcore.testing._uow`` builds the units of work on both, and
``InMemoryStore`` (the store that opens them) there."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import NamedTuple, Protocol

from pixcore.accounts.rules import Account, Balance, CertificateInfo, ClientCredential
from pixcore.accounts.sessions import ConsoleSession
from pixcore.charges.batches import DueBatch
from pixcore.charges.cob import Charge
from pixcore.charges.locations import Location
from pixcore.charges.parts import location_taken
from pixcore.charges.ports import LocationRepository
from pixcore.clock import Clock, SystemClock
from pixcore.errors import (
    CertificateInUse,
    DuplicateBatch,
    DuplicateCharge,
    DuplicateExternalId,
    DuplicateMedCase,
    DuplicatePixKey,
    InsufficientFunds,
)
from pixcore.events import Event, RecurringRoute
from pixcore.keys import PixKey
from pixcore.ledger import Bucket
from pixcore.network.rules import MedLink, NetworkReceipt, ReceiptState
from pixcore.records import NewTransaction, Transfer
from pixcore.refunds.med import MedCase
from pixcore.refunds.rules import NewRefund, Refund
from pixcore.testing._integrity import IntegrityError
from pixcore.testing._recurrence_data import RecurrenceTables
from pixcore.testing._webhook_data import AccountLocks, WebhookTables
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.unit_of_work import TransactionRepository
from pixcore.webhooks.rules import EventType

__all__ = [
    "BRANCH",
    "IntegrityError",
    "OutboxItem",
    "Repository",
    "StoreState",
    "StoredCertificate",
    "StoredEntry",
    "StoredKey",
    "Tables",
    "Unit",
]

BRANCH = "0001"
"""The one branch of the service, as in the PostgreSQL adapter."""


@dataclass(frozen=True, slots=True)
class StoredKey:
    account_id: int
    key: PixKey


@dataclass(frozen=True, slots=True)
class StoredCertificate:
    account_id: int
    info: CertificateInfo
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One ledger entry as written: a line of the posting ``posting`` of a transaction."""

    transaction_id: int
    posting: str
    account_id: int | None
    bucket: Bucket
    amount: int
    at: datetime
    institution: str | None = None
    """The outside institution (ISPB) of an ``EXTERNAL`` entry."""


class OutboxItem(NamedTuple):
    """A queued notification: ``(account_id, event, webhook_type, at)``, the typed event and the
    registration type it goes to. Its JSON is the adapters' to write (``pixinfra.event_payloads``):
    a test that reads the JSON writes it from the event with the same function."""

    account_id: int
    event: Event
    webhook_type: EventType | RecurringRoute
    at: datetime


@dataclass
class Tables:
    """One set of rows: the committed state of a store, or the staged changes of a unit of work."""

    accounts: dict[int, Account] = field(default_factory=dict)
    balances: dict[int, Balance] = field(default_factory=dict)
    keys: dict[str, StoredKey] = field(default_factory=dict)  # by key value, in registration order
    removed_keys: set[str] = field(default_factory=set)  # staged only: keys taken off their accounts
    credentials: dict[str, ClientCredential] = field(default_factory=dict)
    certificates: dict[str, StoredCertificate] = field(default_factory=dict)
    # Staged only: new secret hashes of existing credentials, revocations of linked certificates.
    new_secrets: dict[str, ClientCredential] = field(default_factory=dict)
    revocations: dict[str, datetime] = field(default_factory=dict)
    transactions: dict[int, NewTransaction] = field(default_factory=dict)
    entries: list[StoredEntry] = field(default_factory=list)
    transfers: dict[int, Transfer] = field(default_factory=dict)
    finished_at: dict[int, datetime] = field(default_factory=dict)  # by transfer
    idempotency: dict[tuple[int, uuid.UUID], IdempotencyRecord] = field(default_factory=dict)
    claimed_at: dict[tuple[int, uuid.UUID], datetime] = field(default_factory=dict)
    outbox: list[OutboxItem] = field(default_factory=list)
    webhooks: WebhookTables = field(default_factory=WebhookTables)
    charges: dict[int, Charge] = field(default_factory=dict)
    charge_revisions: dict[tuple[int, int], Charge] = field(default_factory=dict)  # (charge, revision)
    locations: dict[int, Location] = field(default_factory=dict)  # txid and charge_id left None
    batches: dict[tuple[int, int], DueBatch] = field(default_factory=dict)  # by (account, id)
    new_batches: set[tuple[int, int]] = field(default_factory=set)  # staged only: those added
    refunds: dict[int, Refund] = field(default_factory=dict)
    med_cases: dict[int, MedCase] = field(default_factory=dict)
    console_sessions: dict[str, ConsoleSession] = field(default_factory=dict)
    # Staged only: console sessions used and ended (by id), applied as changes to the committed rows.
    session_touches: dict[str, datetime] = field(default_factory=dict)
    session_ends: dict[str, datetime] = field(default_factory=dict)
    # Staged only: the (available, blocked) change each account's postings made in this unit.
    balance_changes: dict[int, tuple[int, int]] = field(default_factory=dict)
    recurring: RecurrenceTables = field(default_factory=RecurrenceTables)
    """Pix Automático's rows and the sandbox payers' balances."""
    network_receipts: dict[str, NetworkReceipt] = field(default_factory=dict)  # by end-to-end id
    network_cursor: list[int] = field(default_factory=list)  # the last cursor advanced to, if any
    med_links: dict[str, tuple[MedLink, datetime | None]] = field(default_factory=dict)  # by DICT refund id


class StoreState:
    """The committed data, in plain dicts and lists that tests may read and seed directly
    (``InMemoryStore`` adds the units of work).

    ``clock`` stamps ``created_at`` on new accounts. ``commits`` counts the
    units of work that committed.

    ``tables`` holds the committed rows. The sequences (``next_*``), the transfer locks
    (``lock_row``, ``release_locks``) and ``apply`` are what the fake repositories and
    units of work of this package call; a test has no reason to.
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()
        self.tables = Tables()
        self.commits = 0
        self._last_account_id = 0
        self._last_transaction_id = 0
        self._sequences: dict[str, int] = {}
        self._row_locks: dict[tuple[str, int], object] = {}  # by row, the unit of work holding it
        self.account_locks = AccountLocks()  # webhook registrations lock their account

    @property
    def accounts(self) -> dict[int, Account]:
        return self.tables.accounts

    @property
    def balances(self) -> dict[int, Balance]:
        return self.tables.balances

    @property
    def keys(self) -> dict[str, StoredKey]:
        return self.tables.keys

    @property
    def credentials(self) -> dict[str, ClientCredential]:
        return self.tables.credentials

    @property
    def certificates(self) -> dict[str, StoredCertificate]:
        return self.tables.certificates

    @property
    def transactions(self) -> dict[int, NewTransaction]:
        return self.tables.transactions

    @property
    def entries(self) -> list[StoredEntry]:
        return self.tables.entries

    @property
    def transfers(self) -> dict[int, Transfer]:
        return self.tables.transfers

    @property
    def finished_at(self) -> dict[int, datetime]:
        """When each finished transfer was finished."""
        return self.tables.finished_at

    @property
    def idempotency(self) -> dict[tuple[int, uuid.UUID], IdempotencyRecord]:
        return self.tables.idempotency

    @property
    def claimed_at(self) -> dict[tuple[int, uuid.UUID], datetime]:
        """When each idempotency key was claimed."""
        return self.tables.claimed_at

    @property
    def outbox(self) -> list[OutboxItem]:
        return self.tables.outbox

    @property
    def webhooks(self) -> WebhookTables:
        """Webhook registrations, secrets and deliveries (tests seed ``deliveries`` here)."""
        return self.tables.webhooks

    @property
    def charges(self) -> dict[int, Charge]:
        return self.tables.charges

    @property
    def locations(self) -> dict[int, Location]:
        """Payload locations (their charge is the one whose ``loc_id`` names them)."""
        return self.tables.locations

    @property
    def refunds(self) -> dict[int, Refund]:
        return self.tables.refunds

    @property
    def med_cases(self) -> dict[int, MedCase]:
        return self.tables.med_cases

    @property
    def recurring(self) -> RecurrenceTables:
        """Pix Automático's committed rows and the sandbox payers' balances."""
        return self.tables.recurring

    def next_account_id(self) -> int:
        """The next account id. Like a PostgreSQL sequence: spent even if its unit rolls back."""
        self._last_account_id += 1
        return self._last_account_id

    def next_id(self, table: str) -> int:
        """A sequence per table (charges, refunds, med_cases): spent even on rollback."""
        self._sequences[table] = self._sequences.get(table, 0) + 1
        return self._sequences[table]

    def next_transaction_id(self) -> int:
        """The next transaction id: a sequence, spent even on rollback."""
        self._last_transaction_id += 1
        return self._last_transaction_id

    def lock_row(self, table: str, row_id: int, uow: object) -> bool:
        """Like ``FOR UPDATE SKIP LOCKED``: False if another open unit of work holds the row."""
        holder = self._row_locks.setdefault((table, row_id), uow)
        return holder is uow

    def release_locks(self, uow: object) -> None:
        """Free the rows and accounts ``uow`` locked (it committed or rolled back)."""
        for row in [row for row, holder in self._row_locks.items() if holder is uow]:
            del self._row_locks[row]
        self.account_locks.release(uow)

    def apply(self, staged: Tables) -> None:
        """Check the staged rows against what others committed meanwhile, then make them visible."""
        committed = self.tables
        _check_keys(committed, staged)
        for fingerprint, certificate in staged.certificates.items():
            linked = committed.certificates.get(fingerprint)
            if linked is not None and linked.account_id != certificate.account_id:
                raise CertificateInUse()
        _check_sessions(committed, staged)
        for client_id in staged.credentials:
            if client_id in committed.credentials:
                raise IntegrityError(f"the client id {client_id} exists already")
        for account_id, key in staged.idempotency:
            if (account_id, key) in committed.idempotency:
                raise IntegrityError(f"the idempotency key {key} of account {account_id} is taken")
        _check_transfers(committed.transfers, staged.transfers)
        _check_network(committed, staged)
        _check_charges(committed.charges, staged.charges, committed.batches, staged.new_batches)
        _check_refunds(committed.refunds, staged.refunds)
        _check_med_cases(committed.med_cases, staged.med_cases)
        if (webhook_conflict := committed.webhooks.conflict(staged.webhooks)) is not None:
            raise IntegrityError(webhook_conflict)
        recurring = _recurring_after(committed.recurring, staged.recurring)
        balances = self._balances_after(staged)
        committed.accounts.update(staged.accounts)
        committed.balances.update(balances)
        _apply_keys(committed, staged)
        committed.credentials.update(staged.credentials)
        committed.credentials.update(staged.new_secrets)
        for fingerprint, certificate in staged.certificates.items():
            committed.certificates.setdefault(fingerprint, certificate)
        for fingerprint, at in staged.revocations.items():
            stored = committed.certificates[fingerprint]
            if stored.revoked_at is None:  # the first revocation stands, as the adapter's UPDATE
                committed.certificates[fingerprint] = replace(stored, revoked_at=at)
        committed.transactions.update(staged.transactions)
        committed.entries.extend(staged.entries)
        committed.transfers.update(staged.transfers)
        committed.finished_at.update(staged.finished_at)
        _apply_network(committed, staged)
        committed.idempotency.update(staged.idempotency)
        committed.claimed_at.update(staged.claimed_at)
        committed.outbox.extend(staged.outbox)
        committed.webhooks.merge(staged.webhooks)
        committed.charges.update(staged.charges)
        committed.charge_revisions.update(staged.charge_revisions)
        committed.locations.update(staged.locations)
        committed.batches.update(staged.batches)
        committed.refunds.update(staged.refunds)
        committed.med_cases.update(staged.med_cases)
        committed.recurring = recurring
        _apply_sessions(committed, staged)
        self.commits += 1

    def _balances_after(self, staged: Tables) -> dict[int, Balance]:
        """The staged balances, with the postings re-applied to what is committed now.

        PostgreSQL guards each ``UPDATE`` with ``available + $1 >= 0`` against the
        latest committed row; a unit that staged its postings on an older view is
        checked here, and fails with ``InsufficientFunds`` if the money is gone.
        """
        balances = dict(staged.balances)
        for account_id, (available, blocked) in staged.balance_changes.items():
            base = self.tables.balances.get(account_id)
            if base is None:  # opened in this unit: its staged balance is the whole truth
                continue
            if base.available + available < 0 or base.blocked + blocked < 0:
                raise InsufficientFunds()
            balances[account_id] = Balance(base.available + available, base.blocked + blocked)
        return balances


def _check_charges(
    committed: dict[int, Charge],
    staged: dict[int, Charge],
    batches: dict[tuple[int, int], DueBatch],
    new_batches: set[tuple[int, int]],
) -> None:
    """The unique indexes of the charges table (txid and external id per account, location: its
    token and its id, a location serves one charge) and the primary key of the batches of
    due-date charges (account, id)."""
    if any(key in batches for key in new_batches):
        raise DuplicateBatch()
    taken = {(c.account_id, c.txid) for i, c in committed.items() if i not in staged}
    external = {
        (c.account_id, c.external_id) for i, c in committed.items() if i not in staged and c.external_id
    }
    locations = {c.location_id for i, c in committed.items() if i not in staged and c.location_id}
    served = {c.loc_id for i, c in committed.items() if i not in staged and c.loc_id is not None}
    for charge in staged.values():
        if (charge.account_id, charge.txid) in taken:
            raise DuplicateCharge(f"a charge with txid {charge.txid} exists already")
        if charge.external_id and (charge.account_id, charge.external_id) in external:
            raise DuplicateExternalId(f"a cash-in with externalId {charge.external_id} exists already")
        if charge.location_id is not None and charge.location_id in locations:
            raise IntegrityError(f"location {charge.location_id} is taken")
        if charge.loc_id is not None and charge.loc_id in served:
            raise location_taken()


def _recurring_after(committed: RecurrenceTables, staged: RecurrenceTables) -> RecurrenceTables:
    """Pix Automático's rows once ``staged`` is applied, checked as the adapter's unique indexes
    and guarded payer debits check them."""
    if (conflict := committed.conflict(staged)) is not None:
        raise conflict
    return committed.merged(staged)


def _check_sessions(committed: Tables, staged: Tables) -> None:
    for session_id in staged.console_sessions:
        if session_id in committed.console_sessions:
            raise IntegrityError(f"the console session {session_id} exists already")


def _apply_sessions(committed: Tables, staged: Tables) -> None:
    """As the adapter's ``UPDATE``s: a use never moves ``last_seen_at`` back, the first end stands."""
    committed.console_sessions.update(staged.console_sessions)
    for session_id, at in staged.session_touches.items():
        stored = committed.console_sessions[session_id]
        committed.console_sessions[session_id] = replace(stored, last_seen_at=max(stored.last_seen_at, at))
    for session_id, at in staged.session_ends.items():
        stored = committed.console_sessions[session_id]
        if stored.ended_at is None:
            committed.console_sessions[session_id] = replace(stored, ended_at=at)


def _check_network(committed: Tables, staged: Tables) -> None:
    """The primary key of the received payments: two units accepting one payment, one wins."""
    for e2e, receipt in staged.network_receipts.items():
        if receipt.state is ReceiptState.ACCEPTED and e2e in committed.network_receipts:
            raise IntegrityError(f"the payment {e2e} was accepted already")


def _apply_network(committed: Tables, staged: Tables) -> None:
    committed.network_receipts.update(staged.network_receipts)
    committed.med_links.update(staged.med_links)
    if staged.network_cursor:
        committed.network_cursor[:] = staged.network_cursor[-1:]


def _check_transfers(committed: dict[int, Transfer], staged: dict[int, Transfer]) -> None:
    """The unique end-to-end id of the transfers table."""
    sent = {t.end_to_end_id for i, t in committed.items() if i not in staged}
    for transfer in staged.values():
        if transfer.end_to_end_id in sent:
            raise IntegrityError(f"a transfer with end-to-end id {transfer.end_to_end_id} exists already")


def _check_refunds(committed: dict[int, Refund], staged: dict[int, Refund]) -> None:
    """The unique columns of the refunds table: the request per original and kind, the RTR id per
    kind and the refund's own transaction record."""
    others = [r for i, r in committed.items() if i not in staged]
    for refund in staged.values():
        for other in others:
            if (conflict := refund_conflict(refund, other)) is not None:
                raise IntegrityError(conflict)


def refund_conflict(new: NewRefund, other: Refund) -> str | None:
    """What the refunds table's unique indexes would refuse in ``new`` beside ``other``, if anything."""
    if (new.original_transaction_id, new.kind, new.refund_id) == (
        other.original_transaction_id,
        other.kind,
        other.refund_id,
    ):
        return f"refund {new.refund_id} exists already"
    if (new.rtr_id, new.kind) == (other.rtr_id, other.kind):  # both sides of a return share it
        return f"the RTR id {new.rtr_id} is taken"
    if new.transaction_id == other.transaction_id:
        return f"transaction {new.transaction_id} has a refund already"
    return None


def _check_med_cases(committed: dict[int, MedCase], staged: dict[int, MedCase]) -> None:
    """The partial unique index: one open case per receipt."""
    open_elsewhere = {
        c.original_transaction_id for i, c in committed.items() if i not in staged and c.is_open
    }
    if any(c.is_open and c.original_transaction_id in open_elsewhere for c in staged.values()):
        raise DuplicateMedCase()


class Unit(Protocol):
    """What a fake repository uses of its unit of work (``InMemoryUnitOfWork``)."""

    @property
    def store(self) -> StoreState: ...

    @property
    def transactions(self) -> TransactionRepository: ...

    @property
    def locations(self) -> LocationRepository: ...

    def active_changes(self) -> Tables: ...


class Repository:
    """A repository of a unit of work: it reads the unit's staged rows, then the committed ones."""

    def __init__(self, uow: Unit) -> None:
        self._uow = uow

    @property
    def _staged(self) -> Tables:
        return self._uow.active_changes()

    @property
    def _committed(self) -> Tables:
        return self._uow.store.tables

    def _require_account(self, account_id: int) -> None:
        if account_id not in self._staged.accounts and account_id not in self._committed.accounts:
            raise IntegrityError(f"account {account_id} does not exist")

    def _require_transaction(self, transaction_id: int) -> NewTransaction:
        record = self._staged.transactions.get(transaction_id) or self._committed.transactions.get(
            transaction_id
        )
        if record is None:
            raise IntegrityError(f"transaction {transaction_id} does not exist")
        return record

    def _balance(self, account_id: int) -> Balance | None:
        staged = self._staged.balances.get(account_id)
        return staged if staged is not None else self._committed.balances.get(account_id)


def _check_keys(committed: Tables, staged: Tables) -> None:
    for value in staged.keys:
        if value in committed.keys and value not in staged.removed_keys:
            raise DuplicatePixKey(f"the key {value} is registered already")


def _apply_keys(committed: Tables, staged: Tables) -> None:
    """The keys taken off their accounts leave, then the new ones (a key may be both: moved)."""
    for value in staged.removed_keys:
        committed.keys.pop(value, None)
    committed.keys.update(staged.keys)
