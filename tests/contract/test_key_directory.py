"""The contract of ``KeyDirectory`` (the DICT: who owns a PIX key), on the fake
``InMemoryKeyDirectory`` and on the sandbox's directory on PostgreSQL (``SandboxDirectory``), with
``add``, the way both take a key of another institution (``POST /sandbox/dict``).

A key of one of the service's accounts resolves to that account (its transfers settle inside the
service); any other key is known once added. The directory is no part of a unit of work: it sees
what has committed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from pixcore.accounts.rules import Account
from pixcore.clock import ManualClock
from pixcore.errors import DuplicatePixKey
from pixcore.keys import PixKey
from pixcore.testing import InMemoryKeyDirectory, InMemoryStore
from pixcore.transfers.ports import KeyDirectory
from pixcore.transfers.rules import DirectoryEntry
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.sandbox.directory import SandboxDirectory
from tests.contract.rows import OUTSIDE, add_account, email_key, phone_key
from tests.support import random_cpf

BANK = "CONTRACT BANK"
"""The bank name the directory gives the service's own accounts."""
PAYER = random_cpf()
"""Whom the look-ups are for (the CPF of the holder of the account that pays)."""


@dataclass(frozen=True)
class Side:
    uow: UnitOfWorkFactory
    directory: KeyDirectory
    add: Callable[[DirectoryEntry], Awaitable[None]]
    """The implementation's own way in for a key of another institution (no part of the port)."""


def _memory(_: pytest.FixtureRequest) -> Side:
    store = InMemoryStore(clock=ManualClock())
    directory = InMemoryKeyDirectory(store, bank_name=BANK)

    async def add(entry: DirectoryEntry) -> None:
        directory.add(entry)

    return Side(store.unit_of_work, directory, add)


def _postgres(request: pytest.FixtureRequest) -> Side:
    directory = SandboxDirectory(request.getfixturevalue("database"), BANK)
    return Side(request.getfixturevalue("pg_uow"), directory, directory.add)


SIDES: dict[str, Callable[[pytest.FixtureRequest], Side]] = {"memory": _memory, "postgres": _postgres}


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)])
def side(request: pytest.FixtureRequest) -> Side:
    return SIDES[request.param](request)


def _outside(key: PixKey, behavior: str = "settle") -> DirectoryEntry:
    return DirectoryEntry.parse(
        pix_key=key.value,
        ispb=OUTSIDE,
        name="Outside Person",
        document=random_cpf(),
        bank_name="OTHER BANK",
        branch="0001",
        account_number="123456",
        behavior=behavior,
    )


def _of_account(account: Account, key: PixKey) -> DirectoryEntry:
    return DirectoryEntry(
        key=key,
        ispb=account.ispb,
        name=account.name,
        document=account.document,
        bank_name=BANK,
        branch=account.branch,
        account_number=account.number,
        behavior="settle",
        account_id=account.id,
    )


async def _account_with(side: Side, key: PixKey) -> Account:
    async with side.uow() as tx:
        account = await add_account(tx)
        await tx.keys.add(account.id, key)
        await tx.commit()
    return account


async def test_an_unknown_key_is_not_found(side: Side) -> None:
    key = email_key()
    assert await side.directory.lookup(key, payer=PAYER) is None
    assert await side.directory.lookup_many([key, phone_key()], payer=PAYER) == {}
    assert await side.directory.lookup_many([], payer=PAYER) == {}


async def test_a_key_of_an_account_resolves_to_the_account_and_settles_inside(side: Side) -> None:
    key = email_key()
    account = await _account_with(side, key)
    assert await side.directory.lookup(key, payer=PAYER) == _of_account(account, key)


@pytest.mark.parametrize("behavior", ["settle", "reject"])
async def test_an_added_key_resolves_as_it_was_added(side: Side, behavior: str) -> None:
    entry = _outside(phone_key(), behavior)
    await side.add(entry)
    found = await side.directory.lookup(entry.key, payer=PAYER)
    assert found == entry
    assert found.account_id is None


async def test_a_key_of_an_account_cannot_be_added(side: Side) -> None:
    key = email_key()
    account = await _account_with(side, key)
    with pytest.raises(DuplicatePixKey):
        await side.add(_outside(key))
    assert await side.directory.lookup(key, payer=PAYER) == _of_account(account, key)


async def test_a_key_added_twice_keeps_its_first_entry(side: Side) -> None:
    first = _outside(email_key(), "reject")
    await side.add(first)
    with pytest.raises(DuplicatePixKey):
        await side.add(_outside(first.key))
    assert await side.directory.lookup(first.key, payer=PAYER) == first


async def test_an_account_that_takes_an_added_key_wins_over_its_entry(side: Side) -> None:
    key = email_key()
    await side.add(_outside(key, "reject"))
    account = await _account_with(side, key)
    assert await side.directory.lookup(key, payer=PAYER) == _of_account(account, key)
    assert await side.directory.lookup_many([key], payer=PAYER) == {key.value: _of_account(account, key)}


async def test_a_key_resolves_only_once_its_unit_of_work_commits(side: Side) -> None:
    kept, rolled_back = email_key(), email_key()
    async with side.uow() as tx:
        account = await add_account(tx)
        await tx.commit()
    async with side.uow() as tx:
        await tx.keys.add(account.id, rolled_back)
        assert await side.directory.lookup(rolled_back, payer=PAYER) is None
    async with side.uow() as tx:
        await tx.keys.add(account.id, kept)
        assert await side.directory.lookup(kept, payer=PAYER) is None
        assert await side.directory.lookup_many([kept], payer=PAYER) == {}
        await tx.commit()
    assert await side.directory.lookup(rolled_back, payer=PAYER) is None
    assert await side.directory.lookup(kept, payer=PAYER) == _of_account(account, kept)


async def test_lookup_many_answers_as_lookup_does_for_each_key_found(side: Side) -> None:
    mine, added, unknown = email_key(), phone_key(), email_key()
    account = await _account_with(side, mine)
    entry = _outside(added, "reject")
    await side.add(entry)
    found = await side.directory.lookup_many([unknown, mine, added, mine], payer=PAYER)
    assert found == {mine.value: _of_account(account, mine), added.value: entry}
    for key in (mine, added, unknown):
        assert await side.directory.lookup(key, payer=PAYER) == found.get(key.value)


async def test_the_payer_changes_no_answer(side: Side) -> None:
    """Neither the sandbox nor its fake limits a payer's look-ups: any payer gets the same answers."""
    mine, added, unknown = email_key(), phone_key(), email_key()
    account = await _account_with(side, mine)
    await side.add(_outside(added))
    keys = [mine, added, unknown]
    found = await side.directory.lookup_many(keys, payer=PAYER)
    assert set(found) == {mine.value, added.value}
    for other in (random_cpf(), account.document, "11222333000181"):
        assert await side.directory.lookup_many(keys, payer=other) == found
        for key in keys:
            assert await side.directory.lookup(key, payer=other) == found.get(key.value)
