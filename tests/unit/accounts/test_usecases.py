"""The account use cases, run on the in-memory fakes of :mod:`pixcore.testing`."""

from __future__ import annotations

import uuid

import pytest

from pixcore.accounts.accounts_service import get_balance, link_certificate
from pixcore.accounts.rules import DEFAULT_ADDRESS, Balance, LinkedCertificate
from pixcore.addresses import Address
from pixcore.clock import ManualClock
from pixcore.errors import (
    AccountNotFound,
    CertificateInUse,
    DuplicatePixKey,
    InvalidDocument,
    InvalidIdentifier,
    InvalidPixKey,
    ValidationError,
)
from pixcore.keys import PixKey, PixKeyType
from pixcore.testing import (
    InMemoryStore,
    PlainHasher,
    StoredCertificate,
)
from tests.unit.usecase_helpers import (
    HOLDER_CNPJ,
    HOLDER_CPF,
    ISPB,
    OTHER_CNPJ,
    OTHER_CPF,
    assert_store_empty,
    certificate_for,
    open_test_account,
)

# -- open_account ------------------------------------------------------------


async def test_open_account_stores_the_account_its_keys_a_zero_balance_and_a_credential(
    store: InMemoryStore, hasher: PlainHasher, clock: ManualClock
) -> None:
    opened = await open_test_account(store, hasher, keys=("Maria@Example.com", HOLDER_CPF, "+5581999990000"))

    account = opened.account
    assert account.id in store.accounts
    assert store.accounts[account.id] == account
    assert (account.ispb, account.branch, account.number) == (ISPB, "0001", f"{account.id:08d}")
    assert (account.name, account.document, account.city) == ("Maria da Silva", HOLDER_CPF, "RECIFE")
    assert account.created_at == clock.now()
    assert store.balances[account.id] == Balance(available=0, blocked=0)
    expected_keys = (
        PixKey(PixKeyType.EMAIL, "maria@example.com"),
        PixKey(PixKeyType.CPF, HOLDER_CPF),
        PixKey(PixKeyType.PHONE, "+5581999990000"),
    )
    assert opened.keys == expected_keys
    assert {value: stored.account_id for value, stored in store.keys.items()} == dict.fromkeys(
        (key.value for key in expected_keys), account.id
    )
    credential = store.credentials[opened.client_id]
    assert credential.account_id == account.id
    assert opened.client_id.startswith("pix_")
    assert store.commits == 1


async def test_the_client_secret_is_stored_only_as_a_hash(store: InMemoryStore, hasher: PlainHasher) -> None:
    opened = await open_test_account(store, hasher)

    stored = store.credentials[opened.client_id].secret_hash
    assert len(opened.client_secret) >= 32
    assert stored != opened.client_secret
    assert opened.client_secret not in stored
    assert hasher.verify(stored, opened.client_secret)
    assert not hasher.verify(stored, opened.client_secret + "x")


async def test_two_accounts_get_their_own_ids_numbers_and_credentials(
    store: InMemoryStore, hasher: PlainHasher
) -> None:
    first = await open_test_account(store, hasher)
    second = await open_test_account(store, hasher, document=OTHER_CPF)

    assert first.account.id != second.account.id
    assert first.account.number != second.account.number
    assert first.client_id != second.client_id
    assert first.client_secret != second.client_secret
    assert len(store.accounts) == len(store.credentials) == 2


async def test_without_keys_the_account_gets_one_random_evp_key(
    store: InMemoryStore, hasher: PlainHasher
) -> None:
    opened = await open_test_account(store, hasher)

    assert len(opened.keys) == 1
    key = opened.keys[0]
    assert key.type is PixKeyType.EVP
    assert str(uuid.UUID(key.value)) == key.value
    assert uuid.UUID(key.value).version == 4
    assert store.keys[key.value].account_id == opened.account.id

    another = await open_test_account(store, hasher, document=OTHER_CPF)
    assert another.keys[0].value != key.value


async def test_a_company_opens_an_account_with_its_cnpj_as_key(
    store: InMemoryStore, hasher: PlainHasher
) -> None:
    opened = await open_test_account(
        store, hasher, name="ACME LTDA", document=HOLDER_CNPJ, keys=(HOLDER_CNPJ,)
    )

    assert opened.account.document == HOLDER_CNPJ
    assert opened.keys == (PixKey(PixKeyType.CNPJ, HOLDER_CNPJ),)


