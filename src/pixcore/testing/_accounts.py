"""Fakes of the account ports: accounts, balances, PIX keys, credentials, certificates."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pixcore.accounts.rules import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
)
from pixcore.errors import CertificateInUse, DuplicatePixKey
from pixcore.keys import PixKey
from pixcore.testing._store import BRANCH, IntegrityError, Repository, StoredCertificate, StoredKey

__all__ = [
    "InMemoryAccounts",
    "InMemoryBalances",
    "InMemoryCertificates",
    "InMemoryCredentials",
    "InMemoryPixKeys",
]


class InMemoryAccounts(Repository):
    async def add(self, new: NewAccount) -> Account:
        store = self._uow.store
        account_id = store.next_account_id()
        account = Account(
            id=account_id,
            ispb=new.ispb,
            branch=BRANCH,
            number=f"{account_id:08d}",
            name=new.name,
            document=new.document,
            city=new.city,
            street=new.street,
            state=new.state,
            postal_code=new.postal_code,
            created_at=store.clock.now(),
            sandbox_admin=new.sandbox_admin,
        )
        staged = self._staged
        staged.accounts[account_id] = account
        staged.balances[account_id] = Balance(available=0, blocked=0)
        return account

    async def get(self, account_id: int) -> Account | None:
        staged = self._staged.accounts.get(account_id)
        return staged if staged is not None else self._committed.accounts.get(account_id)


class InMemoryBalances(Repository):
    async def get(self, account_id: int) -> Balance | None:
        return self._balance(account_id)

    async def lock(self, account_id: int) -> Balance | None:
        """The balance; one unit of work runs at a time here, so nothing else is locked out."""
        return self._balance(account_id)


class InMemoryPixKeys(Repository):
    async def add(self, account_id: int, key: PixKey) -> None:
        staged = self._staged
        if await self.owner_of(key) is not None:
            raise DuplicatePixKey(f"the key {key.value} is registered already")
        self._require_account(account_id)
        staged.keys[key.value] = StoredKey(account_id, key)

    async def owner_of(self, key: PixKey) -> int | None:
        stored = self._staged.keys.get(key.value)
        if stored is None and key.value not in self._staged.removed_keys:
            stored = self._committed.keys.get(key.value)
        return stored.account_id if stored is not None else None

    async def list_for(self, account_id: int) -> list[PixKey]:
        # Committed keys were registered before this unit's own: the PostgreSQL adapter's id order.
        rows = [*self._committed.keys.values(), *self._staged.keys.values()]
        return [row.key for row in rows if await self.owner_of(row.key) == account_id]

    async def remove(self, account_id: int, key: PixKey) -> bool:
        if await self.owner_of(key) != account_id:
            return False
        self._staged.keys.pop(key.value, None)
        self._staged.removed_keys.add(key.value)
        return True


class InMemoryCredentials(Repository):
    async def add(self, credential: ClientCredential) -> None:
        staged = self._staged
        if credential.client_id in staged.credentials or credential.client_id in self._committed.credentials:
            raise IntegrityError(f"the client id {credential.client_id} exists already")
        self._require_account(credential.account_id)
        staged.credentials[credential.client_id] = credential

    async def get(self, client_id: str) -> ClientCredential | None:
        staged = self._staged
        found = staged.new_secrets.get(client_id) or staged.credentials.get(client_id)
        return found if found is not None else self._committed.credentials.get(client_id)

    async def replace_secret(self, account_id: int, secret_hash: str) -> str | None:
        staged = self._staged
        for client_id in sorted({*self._committed.credentials, *staged.credentials}):
            credential = await self.get(client_id)
            if credential is not None and credential.account_id == account_id:
                if client_id in staged.credentials:  # added by this unit: change it in place
                    staged.credentials[client_id] = replace(credential, secret_hash=secret_hash)
                else:
                    staged.new_secrets[client_id] = replace(credential, secret_hash=secret_hash)
                return client_id
        return None


class InMemoryCertificates(Repository):
    async def link(self, account_id: int, certificate: CertificateInfo) -> LinkedCertificate:
        existing = await self._stored(certificate.fingerprint)
        if existing is not None:
            if existing.account_id != account_id:
                raise CertificateInUse()
            return LinkedCertificate(certificate.fingerprint, account_id, existing.revoked_at)
        self._require_account(account_id)
        self._staged.certificates[certificate.fingerprint] = StoredCertificate(account_id, certificate)
        return LinkedCertificate(fingerprint=certificate.fingerprint, account_id=account_id)

    async def get(self, fingerprint: str) -> LinkedCertificate | None:
        stored = await self._stored(fingerprint)
        if stored is None:
            return None
        return LinkedCertificate(fingerprint, stored.account_id, stored.revoked_at)

    async def revoke(self, fingerprint: str, at: datetime) -> datetime:
        stored = await self._stored(fingerprint)
        if stored is None:
            raise RuntimeError(f"no certificate {fingerprint} to revoke")  # as the adapter: a caller's bug
        if stored.revoked_at is not None:
            return stored.revoked_at
        if fingerprint in self._staged.certificates:  # linked by this unit
            self._staged.certificates[fingerprint] = replace(stored, revoked_at=at)
        else:
            self._staged.revocations[fingerprint] = at
        return at

    async def _stored(self, fingerprint: str) -> StoredCertificate | None:
        staged = self._staged.certificates.get(fingerprint)
        stored = staged if staged is not None else self._committed.certificates.get(fingerprint)
        revoked_at = self._staged.revocations.get(fingerprint)
        if stored is not None and stored.revoked_at is None and revoked_at is not None:
            return replace(stored, revoked_at=revoked_at)
        return stored
