"""The contract of ``TransferGroupStore`` (docs/decisions/transfer-group-write.md): a group of transfers
out of one account read with one statement and written with one, only if the balance read has not moved and
no key is taken; otherwise nothing at all is written."""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from datetime import UTC, datetime

import pytest

from pixcore.accounts.rules import Balance
from pixcore.group_commit.ports import TransferReservation
from pixcore.ledger import receive, reserve
from pixcore.records import NewTransfer
from pixcore.transfers.ports import IdempotencyRecord
from tests.contract.conftest import Backend
from tests.contract.rows import OUTSIDE, T0, funded, new_transfer, receipt, withdrawal

NEVER = datetime(9999, 1, 1, tzinfo=UTC)


def _reservation(account_id: int, amount: int, key: uuid.UUID | None = None) -> TransferReservation:
    key = key or uuid.uuid4()
    record = withdrawal(account_id, amount)

    def transfer(transaction_id: int) -> NewTransfer:
        # Committed in the run's shared database: never due, so no settlement query meets it.
        made = new_transfer(transaction_id, account_id, amount=amount, settle_after=NEVER)
        return dataclasses.replace(made, idempotency_key=key, end_to_end_id=record.end_to_end_id)

    return TransferReservation(
        record=record,
        key=key,
        request_hash=hashlib.sha256(key.bytes).hexdigest(),
        transfer=transfer,
        posting=reserve(account_id, amount),
    )


async def _funded(backend: Backend, amount: int) -> int:
    async with backend.uow() as tx:
        account, _ = await funded(tx, amount)
        await tx.commit()
    return account


async def _balance(backend: Backend, account: int) -> Balance | None:
    async with backend.uow() as tx:
        return await tx.balances.get(account)


async def test_seen_reads_the_committed_balance_and_the_taken_keys(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    first = _reservation(account, 300)
    assert await backend.transfer_groups.reserve(account, 1_000, [first], T0) is not None
    other = uuid.uuid4()

    balance, taken = await backend.transfer_groups.seen(account, [first.key, other])

    assert balance == Balance(700, 300)
    assert set(taken) == {first.key}
    assert isinstance(taken[first.key], IdempotencyRecord)
    assert taken[first.key].request_hash == first.request_hash
    assert await backend.transfer_groups.seen(account + 10_000_000, [other]) == (None, {})


async def test_an_unmoved_balance_writes_every_reservation_at_once(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    reservations = [_reservation(account, amount) for amount in (100, 300, 200)]

    ids = await backend.transfer_groups.reserve(account, 1_000, reservations, T0)

    assert ids is not None
    assert len(ids) == 3
    assert ids == sorted(ids)
    assert await _balance(backend, account) == Balance(400, 600)
    async with backend.uow() as tx:
        found = await tx.idempotency.find_many(account, [r.key for r in reservations])
        assert {key: record.transaction_id for key, record in found.items()} == {
            r.key: tid for r, tid in zip(reservations, ids, strict=True)
        }
        for made, tid in zip(reservations, ids, strict=True):
            stored = await tx.transfers.get(tid)
            assert stored is not None
            assert (stored.amount, stored.idempotency_key) == (made.record.amount, made.key)
    assert await backend.transfer_groups.reserve(account, 400, [], T0) == []


async def test_a_moved_balance_writes_nothing(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    async with backend.uow() as tx:  # a receipt lands after the group read 1,000
        tid = await tx.transactions.add(receipt(account, 50))
        await tx.ledger.post(tid, receive(account, 50, OUTSIDE), T0)
        await tx.commit()
    reservations = [_reservation(account, 100), _reservation(account, 200)]

    assert await backend.transfer_groups.reserve(account, 1_000, reservations, T0) is None

    assert await _balance(backend, account) == Balance(1_050, 0)
    balance, taken = await backend.transfer_groups.seen(account, [r.key for r in reservations])
    assert (balance, taken) == (Balance(1_050, 0), {})
    # Read again, the same group goes through.
    assert await backend.transfer_groups.reserve(account, 1_050, reservations, T0) is not None
    assert await _balance(backend, account) == Balance(750, 300)


async def test_without_exactly_any_balance_that_covers_the_group_will_do(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    async with backend.uow() as tx:  # 50 more lands after the group read 1,000
        tid = await tx.transactions.add(receipt(account, 50))
        await tx.ledger.post(tid, receive(account, 50, OUTSIDE), T0)
        await tx.commit()

    assert await backend.transfer_groups.reserve(account, None, [_reservation(account, 300)], T0) is not None
    assert await _balance(backend, account) == Balance(750, 300)
    too_much = [_reservation(account, 500), _reservation(account, 251)]
    assert await backend.transfer_groups.reserve(account, None, too_much, T0) is None
    assert await _balance(backend, account) == Balance(750, 300)
    _, taken = await backend.transfer_groups.seen(account, [r.key for r in too_much])
    assert taken == {}


async def test_nothing_to_write_still_judges_the_balance_asked_for(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    assert await backend.transfer_groups.reserve(account, 1_000, [], T0) == []
    assert await backend.transfer_groups.reserve(account, 999, [], T0) is None
    assert await backend.transfer_groups.reserve(account, None, [], T0) == []


async def test_a_key_taken_meanwhile_writes_nothing(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    taken = _reservation(account, 100)
    assert await backend.transfer_groups.reserve(account, 1_000, [taken], T0) is not None
    again = _reservation(account, 200, key=taken.key)

    outcome = await backend.transfer_groups.reserve(account, 900, [_reservation(account, 300), again], T0)

    assert outcome is None
    assert await _balance(backend, account) == Balance(900, 100)
    balance, found = await backend.transfer_groups.seen(account, [taken.key])
    assert found[taken.key].request_hash == taken.request_hash
    assert balance == Balance(900, 100)


async def test_a_posting_of_another_account_is_refused_before_anything_is_written(backend: Backend) -> None:
    account = await _funded(backend, 1_000)
    other = await _funded(backend, 1_000)
    stray = dataclasses.replace(_reservation(account, 100), posting=reserve(other, 100))
    with pytest.raises(ValueError, match="own account"):
        await backend.transfer_groups.reserve(account, 1_000, [stray], T0)
    assert await _balance(backend, account) == Balance(1_000, 0)
    assert await _balance(backend, other) == Balance(1_000, 0)
