"""The contracts of the account ports: ``AccountRepository``, ``BalanceRepository``,
``PixKeyRepository``, ``CredentialRepository`` and ``CertificateRepository``."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import timedelta

import pytest

from pixcore.accounts.rules import DEFAULT_ADDRESS, Account, ClientCredential, LinkedCertificate
from pixcore.addresses import Address
from pixcore.errors import CertificateInUse, DuplicatePixKey
from pixcore.keys import PixKey, PixKeyType, new_evp
from tests.contract.conftest import Backend
from tests.contract.rows import ISPB, T0, add_account, certificate, email_key, new_account, phone_key

# -- accounts and balances ---------------------------------------------------------


async def test_an_account_is_numbered_by_its_id_in_branch_0001_and_reads_back_the_same(
    backend: Backend,
) -> None:
    new = new_account("Maria da Silva")
    async with backend.uow() as tx:
        first = await tx.accounts.add(new)
        second = await tx.accounts.add(new_account())
        assert await tx.accounts.get(first.id) == first

    assert isinstance(first, Account)
    assert (first.ispb, first.branch, first.number) == (ISPB, "0001", f"{first.id:08d}")
    assert (first.name, first.document, first.city, first.sandbox_admin) == (
        new.name,
        new.document,
        new.city,
        False,
    )
    assert second.id > first.id


async def test_an_account_keeps_its_holders_address(backend: Backend) -> None:
    new = dataclasses.replace(
        new_account(), city="RECIFE", street="Rua da Aurora, 300", state="PE", postal_code="50050000"
    )
    async with backend.uow() as tx:
        account = await tx.accounts.add(new)
        assert account.address == Address("Rua da Aurora, 300", "RECIFE", "PE", "50050000")
        assert await tx.accounts.get(account.id) == account
        plain = await tx.accounts.add(new_account())  # opened without a street, state, postal code
        assert plain.address == dataclasses.replace(DEFAULT_ADDRESS, city=plain.city)


async def test_unknown_accounts_and_balances_are_none(backend: Backend) -> None:
    async with backend.uow() as tx:
        assert await tx.accounts.get(-1) is None
        assert await tx.balances.get(-1) is None


# -- PIX keys ------------------------------------------------------------------------


async def test_keys_are_listed_in_the_order_they_were_registered(backend: Backend) -> None:
    # Neither alphabetical ("+55..." sorts first) nor grouped by type: only registration order fits.
    keys = [email_key(), phone_key(), email_key()]
    async with backend.uow() as tx:
        account = await add_account(tx)
        for key in keys:
            await tx.keys.add(account.id, key)
        await tx.commit()

    late = PixKey(PixKeyType.EVP, new_evp())
    async with backend.uow() as tx:
        assert await tx.keys.list_for(account.id) == keys
        await tx.keys.add(account.id, late)
        assert await tx.keys.list_for(account.id) == [*keys, late]
        assert [await tx.keys.owner_of(key) for key in (*keys, late)] == [account.id] * 4


async def test_an_unknown_key_has_no_owner_and_an_account_without_keys_lists_none(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        assert await tx.keys.owner_of(PixKey(PixKeyType.EVP, new_evp())) is None
        assert await tx.keys.list_for(account.id) == []


async def test_a_key_is_unique_across_accounts_and_for_its_own_account(backend: Backend) -> None:
    key = email_key()
    async with backend.uow() as tx:
        owner = await add_account(tx)
        await tx.keys.add(owner.id, key)
        await tx.commit()

    async with backend.uow() as tx:
        other = await add_account(tx)
        with pytest.raises(DuplicatePixKey):
            await tx.keys.add(other.id, key)
        with pytest.raises(DuplicatePixKey):
            await tx.keys.add(owner.id, key)
        # The refused key left the unit usable: it goes on and commits.
        second = email_key()
        await tx.keys.add(other.id, second)
        assert await tx.keys.list_for(other.id) == [second]
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.keys.owner_of(key) == owner.id
        assert await tx.keys.list_for(owner.id) == [key]
        assert await tx.keys.owner_of(second) == other.id


async def test_a_key_taken_off_its_account_is_gone_and_may_be_added_again(backend: Backend) -> None:
    """A key that left for another institution (a claim): off its account, and only its own
    account's removal takes it (another account's is False and changes nothing)."""
    key, kept = email_key(), phone_key()
    async with backend.uow() as tx:
        owner, other = await add_account(tx), await add_account(tx)
        await tx.keys.add(owner.id, key)
        await tx.keys.add(owner.id, kept)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.keys.remove(other.id, key) is False
        assert await tx.keys.owner_of(key) == owner.id
        assert await tx.keys.remove(owner.id, key) is True
        assert await tx.keys.owner_of(key) is None
        assert await tx.keys.remove(owner.id, key) is False
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.keys.owner_of(key) is None
        assert await tx.keys.list_for(owner.id) == [kept]
        await tx.keys.add(other.id, key)  # the key came back, to another account
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.keys.owner_of(key) == other.id


async def test_a_key_added_twice_in_one_unit_is_refused(backend: Backend) -> None:
    key = email_key()
    async with backend.uow() as tx:
        first, second = await add_account(tx), await add_account(tx)
        await tx.keys.add(first.id, key)
        with pytest.raises(DuplicatePixKey):
            await tx.keys.add(second.id, key)
        assert await tx.keys.owner_of(key) == first.id


async def test_a_key_of_a_missing_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.keys.add(-1, email_key())


# -- credentials ---------------------------------------------------------------------


async def test_a_credential_reads_back_and_its_secret_can_be_replaced(backend: Backend) -> None:
    client_id = "pix_" + uuid.uuid4().hex
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.credentials.add(ClientCredential(client_id, account.id, "hash-1"))
        assert await tx.credentials.get(client_id) == ClientCredential(client_id, account.id, "hash-1")
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.credentials.replace_secret(account.id, "hash-2") == client_id
        assert await tx.credentials.get(client_id) == ClientCredential(client_id, account.id, "hash-2")
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.credentials.get(client_id) == ClientCredential(client_id, account.id, "hash-2")


async def test_replacing_the_secret_of_an_account_without_credential_is_none(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        assert await tx.credentials.replace_secret(account.id, "hash") is None
        assert await tx.credentials.get("pix_" + uuid.uuid4().hex) is None


async def test_a_client_id_is_unique_and_needs_an_account(backend: Backend) -> None:
    client_id = "pix_" + uuid.uuid4().hex
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.credentials.add(ClientCredential(client_id, account.id, "hash"))
        await tx.commit()

    async with backend.uow() as tx:
        other = await add_account(tx)
        with pytest.raises(backend.refused):
            await tx.credentials.add(ClientCredential(client_id, other.id, "hash"))
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.credentials.add(ClientCredential("pix_" + uuid.uuid4().hex, -1, "hash"))


# -- certificates --------------------------------------------------------------------


async def test_a_linked_certificate_reads_back_and_linking_again_is_a_no_op(backend: Backend) -> None:
    info = certificate()
    async with backend.uow() as tx:
        account = await add_account(tx)
        linked = await tx.certificates.link(account.id, info)
        assert linked == LinkedCertificate(info.fingerprint, account.id)
        assert await tx.certificates.link(account.id, info) == linked
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.certificates.get(info.fingerprint) == linked
        assert await tx.certificates.link(account.id, info) == linked


async def test_a_certificate_of_another_account_is_in_use(backend: Backend) -> None:
    info = certificate()
    async with backend.uow() as tx:
        owner = await add_account(tx)
        await tx.certificates.link(owner.id, info)
        await tx.commit()

    async with backend.uow() as tx:
        other = await add_account(tx)
        with pytest.raises(CertificateInUse):
            await tx.certificates.link(other.id, info)
    async with backend.uow() as tx:
        assert await tx.certificates.get(info.fingerprint) == LinkedCertificate(info.fingerprint, owner.id)


async def test_an_unknown_certificate_is_none(backend: Backend) -> None:
    async with backend.uow() as tx:
        assert await tx.certificates.get(certificate().fingerprint) is None


async def test_a_revocation_keeps_its_first_time_and_shows_on_every_read(backend: Backend) -> None:
    info = certificate()
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.certificates.link(account.id, info)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.certificates.revoke(info.fingerprint, T0) == T0
        assert await tx.certificates.revoke(info.fingerprint, T0 + timedelta(hours=1)) == T0
        assert await tx.certificates.get(info.fingerprint) == LinkedCertificate(
            info.fingerprint, account.id, T0
        )
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.certificates.revoke(info.fingerprint, T0 + timedelta(days=1)) == T0
        assert await tx.certificates.get(info.fingerprint) == LinkedCertificate(
            info.fingerprint, account.id, T0
        )
        # Linking a revoked certificate again to its account returns it revoked.
        assert await tx.certificates.link(account.id, info) == LinkedCertificate(
            info.fingerprint, account.id, T0
        )


async def test_a_certificate_linked_and_revoked_in_one_unit_is_revoked(backend: Backend) -> None:
    info = certificate()
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.certificates.link(account.id, info)
        assert await tx.certificates.revoke(info.fingerprint, T0) == T0
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.certificates.get(info.fingerprint) == LinkedCertificate(
            info.fingerprint, account.id, T0
        )


async def test_revoking_a_certificate_that_is_not_linked_is_an_error(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(RuntimeError, match="no certificate"):
            await tx.certificates.revoke(certificate().fingerprint, T0)


async def test_a_certificate_of_a_missing_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.certificates.link(-1, certificate())
