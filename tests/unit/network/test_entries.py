"""The DICT's entry rules (``pixnet.directory.entries``), on a store kept in memory."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from pixcore.keys import PixKeyType
from pixnet.directory.entries import KEYS_PER_ACCOUNT, create_entry, delete_entry, get_entry
from pixwire.dict.model import (
    AccountType,
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
)
from tests.support import random_cnpj, random_cpf
from tests.unit.network.stores import MemoryStore

A, B = "11111111", "22222222"
NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


def account(participant: str = A, number: str = "0007654321") -> BrazilianAccount:
    return BrazilianAccount(participant, "0001", number, AccountType.CACC, NOW)


def person(cpf: str | None = None) -> Owner:
    return Owner(OwnerType.NATURAL_PERSON, cpf or random_cpf(), "Maria Silva")


def request(
    key: str | None, key_type: PixKeyType, owner: Owner | None = None, at: BrazilianAccount | None = None
) -> CreateEntry:
    return CreateEntry(
        NewEntry(key, key_type, at or account(), owner or person()), EntryReason.USER_REQUESTED, uuid.uuid4()
    )


def create(store: MemoryStore, asked: CreateEntry, requester: str = A) -> Entry:
    return asyncio.run(create_entry(store, asked, requester=requester, now=NOW))


def refused(store: MemoryStore, asked: CreateEntry, requester: str = A) -> DictProblem:
    with pytest.raises(DictProblem) as caught:
        create(store, asked, requester)
    return caught.value


def test_an_entry_is_made_and_read_back() -> None:
    store = MemoryStore()
    made = create(store, request("maria@example.com", PixKeyType.EMAIL))
    assert made.key == "maria@example.com"
    assert made.created_at == made.owned_since == NOW
    assert asyncio.run(get_entry(store, "maria@example.com")) == made


def test_an_evp_is_made_by_the_directory_and_never_sent() -> None:
    store = MemoryStore()
    made = create(store, request(None, PixKeyType.EVP))
    assert uuid.UUID(made.key).version == 4
    sent = refused(store, request(str(uuid.uuid4()), PixKeyType.EVP))
    assert sent.type is ErrorType.ENTRY_INVALID
    assert sent.violations[0][0] == "Key"


def test_a_repeated_request_answers_the_entry_it_made_and_other_content_is_refused() -> None:
    store = MemoryStore()
    first = request(None, PixKeyType.EVP)
    made = create(store, first)
    assert create(store, first) == made  # the same EVP, not a second one
    assert len(store.entries) == 1
    other = replace(first, entry=replace(first.entry, owner=person()))
    assert refused(store, other).type is ErrorType.REQUEST_ID_ALREADY_USED


def test_a_participant_registers_its_own_accounts_only() -> None:
    problem = refused(MemoryStore(), request("+5561988887777", PixKeyType.PHONE, at=account(B)))
    assert problem.type is ErrorType.FORBIDDEN
    assert problem.type.status == 403


@pytest.mark.parametrize(
    "reason", [EntryReason.FRAUD, EntryReason.ACCOUNT_CLOSURE, EntryReason.BRANCH_TRANSFER]
)
def test_a_reason_that_does_not_create_is_refused(reason: EntryReason) -> None:
    asked = replace(request("x@example.com", PixKeyType.EMAIL), reason=reason)
    assert refused(MemoryStore(), asked).type is ErrorType.INVALID_REASON


def test_a_key_of_another_type_or_shape_is_invalid() -> None:
    store = MemoryStore()
    assert refused(store, request("x@example.com", PixKeyType.PHONE)).type is ErrorType.ENTRY_INVALID
    assert refused(store, request("not a key", PixKeyType.EMAIL)).type is ErrorType.ENTRY_INVALID
    assert refused(store, request(None, PixKeyType.EMAIL)).type is ErrorType.ENTRY_INVALID


def test_a_document_key_is_its_owners_own() -> None:
    store = MemoryStore()
    cpf = random_cpf()
    assert create(store, request(cpf, PixKeyType.CPF, person(cpf))).key == cpf
    someone_elses = refused(store, request(random_cpf(), PixKeyType.CPF, person()))
    assert someone_elses.type is ErrorType.ENTRY_TAX_ID_NUMBER_BY_DIFFERENT_OWNER
    cnpj = random_cnpj()
    company_as_person = refused(
        store, request(cnpj, PixKeyType.CNPJ, Owner(OwnerType.NATURAL_PERSON, cnpj, "X"))
    )
    assert company_as_person.type is ErrorType.ENTRY_INVALID


def test_a_taken_key_is_refused_by_who_holds_it() -> None:
    store = MemoryStore()
    owner = person()
    create(store, request("k@example.com", PixKeyType.EMAIL, owner))
    again = refused(store, request("k@example.com", PixKeyType.EMAIL, owner))
    assert again.type is ErrorType.ENTRY_ALREADY_EXISTS
    elsewhere = refused(store, request("k@example.com", PixKeyType.EMAIL, owner, account(B)), requester=B)
    assert elsewhere.type is ErrorType.ENTRY_KEY_IN_CUSTODY_OF_DIFFERENT_PARTICIPANT
    stranger = refused(store, request("k@example.com", PixKeyType.EMAIL, person(), account(B)), requester=B)
    assert stranger.type is ErrorType.ENTRY_KEY_OWNED_BY_DIFFERENT_PERSON


def test_a_race_lost_on_the_key_is_judged_again() -> None:
    store = MemoryStore()
    winner = create(MemoryStore(), request("r@example.com", PixKeyType.EMAIL, at=account(B)), requester=B)
    store.racer = winner
    problem = refused(store, request("r@example.com", PixKeyType.EMAIL))
    assert problem.type is ErrorType.ENTRY_KEY_OWNED_BY_DIFFERENT_PERSON
    assert store.entries == {"r@example.com": winner}


def test_an_account_holds_five_keys_of_a_person() -> None:
    store = MemoryStore()
    owner = person()
    for n in range(KEYS_PER_ACCOUNT[OwnerType.NATURAL_PERSON]):
        create(store, request(f"k{n}@example.com", PixKeyType.EMAIL, owner))
    assert refused(store, request(None, PixKeyType.EVP, owner)).type is ErrorType.ENTRY_LIMIT_EXCEEDED
    create(store, request(None, PixKeyType.EVP, owner, account(number="1")))  # another account: room


def test_only_the_custodian_deletes_and_for_a_deleting_reason() -> None:
    store = MemoryStore()
    made = create(store, request("d@example.com", PixKeyType.EMAIL))

    def delete(participant: str, reason: EntryReason, requester: str) -> Entry:
        return asyncio.run(
            delete_entry(store, DeleteEntry(made.key, participant, reason), requester=requester)
        )

    with pytest.raises(DictProblem) as other:
        delete(B, EntryReason.USER_REQUESTED, B)
    assert other.value.type is ErrorType.FORBIDDEN
    with pytest.raises(DictProblem) as wrong:
        delete(A, EntryReason.BRANCH_TRANSFER, A)
    assert wrong.value.type is ErrorType.INVALID_REASON
    assert delete(A, EntryReason.FRAUD, A) == made
    with pytest.raises(DictProblem) as gone:
        asyncio.run(get_entry(store, made.key))
    assert gone.value.type is ErrorType.NOT_FOUND
