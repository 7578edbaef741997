"""In-memory fakes of every port of ``pixcore`` (``pixcore.unit_of_work`` and each feature's
``ports``), for fast unit tests.

``InMemoryStore`` holds the data (the console's sessions too); ``store.unit_of_work`` is a
``UnitOfWorkFactory``. A unit of work stages its changes: they are visible to
itself at once, to everyone else only after ``commit()``, and leaving the block
without a commit (or with an exception) discards them, as the PostgreSQL
adapter does. The repositories raise the same domain errors as that adapter
(``DuplicatePixKey``, ``CertificateInUse``, ``InsufficientFunds``) and number
accounts and transactions the same way (a sequence: an id is spent even if
its unit rolls back). What the database refuses without a domain error of its
own (a row pointing at a missing account or transaction, a second credential
with the same client id) raises :class:`IntegrityError`.

Two open units of work cannot see each other's staged rows. Where PostgreSQL
would make the second writer wait for the first and then fail, the fake fails
the second writer at ``commit()`` instead, and discards all its changes:

* a PIX key, a certificate, a client id or a transfer's end-to-end id committed meanwhile
  by another unit;
* an idempotency key claimed and committed meanwhile (``IntegrityError``;
  PostgreSQL would make the second ``claim`` wait, then return False);
* postings that the balances committed meanwhile no longer cover
  (``InsufficientFunds``; the adapter's guarded ``UPDATE`` re-checks the
  latest row). Postings are re-applied to the committed balances as changes,
  so two units that both fit commit both: no update is lost.

``lock_pending`` locks a transfer or a refund for the unit of work until it commits
or rolls back; another unit asking for it meanwhile gets None (``SKIP LOCKED``).
tests/contract runs the same tests on these fakes and on the PostgreSQL adapter.

Webhook registrations lock their account (``lock_account``): a second unit of
work waits until the first commits or rolls back, as ``FOR NO KEY UPDATE`` does.
``StaticResolver`` is a ``HostResolver`` answering from a fixed table (as the operating system's
resolver answers: names in any case, an IP literal as itself, the addresses sorted, each once).

Pix Automático's repositories (``InMemoryRecurrences`` and the others of ``_recurrences``) keep
their rows in ``store.recurring`` (:class:`RecurrenceTables`), with the sandbox payers' balances;
a payer's debit is re-checked at commit as a ledger posting is.

``InMemoryDeliveryStore`` is the notifier's ``DeliveryStore`` (its own tables: outbox,
registrations, secrets, deliveries).

``InMemoryTransferGroupStore`` reserves a transfer group with one read and one write (its own units
of work). ``InMemoryKeyDirectory`` is the DICT; ``InMemoryCertificateCheck`` judges callers'
certificates on a store's committed ones; ``ledger_check`` lists what is wrong with a store's
ledger. ``PlainHasher``, ``InlineVerifier`` and ``RecordingTokenIssuer`` stand in for the slow
Argon2 hasher, the bounded verifier and the JWT issuer.

    >>> store = InMemoryStore()
    >>> factory: UnitOfWorkFactory = store.unit_of_work
"""

from __future__ import annotations

