"""The contracts of the money ports' multi-row methods (group commit): ``add_many``, ``post_many``,
``find_many``, ``claim_many`` and ``BalanceRepository.lock`` do what the one-row methods do, at once."""

from __future__ import annotations

import dataclasses
import hashlib
import uuid

import pytest

from pixcore.accounts.rules import Balance
from pixcore.errors import InsufficientFunds
from pixcore.events import Holder, ReceiveEvent
from pixcore.ledger import reserve
from pixcore.transfers.ports import IdempotencyRecord
from tests.contract.conftest import Backend
from tests.contract.rows import T0, add_account, e2e, funded, new_transfer, receipt, withdrawal

HASH = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(4)]


async def test_add_many_gives_the_ids_in_the_order_of_the_records(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        amounts = [300, 100, 200, 700, 500]
        ids = await tx.transactions.add_many([receipt(account.id, amount) for amount in amounts])
        assert len(set(ids)) == len(amounts)
        for transaction_id, amount in zip(ids, amounts, strict=True):
            original = await tx.refunds.original_of(transaction_id)
            assert original is not None
            assert original.amount == amount
        assert await tx.transactions.add_many([]) == []


async def test_transfers_added_at_once_read_back_as_added_one_by_one(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        ids = await tx.transactions.add_many([withdrawal(account.id, 100 * n) for n in (1, 2, 3)])
        news = [new_transfer(tid, account.id, amount=100 * n) for n, tid in enumerate(ids, 1)]
        await tx.transfers.add_many(news)
        for new in news:
            stored = await tx.transfers.get(new.transaction_id)
            assert stored is not None
            assert {f.name: getattr(stored, f.name) for f in dataclasses.fields(new)} == dataclasses.asdict(
                new
            )
        with pytest.raises(backend.refused):  # a transaction has one transfer, at once or not
            await tx.transfers.add_many([new_transfer(ids[0], account.id)])


async def test_post_many_applies_the_sum_once_or_nothing(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, _ = await funded(tx, 1_000)
        ids = await tx.transactions.add_many([withdrawal(account, 300) for _ in range(3)])
        await tx.commit()

    with pytest.raises(InsufficientFunds):
        async with backend.uow() as tx:
            await tx.ledger.post_many([(tid, reserve(account, 400)) for tid in ids], T0)
    async with backend.uow() as tx:
        assert await tx.balances.get(account) == Balance(available=1_000, blocked=0)
        await tx.ledger.post_many([(tid, reserve(account, 300)) for tid in ids], T0)
        assert await tx.balances.lock(account) == Balance(available=100, blocked=900)
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.balances.get(account) == Balance(available=100, blocked=900)
        assert await tx.balances.lock(-1) is None


async def test_claim_many_claims_the_free_keys_only(backend: Backend) -> None:
    taken, free, other = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    async with backend.uow() as tx:
        account = await add_account(tx)
        first, second, third = await tx.transactions.add_many([withdrawal(account.id) for _ in range(3)])
        assert await tx.idempotency.claim(account.id, taken, HASH[0], first, T0)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.idempotency.find_many(account.id, [taken, free, other]) == {
            taken: IdempotencyRecord(HASH[0], first)
        }
        claimed = await tx.idempotency.claim_many(
            account.id, [(taken, HASH[1], second), (free, HASH[2], third)], T0
        )
        assert claimed == {free}
        assert await tx.idempotency.find_many(account.id, [taken, free, other]) == {
            taken: IdempotencyRecord(HASH[0], first),
            free: IdempotencyRecord(HASH[2], third),
        }
        assert await tx.idempotency.find_many(account.id, []) == {}
        with pytest.raises(backend.refused):  # a claim needs its transaction
            await tx.idempotency.claim_many(account.id, [(other, HASH[3], -1)], T0)


async def test_notifications_are_queued_at_once_for_an_existing_account_only(backend: Backend) -> None:
    events = [ReceiveEvent(n, None, 100 * n, e2e(), Holder("Payer", "12345678909")) for n in (1, 2)]
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.outbox.add_many(account.id, events, T0)
        await tx.outbox.add_many(account.id, [], T0)
        with pytest.raises(backend.refused):
            await tx.outbox.add_many(-1, events, T0)


async def test_find_many_and_lock_gives_the_balance_and_the_taken_keys_at_once(backend: Backend) -> None:
    taken, also_taken, free = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    async with backend.uow() as tx:
        account, _ = await funded(tx, 1_000)
        other, _ = await funded(tx, 50)
        first, second, third = await tx.transactions.add_many([withdrawal(account) for _ in range(3)])
        assert await tx.idempotency.claim(account, taken, HASH[0], first, T0)
        assert await tx.idempotency.claim(account, also_taken, HASH[1], second, T0)
        assert await tx.idempotency.claim(other, free, HASH[2], third, T0)  # another account's key
        await tx.commit()

    async with backend.uow() as tx:
        balance, found = await tx.idempotency.find_many_and_lock(account, [taken, free, also_taken])
        assert balance == Balance(available=1_000, blocked=0)
        assert found == {
            taken: IdempotencyRecord(HASH[0], first),
            also_taken: IdempotencyRecord(HASH[1], second),
        }
        assert await tx.idempotency.find_many_and_lock(account, [free]) == (balance, {})
        assert await tx.idempotency.find_many_and_lock(account, []) == (balance, {})
        assert await tx.idempotency.find_many_and_lock(-1, [taken]) == (None, {})


async def test_add_and_claim_many_adds_every_record_and_claims_the_free_keys_with_their_ids(
    backend: Backend,
) -> None:
    taken, free, also_free = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    async with backend.uow() as tx:
        account = await add_account(tx)
        (first,) = await tx.transactions.add_many([withdrawal(account.id)])
        assert await tx.idempotency.claim(account.id, taken, HASH[0], first, T0)
        await tx.commit()

    async with backend.uow() as tx:
        amounts = [300, 100, 200]
        ids, claimed = await tx.idempotency.add_and_claim_many(
            account.id,
            [withdrawal(account.id, amount) for amount in amounts],
            [(free, HASH[1]), (taken, HASH[2]), (also_free, HASH[3])],
            T0,
        )
        assert claimed == {free, also_free}
        assert len(set(ids)) == 3
        assert ids == sorted(ids)
        for transaction_id, amount in zip(ids, amounts, strict=True):  # the records, in their order
            original = await tx.refunds.original_of(transaction_id)
            assert original is not None
            assert original.amount == amount
        assert await tx.idempotency.find_many(account.id, [taken, free, also_free]) == {
            taken: IdempotencyRecord(HASH[0], first),  # the taken key keeps its first record
            free: IdempotencyRecord(HASH[1], ids[0]),
            also_free: IdempotencyRecord(HASH[3], ids[2]),
        }
        assert await tx.idempotency.add_and_claim_many(account.id, [], [], T0) == ([], set())
