"""The in-memory fakes keep the promises of the PostgreSQL adapter."""

from __future__ import annotations

import pytest

from pixcore.accounts import LinkedCertificate, NewAccount
from pixcore.clock import ManualClock
from pixcore.errors import (
    CertificateInUse,
    DuplicatePixKey,
)
from pixcore.keys import PixKey, PixKeyType
from pixcore.testing import (
    InMemoryStore,
    IntegrityError,
    PlainHasher,
)
from tests.unit.usecase_helpers import (
    HOLDER_CPF,
    ISPB,
    OTHER_CPF,
    certificate_for,
)

# -- the fakes keep the adapter's promises -------------------------------------------


async def _add_then_fail(store: InMemoryStore, new: NewAccount) -> None:
    async with store.unit_of_work() as tx:
        await tx.accounts.add(new)
        raise RuntimeError("boom")


async def test_a_unit_of_work_discards_what_it_did_not_commit(store: InMemoryStore) -> None:
    new = NewAccount(ispb=ISPB, name="Maria", document=HOLDER_CPF, city="RECIFE")

    async with store.unit_of_work() as tx:
        left = await tx.accounts.add(new)
        assert await tx.accounts.get(left.id) == left  # a unit sees its own changes
        async with store.unit_of_work() as other:
            assert await other.accounts.get(left.id) is None  # and no one else does
    with pytest.raises(RuntimeError, match="boom"):
        await _add_then_fail(store, new)
    assert store.accounts == {}

    async with store.unit_of_work() as tx:
        kept = await tx.accounts.add(new)
        await tx.commit()
        assert tx.committed
    assert store.accounts == {kept.id: kept}
    assert kept.number == f"{kept.id:08d}" == "00000003"  # ids are spent like a sequence's


async def test_a_finished_unit_of_work_refuses_more_work(store: InMemoryStore) -> None:
    async with store.unit_of_work() as tx:
        await tx.commit()
        with pytest.raises(RuntimeError, match="finished"):
            await tx.accounts.get(1)
        with pytest.raises(RuntimeError, match="finished"):
            await tx.commit()
    with pytest.raises(RuntimeError, match="not open"):
        await store.unit_of_work().balances.get(1)


async def test_the_fake_repositories_raise_the_adapters_errors(
    store: InMemoryStore, clock: ManualClock
) -> None:
    email = PixKey(PixKeyType.EMAIL, "one@example.com")
    certificate = certificate_for(clock)
    async with store.unit_of_work() as tx:
        first = await tx.accounts.add(NewAccount(ISPB, "Maria", HOLDER_CPF, "RECIFE"))
        second = await tx.accounts.add(NewAccount(ISPB, "João", OTHER_CPF, "NATAL"))
        await tx.keys.add(first.id, email)
        with pytest.raises(DuplicatePixKey):
            await tx.keys.add(second.id, email)
        with pytest.raises(IntegrityError):
            await tx.keys.add(404, PixKey(PixKeyType.EMAIL, "nobody@example.com"))
        await tx.certificates.link(first.id, certificate)
        assert await tx.certificates.link(first.id, certificate) == LinkedCertificate(
            certificate.fingerprint, first.id
        )
        with pytest.raises(CertificateInUse):
            await tx.certificates.link(second.id, certificate)
        assert await tx.keys.owner_of(email) == first.id
        await tx.commit()
    assert store.keys[email.value].account_id == first.id


async def test_the_second_of_two_concurrent_units_to_commit_a_key_loses_everything(
    store: InMemoryStore,
) -> None:
    key = PixKey(PixKeyType.EMAIL, "race@example.com")
    async with store.unit_of_work() as winner, store.unit_of_work() as loser:
        mine = await winner.accounts.add(NewAccount(ISPB, "Maria", HOLDER_CPF, "RECIFE"))
        theirs = await loser.accounts.add(NewAccount(ISPB, "João", OTHER_CPF, "NATAL"))
        await winner.keys.add(mine.id, key)
        await loser.keys.add(theirs.id, key)  # it cannot see the winner's uncommitted key
        await winner.commit()
        with pytest.raises(DuplicatePixKey):
            await loser.commit()

    assert list(store.accounts) == [mine.id]
    assert store.keys[key.value].account_id == mine.id


def test_the_plain_hasher_accepts_only_the_hashed_secret() -> None:
    hasher = PlainHasher()
    stored = hasher.hash("s3cret")

    assert stored.startswith("plain$")
    assert "s3cret" not in stored
    assert hasher.verify(stored, "s3cret")
    assert not hasher.verify(stored, "s3cret ")
    assert not hasher.verify(stored, "")
    assert not hasher.verify("s3cret", "s3cret")
