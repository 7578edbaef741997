"""The key registry (``KeyRegistry``) when the service is a participant of a network: the
network's DICT (``createEntry``, ``deleteEntry``), each request signed by this institution.

A key the DICT has for someone else (another owner, another participant, or the same entry
already) is ``DuplicatePixKey``; a key it finds invalid is ``InvalidPixKey``; any other refusal,
or no answer, is ``NetworkUnavailable`` (the account is not opened, nothing stays registered).
"""

from __future__ import annotations

import uuid
from urllib.parse import quote

from pixcore.accounts.rules import Account
from pixcore.errors import DuplicatePixKey, InvalidPixKey
from pixcore.keys import PixKey, PixKeyType
from pixcore.network.ports import NetworkUnavailable
from pixweb.network.client import NetworkClient
from pixwire.dict.documents import create_entry_request, delete_entry_request, read_entry_response
from pixwire.dict.model import (
    AccountType,
    BrazilianAccount,
    CreateEntry,
    DeleteEntry,
    DictProblem,
    EntryReason,
    ErrorType,
    NewEntry,
    Owner,
    OwnerType,
)

__all__ = ["NetworkKeyRegistry", "holder_of"]

CPF_LENGTH = 11

TAKEN = frozenset(
    {
        ErrorType.ENTRY_ALREADY_EXISTS,
        ErrorType.ENTRY_KEY_OWNED_BY_DIFFERENT_PERSON,
        ErrorType.ENTRY_KEY_IN_CUSTODY_OF_DIFFERENT_PARTICIPANT,
        ErrorType.ENTRY_LOCKED_BY_CLAIM,
    }
)


def holder_of(account: Account) -> Owner:
    """The account's holder as the DICT names a person."""
    natural = len(account.document) == CPF_LENGTH
    return Owner(
        type=OwnerType.NATURAL_PERSON if natural else OwnerType.LEGAL_PERSON,
        tax_id=account.document,
        name=account.name,
    )


class NetworkKeyRegistry:
    def __init__(self, client: NetworkClient) -> None:
        self._client = client

    async def register(self, account: Account, key: PixKey) -> PixKey:
        request = CreateEntry(
            entry=NewEntry(
                key=None if key.type is PixKeyType.EVP else key.value,
                key_type=key.type,
                account=BrazilianAccount(
                    participant=account.ispb,
                    branch=account.branch,
                    number=account.number,
                    type=AccountType.CACC,
                    opened_at=account.created_at,
                ),
                owner=holder_of(account),
            ),
            reason=EntryReason.USER_REQUESTED,
            request_id=uuid.uuid4(),
        )
        body = self._client.signed(create_entry_request(request))
        try:
            _, root = await self._client.call("POST", "/api/v1/entries/", body=body)
        except DictProblem as problem:
            if problem.type in TAKEN:
                raise DuplicatePixKey(f"the key {key.value} is registered in the DICT already") from problem
            if problem.type in {ErrorType.ENTRY_INVALID, ErrorType.ENTRY_TAX_ID_NUMBER_BY_DIFFERENT_OWNER}:
                raise InvalidPixKey(f"the DICT refuses the key {key.value}: {problem.detail}") from problem
            raise NetworkUnavailable(f"the DICT refused a key: {problem}") from problem
        return PixKey(key.type, read_entry_response(root).key)

    async def unregister(self, account: Account, key: PixKey) -> None:
        request = DeleteEntry(key=key.value, participant=account.ispb, reason=EntryReason.USER_REQUESTED)
        body = self._client.signed(delete_entry_request(request))
        try:
            await self._client.call("POST", f"/api/v1/entries/{quote(key.value, safe='')}/delete", body=body)
        except DictProblem as problem:
            if problem.type is not ErrorType.NOT_FOUND:  # gone already: what was asked
                raise NetworkUnavailable(f"the DICT did not remove a key: {problem}") from problem
