"""What only the in-memory fakes do.

The promises the fakes share with the PostgreSQL adapter (a unit of work rolls back unless
committed, refuses work once finished, the repositories raise the adapter's errors, ...) are tested
once for both in tests/contract. What stays here has no PostgreSQL counterpart to run against.
"""

from __future__ import annotations

import pytest

from pixcore.accounts.rules import NewAccount
from pixcore.errors import DuplicatePixKey
from pixcore.keys import PixKey, PixKeyType
from pixcore.testing import InMemoryStore, PlainHasher, ReadOnlyWrite
from tests.unit.usecase_helpers import HOLDER_CPF, ISPB, OTHER_CPF


async def test_the_second_of_two_concurrent_units_to_commit_a_key_loses_everything(
    store: InMemoryStore,
) -> None:
    """Fake-only: PostgreSQL makes the second writer wait at ``add``; the fake, which cannot
    wait, fails it at ``commit()`` and discards all its changes (tests/contract runs one writer)."""
    key = PixKey(PixKeyType.EMAIL, "race@example.com")
    async with store.unit_of_work() as winner, store.unit_of_work() as loser:
        mine = await winner.accounts.add(NewAccount(ISPB, "Maria", HOLDER_CPF, "RECIFE"))
        theirs = await loser.accounts.add(NewAccount(ISPB, "João", OTHER_CPF, "NATAL"))
        await winner.keys.add(mine.id, key)
        await loser.keys.add(theirs.id, key)  # it cannot see the winner's uncommitted key
        await winner.commit()
        with pytest.raises(DuplicatePixKey):
            await loser.commit()
        assert winner.committed
        assert not loser.committed

    assert list(store.accounts) == [mine.id]
    assert store.keys[key.value].account_id == mine.id


def test_the_plain_hasher_accepts_only_the_hashed_secret() -> None:
    """The stand-in for Argon2 (pixweb.security.secrets), which has its own tests."""
    hasher = PlainHasher()
    stored = hasher.hash("s3cret")

    assert stored.startswith("plain$")
    assert "s3cret" not in stored
    assert hasher.verify(stored, "s3cret")
    assert not hasher.verify(stored, "s3cret ")
    assert not hasher.verify(stored, "")
    assert not hasher.verify("s3cret", "s3cret")


async def test_a_read_unit_of_work_of_the_fakes_refuses_to_end_with_a_write(store: InMemoryStore) -> None:
    """Fake-only: PostgreSQL refuses the write statement itself (tests/integration/persistence/
    test_reads.py); the fake finds the staged change when the unit ends, committed or not."""
    async with store.unit_of_work() as tx:
        account = await tx.accounts.add(NewAccount(ISPB, "Maria", HOLDER_CPF, "RECIFE"))
        await tx.commit()
    read = store.reads().uow(account.id)
    async with read() as tx:
        assert await tx.accounts.get(account.id) == account
        await tx.commit()  # a read that commits is fine
    async with read() as tx:
        await tx.accounts.add(NewAccount(ISPB, "João", OTHER_CPF, "NATAL"))
        with pytest.raises(ReadOnlyWrite):
            await tx.commit()
    with pytest.raises(ReadOnlyWrite):
        async with read() as tx:
            await tx.keys.add(account.id, PixKey(PixKeyType.EMAIL, "read@example.com"))
    assert list(store.accounts) == [account.id]
    assert store.keys == {}
