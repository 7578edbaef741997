"""The key directory (``KeyDirectory``) when the service is a participant of a network: the
network's DICT (``getEntry``).

A key of one of this institution's accounts resolves to that account here, without asking the
DICT (such transfers settle inside the service); any other key is looked up in the DICT, resolves
to the participant that holds it, and a transfer to it is settled by the network's SPI (behavior
``spi``). A look-up's ``PI-PayerId`` is its payer (the port's): the CPF or CNPJ of the holder of
the account that pays. The DICT's anti-scan policy counts each payer's look-ups in user buckets of
its own (100 tokens for a natural person, 1,000 for a legal one, refilled 2 a minute), and a
payment the payer sends after a look-up gives its token back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from urllib.parse import quote

from pixcore.identifiers import new_end_to_end_id
from pixcore.keys import PixKey
from pixcore.network.ports import NetworkUnavailable
from pixcore.transfers.rules import SPI_BEHAVIOR, DirectoryEntry
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.network.client import NetworkClient
from pixwire.dict.documents import read_entry_response
from pixwire.dict.model import DictProblem, Entry, ErrorType

__all__ = ["NetworkDirectory"]


class NetworkDirectory:
    def __init__(self, client: NetworkClient, uow: UnitOfWorkFactory, *, ispb: str, bank_name: str) -> None:
        self._client = client
        self._uow = uow
        self._ispb = ispb
        self._bank_name = bank_name

    async def lookup(self, key: PixKey, *, payer: str) -> DirectoryEntry | None:
        ours = await self._ours(key)
        if ours is not None:
            return ours
        headers = {
            "PI-RequestingParticipant": self._ispb,
            "PI-PayerId": payer,
            "PI-EndToEndId": new_end_to_end_id(self._ispb, datetime.now(UTC)),
        }
        try:
            _, root = await self._client.call(
                "GET", "/api/v1/entries/" + quote(key.value, safe=""), headers=headers
            )
        except DictProblem as problem:
            if problem.type is ErrorType.NOT_FOUND:
                return None
            raise NetworkUnavailable(f"the DICT refused a look-up: {problem}") from problem
        return await self._entry(key, read_entry_response(root))

    async def lookup_many(self, keys: Sequence[PixKey], *, payer: str) -> dict[str, DirectoryEntry]:
        found = await asyncio.gather(*(self.lookup(key, payer=payer) for key in keys))
        return {key.value: entry for key, entry in zip(keys, found, strict=True) if entry is not None}

    async def _ours(self, key: PixKey) -> DirectoryEntry | None:
        """A key of one of this institution's accounts, resolved here (its entry in the DICT is
        this institution's own, registered when the account was opened)."""
        async with self._uow() as tx:
            owner = await tx.keys.owner_of(key)
            account = None if owner is None else await tx.accounts.get(owner)
        if account is None:
            return None
        return DirectoryEntry(
            key=key,
            ispb=account.ispb,
            name=account.name,
            document=account.document,
            bank_name=self._bank_name,
            branch=account.branch,
            account_number=account.number,
            account_id=account.id,
        )

    async def _entry(self, key: PixKey, entry: Entry) -> DirectoryEntry | None:
        account, owner = entry.account, entry.owner
        ours = account.participant == self._ispb
        account_id = None
        if ours:
            async with self._uow() as tx:
                account_id = await tx.keys.owner_of(key)
            if account_id is None:  # the DICT says ours, this service does not know it: no entry
                return None
        return DirectoryEntry(
            key=key,
            ispb=account.participant,
            name=owner.name,
            document=owner.tax_id,
            bank_name=self._bank_name if ours else f"ISPB {account.participant}",
            branch=account.branch or "",
            account_number=account.number,
            behavior="settle" if ours else SPI_BEHAVIOR,
            account_id=account_id,
        )
