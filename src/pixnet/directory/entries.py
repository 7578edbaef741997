"""The DICT's entries (vínculos): a PIX key bound to an account at a participant and to its owner.

The rules of ``createEntry``, ``getEntry`` and ``deleteEntry`` as the central bank's DICT API
document states them (its operations and its "Tratamento de erros"):

* a participant registers, and deletes, entries of its own accounts only (``Forbidden``);
* the reason must be one the operation takes (``InvalidReason``): creation ``USER_REQUESTED`` or
  ``RECONCILIATION``; deletion those two, ``ACCOUNT_CLOSURE`` or ``FRAUD``;
* the key matches its type (``EntryInvalid``): an EVP is made by the DICT and never sent; a CPF
  or CNPJ key is its owner's own document (``EntryTaxIdNumberByDifferentOwner``), and the owner
  is a natural person with a CPF or a legal person with a CNPJ;
* a key has one entry: the same key again for the same owner at the same participant is
  ``EntryAlreadyExists``, at another participant ``EntryKeyInCustodyOfDifferentParticipant``
  (portability is the way), for another owner ``EntryKeyOwnedByDifferentPerson`` (a claim of
  ownership is);
* an account holds at most 5 keys of a natural person, 20 of a legal one (``EntryLimitExceeded``);
* while a claim of a key is open, its entry is not deleted, nor a new one made
  (``EntryLockedByClaim``; the claims: ``pixnet.directory.claims``);
* ``RequestId`` makes a creation idempotent: the same request again answers the entry it made; the
  same id with other content is ``RequestIdAlreadyUsed``.

Framework free: the entries are kept behind :class:`EntryStore`; the vocabulary (entries, reasons,
error types) is the wire's, ``pixwire.dict.model``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from pixcore.documents import is_valid_cnpj, is_valid_cpf
from pixcore.errors import InvalidPixKey
from pixcore.identifiers import ISPB_PATTERN
from pixcore.keys import PixKeyType, new_evp, parse_pix_key
from pixcore.transfers.rules import ACCOUNT_PATTERN
from pixwire.dict.model import (
    BrazilianAccount,
    CreateEntry,
    DeleteEntry,
    DictProblem,
    Entry,
    EntryReason,
    ErrorType,
    NewEntry,
    Owner,
    OwnerType,
    invalid_field,
)

__all__ = [
    "CREATE_REASONS",
    "DELETE_REASONS",
    "KEYS_PER_ACCOUNT",
    "EntryStore",
    "KeyTaken",
    "check_account",
    "check_owner",
    "checked_key",
    "create_entry",
    "delete_entry",
    "get_entry",
]

ISPB = re.compile(ISPB_PATTERN)
BRANCH = re.compile(r"[0-9]{1,4}")  # the DICT's: 1 to 4 digits (the service's own branches have 4)
ACCOUNT_NUMBER = re.compile(ACCOUNT_PATTERN)
NAME_LENGTH = 140  # the document's longest name (Person.Name)


CREATE_REASONS = frozenset({EntryReason.USER_REQUESTED, EntryReason.RECONCILIATION})
DELETE_REASONS = frozenset(
    {EntryReason.USER_REQUESTED, EntryReason.ACCOUNT_CLOSURE, EntryReason.RECONCILIATION, EntryReason.FRAUD}
)
KEYS_PER_ACCOUNT = {OwnerType.NATURAL_PERSON: 5, OwnerType.LEGAL_PERSON: 20}
"""The most entries one account holds, by its owner's type."""


class KeyTaken(Exception):
    """The store's answer to :meth:`EntryStore.add` for a key that has an entry (a race lost)."""


class EntryStore(Protocol):
    """Where the entries are kept; each method is atomic on its own."""

    async def by_key(self, key: str) -> Entry | None: ...

    async def by_request(self, participant: str, request_id: uuid.UUID) -> Entry | None:
        """The entry the participant's creation of ``request_id`` made, if one did."""
        ...

    async def count_for_account(self, participant: str, branch: str | None, number: str) -> int: ...

    async def add(self, entry: Entry) -> None:
        """Keep ``entry``; :class:`KeyTaken` when its key has an entry already, or the participant's
        ``request_id`` made one meanwhile."""
        ...

    async def remove(self, key: str) -> None: ...

    async def locked_by_claim(self, key: str) -> bool:
        """Whether a claim of ``key`` is open (neither completed nor cancelled)."""
        ...


def check_account(
    account: BrazilianAccount, field: str = "Account", invalid: ErrorType = ErrorType.ENTRY_INVALID
) -> None:
    """The account's parts in their domains, else ``invalid`` naming ``field``'s element."""
    if not ISPB.fullmatch(account.participant):
        raise invalid_field(f"{field}.Participant", "an ISPB is 8 digits", invalid)
    if account.branch is not None and not BRANCH.fullmatch(account.branch):
        raise invalid_field(f"{field}.Branch", "1 to 4 digits", invalid)
    if not ACCOUNT_NUMBER.fullmatch(account.number):
        raise invalid_field(f"{field}.AccountNumber", "1 to 20 digits", invalid)


def check_owner(owner: Owner, field: str = "Owner", invalid: ErrorType = ErrorType.ENTRY_INVALID) -> None:
    """The person's document, name and trade name, else ``invalid`` naming ``field``'s element."""
    if owner.type is OwnerType.NATURAL_PERSON and not is_valid_cpf(owner.tax_id):
        raise invalid_field(f"{field}.TaxIdNumber", "a natural person's is a valid CPF", invalid)
    if owner.type is OwnerType.LEGAL_PERSON and not is_valid_cnpj(owner.tax_id):
        raise invalid_field(f"{field}.TaxIdNumber", "a legal person's is a valid CNPJ", invalid)
    if not owner.name.strip() or len(owner.name) > NAME_LENGTH:
        raise invalid_field(f"{field}.Name", f"1 to {NAME_LENGTH} characters", invalid)
    if owner.trade_name is not None and len(owner.trade_name) > NAME_LENGTH:
        raise invalid_field(f"{field}.TradeName", f"at most {NAME_LENGTH} characters", invalid)


