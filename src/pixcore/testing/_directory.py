"""A fake of the ``KeyDirectory`` port (the DICT), as the sandbox directory behaves."""

from __future__ import annotations

from collections.abc import Sequence

from pixcore.errors import DuplicatePixKey
from pixcore.keys import PixKey
from pixcore.testing._store import StoreState
from pixcore.transfers.rules import DirectoryEntry

__all__ = ["InMemoryKeyDirectory"]


class InMemoryKeyDirectory:
    """Resolves the keys of the accounts of ``store`` to those accounts, and any key ``add``-ed.

    A key registered (and committed) to an account of the store resolves to that
    account, with ``account_id`` set and behavior ``settle``: such transfers
    settle inside the service. Other keys are the outside world, known only once
    added. The directory is not part of any unit of work: it reads what the
    store has committed. It records each call's keys and payer.
    """

    def __init__(self, store: StoreState | None = None, *, bank_name: str = "") -> None:
        self.store = store
        self.bank_name = bank_name
        self.entries: dict[str, DirectoryEntry] = {}
        self.lookups: list[PixKey] = []
        self.many_lookups: list[list[PixKey]] = []  # each call of lookup_many, its keys
        self.payers: list[str] = []  # each call's payer (of lookup and lookup_many), in order

    def add(self, entry: DirectoryEntry) -> None:
        """Add an outside key; a key an account or an earlier entry has is ``DuplicatePixKey``."""
        value = entry.key.value
        if value in self.entries or (self.store is not None and value in self.store.keys):
            raise DuplicatePixKey(f"the key {value} is registered already")
        self.entries[value] = entry

    async def lookup_many(self, keys: Sequence[PixKey], *, payer: str) -> dict[str, DirectoryEntry]:
        self.many_lookups.append(list(keys))
        self.payers.append(payer)
        found = {key.value: self._find(key) for key in keys}
        return {value: entry for value, entry in found.items() if entry is not None}

    async def lookup(self, key: PixKey, *, payer: str) -> DirectoryEntry | None:
        self.lookups.append(key)
        self.payers.append(payer)
        return self._find(key)

    def _find(self, key: PixKey) -> DirectoryEntry | None:
        stored = self.store.keys.get(key.value) if self.store is not None else None
        if self.store is None or stored is None:
            return self.entries.get(key.value)
        account = self.store.accounts[stored.account_id]
        return DirectoryEntry(
            key=stored.key,
            ispb=account.ispb,
            name=account.name,
            document=account.document,
            bank_name=self.bank_name,
            branch=account.branch,
            account_number=account.number,
            behavior="settle",
            account_id=account.id,
        )