from pixcore.accounts.ports import CertificateCheck, SecretVerifier
from pixcore.queries.rules import TransactionQueries
from pixcore.testing._accounts import (
    InMemoryAccounts,
    InMemoryBalances,
    InMemoryCertificates,
    InMemoryCredentials,
    InMemoryPixKeys,
)
from pixcore.testing._certificate_check import InMemoryCertificateCheck
from pixcore.testing._checks import external_total, ledger_check
from pixcore.testing._directory import InMemoryKeyDirectory
from pixcore.testing._money import (
    InMemoryIdempotency,
    InMemoryLedger,
    InMemoryOutbox,
    InMemoryTransactions,
    InMemoryTransfers,
)
from pixcore.testing._queries import InMemoryTransactionQueries
from pixcore.testing._recurrence_data import RecurrenceTables
from pixcore.testing._recurrences import (
    InMemoryPayerBank,
    InMemoryRecurrenceLocations,
    InMemoryRecurrenceRequests,
    InMemoryRecurrences,
    InMemoryRecurringCharges,
)
from pixcore.testing._security import InlineVerifier, IssueCall, PlainHasher, RecordingTokenIssuer
from pixcore.testing._sessions import InMemoryConsoleSessions
from pixcore.testing._store import (
    BRANCH,
    IntegrityError,
    OutboxItem,
    StoredCertificate,
    StoredEntry,
    StoredKey,
)
from pixcore.testing._transfer_group import InMemoryTransferGroupStore
from pixcore.testing._uow import InMemoryReads, InMemoryStore, InMemoryUnitOfWork, ReadOnlyWrite
from pixcore.testing._webhook_data import WebhookTables
from pixcore.testing._webhooks import InMemoryWebhooks, StaticResolver
from pixcore.testing.deliveries import InMemoryDeliveryStore, OutboxEvent
from pixcore.transfers.ports import KeyDirectory
from pixcore.unit_of_work import ReadUnitsOfWork, UnitOfWorkFactory
from pixcore.webhooks.ports import DeliveryStore, HostResolver

__all__ = [
    "BRANCH",
    "InMemoryAccounts",
    "InMemoryBalances",
    "InMemoryCertificateCheck",
    "InMemoryCertificates",
    "InMemoryConsoleSessions",
    "InMemoryCredentials",
    "InMemoryDeliveryStore",
    "InMemoryIdempotency",
    "InMemoryKeyDirectory",
    "InMemoryLedger",
    "InMemoryOutbox",
    "InMemoryPayerBank",
    "InMemoryPixKeys",
    "InMemoryReads",
    "InMemoryRecurrenceLocations",
    "InMemoryRecurrenceRequests",
    "InMemoryRecurrences",
    "InMemoryRecurringCharges",
    "InMemoryStore",
    "InMemoryTransactionQueries",
    "InMemoryTransactions",
    "InMemoryTransferGroupStore",
    "InMemoryTransfers",
    "InMemoryUnitOfWork",
    "InMemoryWebhooks",
    "InlineVerifier",
    "IntegrityError",
    "IssueCall",
    "OutboxEvent",
    "OutboxItem",
    "PlainHasher",
    "ReadOnlyWrite",
    "RecordingTokenIssuer",
    "RecurrenceTables",
    "StaticResolver",
    "StoredCertificate",
    "StoredEntry",
    "StoredKey",
    "WebhookTables",
    "external_total",
    "ledger_check",
]


def _is_a_secret_verifier(verifier: InlineVerifier) -> SecretVerifier:
    """Never called: mypy checks here that the fake verifier fits its port."""
    return verifier


def _is_a_unit_of_work_factory(store: InMemoryStore) -> UnitOfWorkFactory:
    """Never called: mypy checks here that the fakes still fit the ports."""
    return store.unit_of_work


def _are_read_units_of_work(store: InMemoryStore) -> ReadUnitsOfWork:
    """Never called: mypy checks here that the fake reads fit their port."""
    return store.reads()


def _is_a_host_resolver(resolver: StaticResolver) -> HostResolver:
    """Never called: mypy checks here that the fake resolver fits its port."""
    return resolver


def _is_a_key_directory(directory: InMemoryKeyDirectory) -> KeyDirectory:
    """Never called: mypy checks here that the fake directory fits its port."""
    return directory


def _is_a_certificate_check(check: InMemoryCertificateCheck) -> CertificateCheck:
    """Never called: mypy checks here that the fake certificate check fits its port."""
    return check


def _is_a_transaction_queries(queries: InMemoryTransactionQueries) -> TransactionQueries:
    """Never called: mypy checks here that the fake read side fits its port."""
    return queries


def _is_a_delivery_store(store: InMemoryDeliveryStore) -> DeliveryStore:
    """Never called: mypy checks here that the notifier's fake fits its port."""
    return store
