"""In-memory fakes of every port in :mod:`pixcore.ports`, for fast unit tests.

``InMemoryStore`` holds the data; ``store.unit_of_work`` is a
``UnitOfWorkFactory``. A unit of work stages its changes: they are visible to
itself at once, to everyone else only after ``commit()``, and leaving the block
without a commit (or with an exception) discards them, as the PostgreSQL
adapter does. The repositories raise the same domain errors as that adapter
(``DuplicatePixKey``, ``CertificateInUse``) and number accounts the same way.
What the database refuses without a domain error of its own (a row pointing at
a missing account, a second credential with the same client id) raises
:class:`IntegrityError`.

Two open units of work cannot see each other's staged rows. Where PostgreSQL
would make the second writer of a unique value wait for the first and then
fail, the fake fails the second writer at ``commit()`` instead: the store never
ends up holding a key twice, and the loser's changes are all discarded.

``PlainHasher`` and ``RecordingTokenIssuer`` stand in for the slow Argon2 hasher
and the JWT issuer.

    >>> store = InMemoryStore()
    >>> factory: UnitOfWorkFactory = store.unit_of_work
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Self

from pixcore.accounts import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
)
from pixcore.clock import Clock, SystemClock
from pixcore.errors import CertificateInUse, DuplicatePixKey
from pixcore.keys import PixKey
from pixcore.ports import UnitOfWorkFactory

__all__ = [
    "BRANCH",
    "InMemoryAccounts",
    "InMemoryBalances",
    "InMemoryCertificates",
    "InMemoryCredentials",
    "InMemoryPixKeys",
    "InMemoryStore",
    "InMemoryUnitOfWork",
    "IntegrityError",
    "IssueCall",
    "PlainHasher",
    "RecordingTokenIssuer",
    "StoredCertificate",
    "StoredKey",
]

BRANCH = "0001"
"""The one branch of the service, as in the PostgreSQL adapter."""


class IntegrityError(Exception):
    """The database would refuse this write, and no domain error names the rule."""


@dataclass(frozen=True, slots=True)
class StoredKey:
    account_id: int
    key: PixKey


@dataclass(frozen=True, slots=True)
class StoredCertificate:
    account_id: int
    info: CertificateInfo


@dataclass
class _Tables:
    """One set of rows: the committed state of a store, or the staged changes of a unit of work."""

    accounts: dict[int, Account] = field(default_factory=dict)
    balances: dict[int, Balance] = field(default_factory=dict)
    keys: dict[str, StoredKey] = field(default_factory=dict)  # by key value, in registration order
    credentials: dict[str, ClientCredential] = field(default_factory=dict)
    certificates: dict[str, StoredCertificate] = field(default_factory=dict)


class InMemoryStore:
    """The committed data, in plain dicts that tests may read and seed directly.

    ``clock`` stamps ``created_at`` on new accounts. ``commits`` counts the
    units of work that committed.
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()
        self._tables = _Tables()
        self.commits = 0
        self._last_account_id = 0

    @property
    def accounts(self) -> dict[int, Account]:
        return self._tables.accounts

    @property
    def balances(self) -> dict[int, Balance]:
        return self._tables.balances

    @property
    def keys(self) -> dict[str, StoredKey]:
        return self._tables.keys

    @property
    def credentials(self) -> dict[str, ClientCredential]:
        return self._tables.credentials

    @property
    def certificates(self) -> dict[str, StoredCertificate]:
        return self._tables.certificates

    def unit_of_work(self) -> InMemoryUnitOfWork:
        """A new unit of work on this store: the ``UnitOfWorkFactory``."""
        return InMemoryUnitOfWork(self)

    def _next_account_id(self) -> int:
        # Like a PostgreSQL sequence: an id is spent even if its transaction rolls back.
        self._last_account_id += 1
        return self._last_account_id

    def _apply(self, staged: _Tables) -> None:
        """Check the staged rows against what others committed meanwhile, then make them visible."""
        committed = self._tables
        for value in staged.keys:
            if value in committed.keys:
                raise DuplicatePixKey(f"the key {value} is registered already")
        for fingerprint, certificate in staged.certificates.items():
            linked = committed.certificates.get(fingerprint)
            if linked is not None and linked.account_id != certificate.account_id:
                raise CertificateInUse()
        for client_id in staged.credentials:
            if client_id in committed.credentials:
                raise IntegrityError(f"the client id {client_id} exists already")
        committed.accounts.update(staged.accounts)
        committed.balances.update(staged.balances)
        committed.keys.update(staged.keys)
        committed.credentials.update(staged.credentials)
        for fingerprint, certificate in staged.certificates.items():
            committed.certificates.setdefault(fingerprint, certificate)
        self.commits += 1


