"""The contract of ``UnitOfWork``: one transaction, rolled back unless committed, on the fake and on
PostgreSQL alike."""

from __future__ import annotations

import pytest

from pixcore.accounts.rules import Balance
from tests.contract.conftest import Backend
from tests.contract.rows import add_account, new_account


class Boom(Exception):
    pass


async def _add_then_raise(backend: Backend) -> int:
    account_id = 0
    with pytest.raises(Boom):  # noqa: PT012 - the error must cross the unit of work's exit
        async with backend.uow() as tx:
            account_id = (await add_account(tx)).id
            raise Boom
    return account_id


async def test_a_unit_sees_its_own_changes_and_no_one_else_does_before_commit(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        assert await tx.accounts.get(account.id) == account
        assert await tx.balances.get(account.id) == Balance(available=0, blocked=0)
        async with backend.uow() as other:
            assert await other.accounts.get(account.id) is None
            assert await other.balances.get(account.id) is None
        await tx.commit()

    async with backend.uow() as later:
        assert await later.accounts.get(account.id) == account
        assert await later.balances.get(account.id) == Balance(available=0, blocked=0)


async def test_leaving_without_commit_rolls_back(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)

    async with backend.uow() as later:
        assert await later.accounts.get(account.id) is None
        assert await later.balances.get(account.id) is None


async def test_leaving_with_an_exception_rolls_back_and_the_exception_propagates(backend: Backend) -> None:
    account_id = await _add_then_raise(backend)

    async with backend.uow() as later:
        assert await later.accounts.get(account_id) is None


async def test_an_explicit_rollback_discards_the_work(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.rollback()

    async with backend.uow() as later:
        assert await later.accounts.get(account.id) is None


async def test_an_exception_after_commit_propagates_and_keeps_what_was_committed(backend: Backend) -> None:
    account_id = 0
    with pytest.raises(Boom):  # noqa: PT012 - the error must cross the unit of work's exit
        async with backend.uow() as tx:
            account_id = (await add_account(tx)).id
            await tx.commit()
            raise Boom

    async with backend.uow() as later:
        assert await later.accounts.get(account_id) is not None


async def test_ids_are_spent_like_a_sequences_even_when_their_unit_rolls_back(backend: Backend) -> None:
    async with backend.uow() as tx:
        dropped = await add_account(tx)
    async with backend.uow() as tx:
        kept = await tx.accounts.add(new_account())
        await tx.commit()

    assert kept.id > dropped.id


async def test_a_finished_unit_refuses_more_work(backend: Backend) -> None:
    async with backend.uow() as tx:
        await tx.commit()
        with pytest.raises(RuntimeError, match="finished"):
            await tx.accounts.get(1)
        with pytest.raises(RuntimeError, match="finished"):
            await tx.commit()
    async with backend.uow() as tx:
        await tx.rollback()
        with pytest.raises(RuntimeError, match="finished"):
            await tx.balances.get(1)


async def test_a_unit_not_entered_refuses_work(backend: Backend) -> None:
    with pytest.raises(RuntimeError, match="not open"):
        await backend.uow().balances.get(1)


async def test_a_unit_of_work_is_entered_once(backend: Backend) -> None:
    tx = backend.uow()
    async with tx:
        await tx.commit()
    with pytest.raises(RuntimeError, match="entered once"):
        async with tx:
            pass