def checked_key(entry: NewEntry, invalid: ErrorType = ErrorType.ENTRY_INVALID) -> str | None:
    """The key in its canonical form (None for an EVP, which the DICT makes); ``invalid`` when it
    is not one of its type, and the DICT's refusal when it is a document other than its owner's."""
    if entry.key_type is PixKeyType.EVP:
        if entry.key is not None:
            raise invalid_field("Key", "an EVP key is made by the DICT, not sent", invalid)
        return None
    if entry.key is None:
        raise invalid_field("Key", f"a {entry.key_type.value} key is required", invalid)
    try:
        parsed = parse_pix_key(entry.key)
    except InvalidPixKey as exc:
        raise invalid_field("Key", "not a valid PIX key", invalid) from exc
    if parsed.type is not entry.key_type:
        raise invalid_field("Key", f"a {parsed.type.value} key, not {entry.key_type.value}", invalid)
    if parsed.type in {PixKeyType.CPF, PixKeyType.CNPJ} and parsed.value != entry.owner.tax_id:
        raise DictProblem(
            ErrorType.ENTRY_TAX_ID_NUMBER_BY_DIFFERENT_OWNER,
            f"the key is a {parsed.type.value} other than its owner's",
        )
    wanted = OwnerType.NATURAL_PERSON if parsed.type is PixKeyType.CPF else OwnerType.LEGAL_PERSON
    if parsed.type in {PixKeyType.CPF, PixKeyType.CNPJ} and entry.owner.type is not wanted:
        raise invalid_field("Owner.Type", f"a {parsed.type.value} key's owner is a {wanted.value}", invalid)
    return parsed.value


async def create_entry(
    store: EntryStore,
    request: CreateEntry,
    *,
    requester: str,
    now: datetime,
    evp: Callable[[], str] = new_evp,
) -> Entry:
    """``POST /entries/``: the entry made, or the one a repeat of ``request.request_id`` made."""
    asked = request.entry
    if asked.account.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "a participant registers keys of its own accounts only")
    if request.reason not in CREATE_REASONS:
        raise DictProblem(ErrorType.INVALID_REASON, f"{request.reason.value} does not create an entry")
    check_account(asked.account)
    check_owner(asked.owner)
    key = checked_key(asked)
    canonical = replace(asked, key=key)
    for _ in range(2):  # a second look after a race lost (on the key, or on the RequestId)
        done = await store.by_request(requester, request.request_id)
        if done is not None:
            if done.asked() != canonical:
                raise DictProblem(
                    ErrorType.REQUEST_ID_ALREADY_USED, "this RequestId created an entry of other content"
                )
            return done
        entry = Entry(
            key=key if key is not None else evp(),
            key_type=asked.key_type,
            account=asked.account,
            owner=asked.owner,
            created_at=now,
            owned_since=now,
            request_id=request.request_id,
        )
        existing = await store.by_key(entry.key)
        if existing is not None:
            raise _taken(existing, entry)
        if await store.locked_by_claim(entry.key):  # confirmed and not yet completed: the claimer's
            raise DictProblem(ErrorType.ENTRY_LOCKED_BY_CLAIM, "a claim of the key is open")
        held = await store.count_for_account(requester, asked.account.branch, asked.account.number)
        if held >= KEYS_PER_ACCOUNT[asked.owner.type]:
            raise DictProblem(
                ErrorType.ENTRY_LIMIT_EXCEEDED,
                f"the account holds {held} keys, the most for a {asked.owner.type.value}",
            )
        try:
            await store.add(entry)
        except KeyTaken:
            continue
        return entry
    raise DictProblem(ErrorType.ENTRY_ALREADY_EXISTS, "the key was registered meanwhile")


def _taken(existing: Entry, wanted: Entry) -> DictProblem:
    if existing.owner.tax_id != wanted.owner.tax_id:
        return DictProblem(
            ErrorType.ENTRY_KEY_OWNED_BY_DIFFERENT_PERSON,
            "the key belongs to another person: claim its ownership",
        )
    if existing.account.participant != wanted.account.participant:
        return DictProblem(
            ErrorType.ENTRY_KEY_IN_CUSTODY_OF_DIFFERENT_PARTICIPANT,
            "the key is the owner's at another participant: ask for its portability",
        )
    return DictProblem(ErrorType.ENTRY_ALREADY_EXISTS, "the key has this entry already")


async def get_entry(store: EntryStore, key: str) -> Entry:
    """``GET /entries/{Key}``."""
    found = await store.by_key(key)
    if found is None:
        raise DictProblem(ErrorType.NOT_FOUND, "no entry has this key")
    return found


async def delete_entry(store: EntryStore, request: DeleteEntry, *, requester: str) -> Entry:
    """``POST /entries/{Key}/delete``: the entry removed."""
    if request.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "a participant deletes keys of its own accounts only")
    if request.reason not in DELETE_REASONS:
        raise DictProblem(ErrorType.INVALID_REASON, f"{request.reason.value} does not delete an entry")
    found = await store.by_key(request.key)
    if found is None:
        raise DictProblem(ErrorType.NOT_FOUND, "no entry has this key")
    if found.account.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "the entry is in another participant's custody")
    if await store.locked_by_claim(found.key):
        raise DictProblem(ErrorType.ENTRY_LOCKED_BY_CLAIM, "a claim of the key is open: answer it")
    await store.remove(found.key)
    return found