async def test_name_and_city_are_stripped(store: InMemoryStore, hasher: PlainHasher) -> None:
    opened = await open_test_account(store, hasher, name="  Maria  ", city="\tRECIFE \n")

    assert (opened.account.name, opened.account.city) == ("Maria", "RECIFE")


@pytest.mark.parametrize(
    ("name", "city"), [("x", "y"), ("n" * 140, "c" * 60), (" " + "n" * 140 + " ", "RIO")]
)
async def test_names_and_cities_at_their_limits_are_accepted(
    store: InMemoryStore, hasher: PlainHasher, name: str, city: str
) -> None:
    opened = await open_test_account(store, hasher, name=name, city=city)

    assert (opened.account.name, opened.account.city) == (name.strip(), city)


@pytest.mark.parametrize(
    ("name", "city"),
    [
        ("", "RECIFE"),
        ("   ", "RECIFE"),
        ("n" * 141, "RECIFE"),
        ("Maria", ""),
        ("Maria", " \t "),
        ("Maria", "c" * 61),
    ],
)
async def test_an_empty_or_too_long_name_or_city_is_refused(
    store: InMemoryStore, hasher: PlainHasher, name: str, city: str
) -> None:
    with pytest.raises(ValidationError):
        await open_test_account(store, hasher, name=name, city=city)

    assert_store_empty(store)


async def test_the_holders_address_is_kept_stripped(store: InMemoryStore, hasher: PlainHasher) -> None:
    opened = await open_test_account(
        store, hasher, city="NATAL", street=" Rua A, 1 ", state="rn", postal_code=" 59000000"
    )

    assert opened.account.address == Address("Rua A, 1", "NATAL", "rn", "59000000")
    async with store.unit_of_work() as tx:
        assert await tx.accounts.get(opened.account.id) == opened.account


async def test_without_an_address_the_holder_gets_the_default_street_state_and_postal_code(
    store: InMemoryStore, hasher: PlainHasher
) -> None:
    opened = await open_test_account(store, hasher, city="SAO PAULO")

    assert opened.account.address == DEFAULT_ADDRESS


@pytest.mark.parametrize(
    ("part", "value"),
    [
        ("street", ""),
        ("street", "   "),
        ("street", "s" * 201),
        ("state", "S"),
        ("state", "SPX"),
        ("state", "S1"),
        ("state", "SÃ"),
        ("postal_code", "0131010"),
        ("postal_code", "01310-100"),
        ("postal_code", "0131010a"),
        ("postal_code", "०१३१०१००"),  # digits, but not ASCII ones
    ],
)
async def test_an_address_out_of_its_form_is_refused(
    store: InMemoryStore, hasher: PlainHasher, part: str, value: str
) -> None:
    with pytest.raises(ValidationError):
        await open_test_account(store, hasher, **{part: value})

    assert_store_empty(store)


@pytest.mark.parametrize(
    "document", ["", "52998224724", "529.982.247-25", "11111111111", "1122233300018", "abc"]
)
async def test_an_invalid_document_is_refused(
    store: InMemoryStore, hasher: PlainHasher, document: str
) -> None:
    with pytest.raises(InvalidDocument):
        await open_test_account(store, hasher, document=document)

    assert_store_empty(store)


@pytest.mark.parametrize(
    ("document", "key"),
    [
        (HOLDER_CPF, OTHER_CPF),
        (HOLDER_CPF, HOLDER_CNPJ),
        (HOLDER_CNPJ, OTHER_CNPJ),
        (HOLDER_CNPJ, HOLDER_CPF),
    ],
)
async def test_a_document_key_must_be_the_holders_own_document(
    store: InMemoryStore, hasher: PlainHasher, document: str, key: str
) -> None:
    with pytest.raises(InvalidPixKey):
        await open_test_account(store, hasher, document=document, keys=("ok@example.com", key))

    assert_store_empty(store)


async def test_an_invalid_key_is_refused(store: InMemoryStore, hasher: PlainHasher) -> None:
    with pytest.raises(InvalidPixKey):
        await open_test_account(store, hasher, keys=("ok@example.com", "not a key"))

    assert_store_empty(store)


async def test_an_invalid_ispb_is_refused_and_leaves_nothing_behind(
    store: InMemoryStore, hasher: PlainHasher
) -> None:
    with pytest.raises(InvalidIdentifier):
        await open_test_account(store, hasher, ispb="1234")

    assert_store_empty(store)


