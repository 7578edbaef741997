"""In-memory fakes of every port in :mod:`pixcore.ports`, for fast unit tests.

``InMemoryStore`` holds the data; ``store.unit_of_work`` is a
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

* a PIX key, a certificate or a client id committed meanwhile by another unit;
* an idempotency key claimed and committed meanwhile (``IntegrityError``;
  PostgreSQL would make the second ``claim`` wait, then return False);
* postings that the balances committed meanwhile no longer cover
  (``InsufficientFunds``; the adapter's guarded ``UPDATE`` re-checks the
  latest row). Postings are re-applied to the committed balances as changes,
  so two units that both fit commit both: no update is lost.

``lock_pending`` locks a transfer for the unit of work until it commits or
rolls back; another unit asking for it meanwhile gets None (``SKIP LOCKED``).

``InMemoryKeyDirectory`` is the DICT; ``ledger_check`` lists what is wrong with
a store's ledger. ``PlainHasher`` and ``RecordingTokenIssuer`` stand in for the
slow Argon2 hasher and the JWT issuer.

    >>> store = InMemoryStore()
    >>> factory: UnitOfWorkFactory = store.unit_of_work
"""

from __future__ import annotations

from pixcore.ports import KeyDirectory, UnitOfWorkFactory
from pixcore.testing._accounts import (
    InMemoryAccounts,
    InMemoryBalances,
    InMemoryCertificates,
    InMemoryCredentials,
    InMemoryPixKeys,
)
from pixcore.testing._checks import external_total, ledger_check
from pixcore.testing._directory import InMemoryKeyDirectory
from pixcore.testing._money import (
    InMemoryIdempotency,
    InMemoryLedger,
    InMemoryOutbox,
    InMemoryTransactions,
    InMemoryTransfers,
)
from pixcore.testing._security import IssueCall, PlainHasher, RecordingTokenIssuer
from pixcore.testing._store import (
    BRANCH,
    InMemoryStore,
    IntegrityError,
    OutboxItem,
    StoredCertificate,
    StoredEntry,
    StoredKey,
)
from pixcore.testing._uow import InMemoryUnitOfWork

__all__ = [
    "BRANCH",
    "InMemoryAccounts",
    "InMemoryBalances",
    "InMemoryCertificates",
    "InMemoryCredentials",
    "InMemoryIdempotency",
    "InMemoryKeyDirectory",
    "InMemoryLedger",
    "InMemoryOutbox",
    "InMemoryPixKeys",
    "InMemoryStore",
    "InMemoryTransactions",
    "InMemoryTransfers",
    "InMemoryUnitOfWork",
    "IntegrityError",
    "IssueCall",
    "OutboxItem",
    "PlainHasher",
    "RecordingTokenIssuer",
    "StoredCertificate",
    "StoredEntry",
    "StoredKey",
    "external_total",
    "ledger_check",
]


def _is_a_unit_of_work_factory(store: InMemoryStore) -> UnitOfWorkFactory:
    """Never called: mypy checks here that the fakes still fit the ports."""
    return store.unit_of_work


def _is_a_key_directory(directory: InMemoryKeyDirectory) -> KeyDirectory:
    """Never called: mypy checks here that the fake directory fits its port."""
    return directory