class _Repository:
    def __init__(self, uow: InMemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _staged(self) -> _Tables:
        return self._uow._active_changes()

    @property
    def _committed(self) -> _Tables:
        return self._uow.store._tables

    def _require_account(self, account_id: int) -> None:
        if account_id not in self._staged.accounts and account_id not in self._committed.accounts:
            raise IntegrityError(f"account {account_id} does not exist")


class InMemoryAccounts(_Repository):
    async def add(self, new: NewAccount) -> Account:
        store = self._uow.store
        account_id = store._next_account_id()
        account = Account(
            id=account_id,
            ispb=new.ispb,
            branch=BRANCH,
            number=f"{account_id:08d}",
            name=new.name,
            document=new.document,
            city=new.city,
            created_at=store.clock.now(),
        )
        staged = self._staged
        staged.accounts[account_id] = account
        staged.balances[account_id] = Balance(available=0, blocked=0)
        return account

    async def get(self, account_id: int) -> Account | None:
        staged = self._staged.accounts.get(account_id)
        return staged if staged is not None else self._committed.accounts.get(account_id)


class InMemoryBalances(_Repository):
    async def get(self, account_id: int) -> Balance | None:
        staged = self._staged.balances.get(account_id)
        return staged if staged is not None else self._committed.balances.get(account_id)


class InMemoryPixKeys(_Repository):
    async def add(self, account_id: int, key: PixKey) -> None:
        staged = self._staged
        if key.value in staged.keys or key.value in self._committed.keys:
            raise DuplicatePixKey(f"the key {key.value} is registered already")
        self._require_account(account_id)
        staged.keys[key.value] = StoredKey(account_id, key)

    async def owner_of(self, key: PixKey) -> int | None:
        stored = self._staged.keys.get(key.value) or self._committed.keys.get(key.value)
        return stored.account_id if stored is not None else None

    async def list_for(self, account_id: int) -> list[PixKey]:
        # Committed keys were registered before this unit's own: the PostgreSQL adapter's id order.
        rows = [*self._committed.keys.values(), *self._staged.keys.values()]
        return [row.key for row in rows if row.account_id == account_id]


class InMemoryCredentials(_Repository):
    async def add(self, credential: ClientCredential) -> None:
        staged = self._staged
        if credential.client_id in staged.credentials or credential.client_id in self._committed.credentials:
            raise IntegrityError(f"the client id {credential.client_id} exists already")
        self._require_account(credential.account_id)
        staged.credentials[credential.client_id] = credential

    async def get(self, client_id: str) -> ClientCredential | None:
        staged = self._staged.credentials.get(client_id)
        return staged if staged is not None else self._committed.credentials.get(client_id)


class InMemoryCertificates(_Repository):
    async def link(self, account_id: int, certificate: CertificateInfo) -> LinkedCertificate:
        existing = await self._stored(certificate.fingerprint)
        if existing is not None:
            if existing.account_id != account_id:
                raise CertificateInUse()
        else:
            self._require_account(account_id)
            self._staged.certificates[certificate.fingerprint] = StoredCertificate(account_id, certificate)
        return LinkedCertificate(fingerprint=certificate.fingerprint, account_id=account_id)

    async def get(self, fingerprint: str) -> LinkedCertificate | None:
        stored = await self._stored(fingerprint)
        return LinkedCertificate(fingerprint, stored.account_id) if stored is not None else None

    async def _stored(self, fingerprint: str) -> StoredCertificate | None:
        staged = self._staged.certificates.get(fingerprint)
        return staged if staged is not None else self._committed.certificates.get(fingerprint)


class InMemoryUnitOfWork:
    """One transaction on an :class:`InMemoryStore`. Leaving the block without ``commit()`` discards it.

    The repositories work only inside the block and until ``commit()`` or
    ``rollback()``: after either, the unit of work is finished, as a
    PostgreSQL transaction is. ``committed`` tells whether it committed.
    """

    def __init__(self, store: InMemoryStore) -> None:
        self.store = store
        self.accounts = InMemoryAccounts(self)
        self.balances = InMemoryBalances(self)
        self.keys = InMemoryPixKeys(self)
        self.credentials = InMemoryCredentials(self)
        self.certificates = InMemoryCertificates(self)
        self.committed = False
        self._entered = False
        self._open = False
        self._changes = _Tables()

    async def __aenter__(self) -> Self:
        if self._entered:
            raise RuntimeError("a unit of work is entered once")
        self._entered = self._open = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._open:
            await self.rollback()

    async def commit(self) -> None:
        changes = self._active_changes()
        self._open = False
        self._changes = _Tables()
        self.store._apply(changes)  # on a conflict, nothing is applied and the changes are gone
        self.committed = True

    async def rollback(self) -> None:
        self._active_changes()
        self._open = False
        self._changes = _Tables()

    def _active_changes(self) -> _Tables:
        if not self._open:
            state = "finished" if self._entered else "not open"
            raise RuntimeError(f"the unit of work is {state}")
        return self._changes


class PlainHasher:
    """A fast stand-in for the Argon2 ``SecretHasher``: unsalted SHA-256, tagged ``plain$``.

    It never stores the secret itself and refuses any other secret. It counts
    its calls, so that a test can see that a check spent a hash.
    """

    PREFIX = "plain$"

    def __init__(self) -> None:
        self.hash_calls = 0
        self.verify_calls = 0

    def hash(self, secret: str) -> str:
        self.hash_calls += 1
        return self.PREFIX + hashlib.sha256(secret.encode()).hexdigest()

    def verify(self, secret_hash: str, secret: str) -> bool:
        self.verify_calls += 1
        expected = self.PREFIX + hashlib.sha256(secret.encode()).hexdigest()
        return hmac.compare_digest(secret_hash.encode(), expected.encode())


@dataclass(frozen=True, slots=True)
class IssueCall:
    account_id: int
    fingerprint: str
    issued_at: datetime


class RecordingTokenIssuer:
    """A ``TokenIssuer`` that records each call and returns a token made of its arguments."""

    def __init__(self) -> None:
        self.calls: list[IssueCall] = []

    def issue(self, *, account_id: int, fingerprint: str, issued_at: datetime) -> str:
        self.calls.append(IssueCall(account_id, fingerprint, issued_at))
        return f"token:{account_id}:{fingerprint}:{issued_at.isoformat()}"


def _is_a_unit_of_work_factory(store: InMemoryStore) -> UnitOfWorkFactory:
    """Never called: mypy checks here that the fake still fits the port."""
    return store.unit_of_work