@pytest.mark.parametrize(
    "keys",
    [
        ("a@example.com", "a@example.com"),
        ("a@example.com", "A@Example.COM"),  # the same key once canonical
        ("+5581999990000", "b@example.com", "+5581999990000"),
    ],
)
async def test_a_key_given_twice_in_the_request_is_refused(
    store: InMemoryStore, hasher: PlainHasher, keys: tuple[str, ...]
) -> None:
    with pytest.raises(DuplicatePixKey):
        await open_test_account(store, hasher, keys=keys)

    assert_store_empty(store)


async def test_a_key_of_another_account_is_refused_and_the_failed_opening_leaves_nothing_behind(
    store: InMemoryStore, hasher: PlainHasher
) -> None:
    first = await open_test_account(store, hasher, keys=("taken@example.com",))
    before = (dict(store.accounts), dict(store.balances), dict(store.keys), dict(store.credentials))

    # The first key is new and would be stored before the taken one fails: it must go too.
    with pytest.raises(DuplicatePixKey):
        await open_test_account(
            store, hasher, document=OTHER_CPF, keys=("fresh@example.com", "TAKEN@example.com")
        )

    assert (store.accounts, store.balances, store.keys, store.credentials) == before
    assert [account.document for account in store.accounts.values()] == [HOLDER_CPF]
    assert "fresh@example.com" not in store.keys
    assert store.keys["taken@example.com"].account_id == first.account.id
    assert store.commits == 1


# -- link_certificate ----------------------------------------------------------


async def test_a_certificate_is_linked_to_an_existing_account(
    store: InMemoryStore, hasher: PlainHasher, clock: ManualClock
) -> None:
    opened = await open_test_account(store, hasher)
    certificate = certificate_for(clock)

    linked = await link_certificate(
        store.unit_of_work, account_id=opened.account.id, certificate=certificate, clock=clock
    )

    assert linked == LinkedCertificate(fingerprint=certificate.fingerprint, account_id=opened.account.id)
    assert store.certificates == {certificate.fingerprint: StoredCertificate(opened.account.id, certificate)}


async def test_linking_again_to_the_same_account_is_a_no_op(
    store: InMemoryStore, hasher: PlainHasher, clock: ManualClock
) -> None:
    opened = await open_test_account(store, hasher)
    certificate = certificate_for(clock)
    first = await link_certificate(
        store.unit_of_work, account_id=opened.account.id, certificate=certificate, clock=clock
    )

    again = await link_certificate(
        store.unit_of_work, account_id=opened.account.id, certificate=certificate, clock=clock
    )

    assert again == first
    assert list(store.certificates) == [certificate.fingerprint]


async def test_linking_to_an_unknown_account_is_not_found(
    store: InMemoryStore, hasher: PlainHasher, clock: ManualClock
) -> None:
    opened = await open_test_account(store, hasher)

    with pytest.raises(AccountNotFound):
        await link_certificate(
            store.unit_of_work,
            account_id=opened.account.id + 1,
            certificate=certificate_for(clock),
            clock=clock,
        )

    assert store.certificates == {}


async def test_a_certificate_linked_to_another_account_is_in_use(
    store: InMemoryStore, hasher: PlainHasher, clock: ManualClock
) -> None:
    owner = await open_test_account(store, hasher)
    other = await open_test_account(store, hasher, document=OTHER_CPF)
    certificate = certificate_for(clock)
    await link_certificate(
        store.unit_of_work, account_id=owner.account.id, certificate=certificate, clock=clock
    )

    with pytest.raises(CertificateInUse):
        await link_certificate(
            store.unit_of_work, account_id=other.account.id, certificate=certificate, clock=clock
        )

    assert store.certificates[certificate.fingerprint].account_id == owner.account.id


# -- get_balance -------------------------------------------------------------


async def test_a_new_account_has_a_zero_balance(store: InMemoryStore, hasher: PlainHasher) -> None:
    opened = await open_test_account(store, hasher)

    assert await get_balance(store.unit_of_work, opened.account.id) == Balance(available=0, blocked=0)


async def test_the_balance_is_read_from_the_store(store: InMemoryStore, hasher: PlainHasher) -> None:
    opened = await open_test_account(store, hasher)
    store.balances[opened.account.id] = Balance(available=12_345, blocked=600)

    balance = await get_balance(store.unit_of_work, opened.account.id)

    assert balance == Balance(available=12_345, blocked=600)
    assert balance.total == 12_945


async def test_the_balance_of_an_unknown_account_is_not_found(store: InMemoryStore) -> None:
    with pytest.raises(AccountNotFound):
        await get_balance(store.unit_of_work, 404)
