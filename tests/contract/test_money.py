"""The contracts of the money ports: ``TransactionRepository``, ``LedgerRepository``,
``TransferRepository``, ``IdempotencyRepository`` and ``OutboxRepository``.

Races between real transactions (ten connections on one balance, concurrent idempotency claims)
are PostgreSQL's alone: tests/integration/money/test_ledger_adapter.py, test_idempotency_keys.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Balance
from pixcore.errors import InsufficientFunds
from pixcore.events import Holder, ReceiveEvent
from pixcore.ledger import Bucket, Entry, Posting, receive, release, reserve, settle_in, settle_out
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.rules import Original
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.transfers.rules import TransferState
from tests.contract.conftest import Backend
from tests.contract.rows import (
    FAR,
    ISPB,
    OUTSIDE,
    PAYER,
    T0,
    add_account,
    e2e,
    funded,
    new_transfer,
    receipt,
    withdrawal,
)

HASH = {n: hashlib.sha256(str(n).encode()).hexdigest() for n in range(1, 5)}
"""Request hashes as the use cases make them (the column is 64 characters wide)."""


# -- transaction records -----------------------------------------------------------


async def test_transaction_ids_grow(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        first = await tx.transactions.add(receipt(account.id))
        second = await tx.transactions.add(withdrawal(account.id))
    assert second > first > 0


async def test_a_confirmed_receipt_reads_back_as_an_original(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        record = receipt(account.id, 1_234)
        transaction_id = await tx.transactions.add(record)
        assert record.end_to_end_id is not None
        expected = Original(
            transaction_id=transaction_id,
            account_id=account.id,
            amount=1_234,
            end_to_end_id=record.end_to_end_id,
            received_at=T0,
            counterpart=dataclasses.replace(PAYER, bank_name="", branch="", account_number=""),
        )
        assert await tx.refunds.original_of(transaction_id) == expected
        locked = await tx.refunds.lock_original(account.id, record.end_to_end_id, TransactionType.PAYMENT)
        assert locked == expected
        assert (
            await tx.refunds.lock_original(account.id, record.end_to_end_id, TransactionType.WITHDRAW) is None
        )
        assert await tx.refunds.lock_original(-1, record.end_to_end_id, TransactionType.PAYMENT) is None


async def test_a_pending_receipt_is_no_original_until_it_is_confirmed(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        pending = dataclasses.replace(
            receipt(account.id), status=TransactionStatus.PENDING, end_to_end_id=None, counterpart=None
        )
        transaction_id = await tx.transactions.add(pending)
        assert await tx.refunds.original_of(transaction_id) is None

        end_to_end_id = e2e()
        await tx.transactions.confirm(transaction_id, end_to_end_id, PAYER, T0 + timedelta(seconds=5))
        original = await tx.refunds.lock_original(account.id, end_to_end_id, TransactionType.PAYMENT)
        assert original is not None
        # Received when it was confirmed (the refund window counts from then), not when written.
        assert (original.transaction_id, original.end_to_end_id, original.received_at) == (
            transaction_id,
            end_to_end_id,
            T0 + timedelta(seconds=5),
        )
        assert original.counterpart is not None
        assert (original.counterpart.name, original.counterpart.document, original.counterpart.ispb) == (
            PAYER.name,
            PAYER.document,
            PAYER.ispb,
        )

        await tx.transactions.set_status(transaction_id, TransactionStatus.ERROR, T0 + timedelta(seconds=6))
        assert await tx.refunds.lock_original(account.id, end_to_end_id, TransactionType.PAYMENT) is None


async def test_an_unknown_transaction_is_no_original(backend: Backend) -> None:
    async with backend.uow() as tx:
        assert await tx.refunds.original_of(-1) is None
        assert await tx.refunds.lock_original(-1, e2e(), TransactionType.PAYMENT) is None


async def test_a_transaction_of_a_missing_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.transactions.add(receipt(-1))


# -- the ledger ----------------------------------------------------------------------


async def test_postings_move_the_balances(backend: Backend) -> None:
    async with backend.uow() as tx:
        sender, transaction_id = await funded(tx, 1_000)
        receiver = (await add_account(tx)).id
        assert await tx.balances.get(sender) == Balance(available=1_000, blocked=0)

        await tx.ledger.post(transaction_id, reserve(sender, 400), T0)
        assert await tx.balances.get(sender) == Balance(available=600, blocked=400)
        await tx.ledger.post(transaction_id, settle_in(sender, receiver, 150), T0)
        await tx.ledger.post(transaction_id, settle_out(sender, 50, OUTSIDE), T0)
        await tx.ledger.post(transaction_id, release(sender, 200), T0)
        assert await tx.balances.get(sender) == Balance(available=800, blocked=0)
        assert await tx.balances.get(receiver) == Balance(available=150, blocked=0)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.balances.get(sender) == Balance(available=800, blocked=0)
        assert await tx.balances.get(receiver) == Balance(available=150, blocked=0)


@pytest.mark.parametrize(
    "posting",
    [
        pytest.param(lambda a: reserve(a, 1_001), id="available"),
        pytest.param(lambda a: release(a, 1), id="blocked"),
        pytest.param(lambda a: settle_out(a, 1, OUTSIDE), id="blocked-out"),
    ],
)
async def test_a_posting_the_balance_does_not_cover_is_refused_and_try_post_keeps_the_unit(
    backend: Backend, posting: object
) -> None:
    make = posting
    assert callable(make)
    async with backend.uow() as tx:
        account, transaction_id = await funded(tx, 1_000)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.ledger.try_post(transaction_id, make(account), T0) is False
        assert await tx.balances.get(account) == Balance(available=1_000, blocked=0)
        # The unit goes on: a posting that fits is applied and committed.
        assert await tx.ledger.try_post(transaction_id, reserve(account, 1_000), T0) is True
        assert await tx.balances.get(account) == Balance(available=0, blocked=1_000)
        await tx.rollback()

    with pytest.raises(InsufficientFunds):
        async with backend.uow() as tx:
            await tx.ledger.post(transaction_id, make(account), T0)
    async with backend.uow() as tx:
        assert await tx.balances.get(account) == Balance(available=1_000, blocked=0)


async def test_a_posting_of_a_missing_transaction_or_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, _ = await funded(tx)
        with pytest.raises(backend.refused):
            await tx.ledger.post(-1, reserve(account, 1), T0)
    async with backend.uow() as tx:
        _, transaction_id = await funded(tx)
        with pytest.raises(backend.refused):
            await tx.ledger.post(transaction_id, receive(-1, 1, OUTSIDE), T0)


async def test_an_outside_entry_never_names_our_own_institution(backend: Backend) -> None:
    inward = Posting(
        "receive", (Entry(None, Bucket.EXTERNAL, -1, ISPB), Entry(None, Bucket.EXTERNAL, 1, OUTSIDE))
    )
    async with backend.uow() as tx:
        _, transaction_id = await funded(tx)
        with pytest.raises(backend.refused):
            await tx.ledger.post(transaction_id, inward, T0)


# -- transfers -----------------------------------------------------------------------


async def test_a_transfer_reads_back_pending_and_finishes(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        transaction_id = await tx.transactions.add(withdrawal(account.id))
        new = new_transfer(transaction_id, account.id)
        await tx.transfers.add(new)
        fields = {f.name: getattr(new, f.name) for f in dataclasses.fields(new)}
        transfer = await tx.transfers.get(transaction_id)
        assert transfer is not None
        assert {f: getattr(transfer, f) for f in fields} == fields
        assert (transfer.state, transfer.error_code) == (TransferState.PENDING, None)

        await tx.transfers.finish(transaction_id, TransferState.ERROR, "AB03", T0)
        finished = await tx.transfers.get(transaction_id)
        assert finished == dataclasses.replace(transfer, state=TransferState.ERROR, error_code="AB03")
        assert await tx.transfers.get(-1) is None


async def test_a_transaction_has_one_transfer_and_needs_a_record(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        transaction_id = await tx.transactions.add(withdrawal(account.id))
        await tx.transfers.add(new_transfer(transaction_id, account.id))
        with pytest.raises(backend.refused):
            await tx.transfers.add(new_transfer(transaction_id, account.id))
    async with backend.uow() as tx:
        account = await add_account(tx)
        with pytest.raises(backend.refused):
            await tx.transfers.add(new_transfer(-1, account.id))


async def test_an_end_to_end_id_names_one_transfer(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        first = new_transfer(await tx.transactions.add(withdrawal(account.id)), account.id)
        await tx.transfers.add(first)
        second = new_transfer(await tx.transactions.add(withdrawal(account.id)), account.id)
        with pytest.raises(backend.refused):
            await tx.transfers.add(dataclasses.replace(second, end_to_end_id=first.end_to_end_id))


async def test_due_transfers_are_the_pending_ones_whose_time_came_by_settlement_time(
    backend: Backend,
) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)

        async def add(settle_after_s: int, deadline_s: int) -> int:
            transaction_id = await tx.transactions.add(withdrawal(account.id))
            new = new_transfer(
                transaction_id, account.id, settle_after=T0 + timedelta(seconds=settle_after_s)
            )
            await tx.transfers.add(dataclasses.replace(new, deadline=T0 + timedelta(seconds=deadline_s)))
            return transaction_id

        late = await add(30, 60)
        early = await add(10, 40)
        by_deadline = await add(100, 20)  # not settled yet, but its deadline has come
        future = await add(50, 80)
        finished = await add(5, 35)
        await tx.transfers.finish(finished, TransferState.COMPLETED, None, T0)

        now = T0 + timedelta(seconds=45)
        assert await tx.transfers.due(now, 10) == [early, late, by_deadline]
        assert await tx.transfers.due(now, 2) == [early, late]
        assert await tx.transfers.due(T0, 10) == []
        assert future not in await tx.transfers.due(T0 + timedelta(seconds=49), 10)


async def test_lock_pending_gives_a_pending_transfer_to_one_unit_at_a_time(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        pending_id = await tx.transactions.add(withdrawal(account.id))
        await tx.transfers.add(new_transfer(pending_id, account.id, settle_after=FAR))
        done_id = await tx.transactions.add(withdrawal(account.id))
        await tx.transfers.add(new_transfer(done_id, account.id, settle_after=FAR))
        await tx.transfers.finish(done_id, TransferState.COMPLETED, None, T0)
        await tx.commit()

    async with backend.uow() as first, backend.uow() as second:
        locked = await first.transfers.lock_pending(pending_id)
        assert locked is not None
        assert locked.transaction_id == pending_id
        assert await first.transfers.lock_pending(pending_id) == locked  # its holder may ask again
        assert await second.transfers.lock_pending(pending_id) is None  # skipped, not waited for
        assert await first.transfers.lock_pending(done_id) is None
        assert await first.transfers.lock_pending(-1) is None
        await first.transfers.finish(pending_id, TransferState.ERROR, "AB03", T0)
        await first.commit()
        assert await second.transfers.lock_pending(pending_id) is None  # no longer pending

    async with backend.uow() as tx:
        finished = await tx.transfers.get(pending_id)
        assert finished is not None
        assert (finished.state, finished.error_code) == (TransferState.ERROR, "AB03")


async def test_a_lock_ends_with_its_unit(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        pending_id = await tx.transactions.add(withdrawal(account.id))
        await tx.transfers.add(new_transfer(pending_id, account.id, settle_after=FAR))
        await tx.commit()

    async with backend.uow() as first:
        assert await first.transfers.lock_pending(pending_id) is not None
    async with backend.uow() as second:
        assert await second.transfers.lock_pending(pending_id) is not None
        await second.transfers.finish(pending_id, TransferState.ERROR, "AB03", T0)  # leave none pending
        await second.commit()


# -- idempotency keys ----------------------------------------------------------------


async def test_a_key_is_claimed_once_per_account(backend: Backend) -> None:
    key = uuid.uuid4()
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        transaction_id = await tx.transactions.add(withdrawal(account.id))
        other_transaction = await tx.transactions.add(withdrawal(other.id))
        assert await tx.idempotency.find(account.id, key) is None
        assert await tx.idempotency.claim(account.id, key, HASH[1], transaction_id, T0) is True
        assert await tx.idempotency.find(account.id, key) == IdempotencyRecord(HASH[1], transaction_id)
        assert await tx.idempotency.claim(account.id, key, HASH[2], transaction_id, T0) is False
        assert await tx.idempotency.claim(other.id, key, HASH[3], other_transaction, T0) is True
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.idempotency.claim(account.id, key, HASH[4], transaction_id, T0) is False
        assert await tx.idempotency.find(account.id, key) == IdempotencyRecord(HASH[1], transaction_id)
        assert await tx.idempotency.find(other.id, key) == IdempotencyRecord(HASH[3], other_transaction)


async def test_a_claim_rolled_back_leaves_the_key_free(backend: Backend) -> None:
    key = uuid.uuid4()
    async with backend.uow() as tx:
        account = await add_account(tx)
        transaction_id = await tx.transactions.add(withdrawal(account.id))
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.idempotency.claim(account.id, key, HASH[1], transaction_id, T0) is True
    async with backend.uow() as tx:
        assert await tx.idempotency.find(account.id, key) is None


async def test_a_claim_needs_its_transaction(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        with pytest.raises(backend.refused):
            await tx.idempotency.claim(account.id, uuid.uuid4(), HASH[1], -1, T0)


# -- the outbox ----------------------------------------------------------------------


async def test_a_notification_of_a_missing_account_is_refused(backend: Backend) -> None:
    received = ReceiveEvent(1, None, 100, "E" + "9" * 31, Holder("Payer", "12345678909"))
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.outbox.add(-1, received, T0)
