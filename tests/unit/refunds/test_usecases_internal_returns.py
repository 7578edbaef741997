"""Money between two accounts of the service never leaves it (docs/decisions/refunds-and-med.md).

Maria sends João a PIX (a key of this service). When João refunds it, or accepts
a MED case against it, Maria gets the money back: a REFUND_OUT record, a REFUND
event with ``creditDebitType`` CREDIT, and nothing goes to the outside world. The
sandbox's outside receiver cannot refund a transfer that João received.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest

from pixcore.accounts.rules import Balance
from pixcore.errors import InternalRefund
from pixcore.ledger import Bucket
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.refunds.med_service import accept_med, open_med, reject_med
from pixcore.refunds.refund_service import process_due_refunds, receive_refund, request_refund
from pixcore.refunds.rules import RefundKind, RefundRequest, RefundStatus
from pixcore.testing import external_total
from tests.unit.transfer_world import FUNDS, World, assert_books_balance, entries_of
from tests.unit.usecase_helpers import ISPB

DELAY = timedelta(seconds=5)


async def _paid(world: World, amount: Decimal = Decimal("10.00")) -> str:
    """Maria pays João ``amount``, settled; returns the end-to-end id."""
    created = await world.send(pix_key="joao@example.com", amount=amount, priority="NORM")
    world.clock.advance(60)
    assert await world.settle_due() == 1
    return created.transfer.end_to_end_id


async def _refund(world: World, e2e: str, cents: int, refund_id: str | None = None) -> None:
    await request_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.receiver.id,
        end_to_end_id=e2e,
        refund_id=refund_id or uuid.uuid4().hex,
        request=RefundRequest(cents),
        ispb=ISPB,
        delay=DELAY,
    )
    world.clock.advance(10)
    assert await process_due_refunds(world.store.unit_of_work, world.clock) == 1


def _records(world: World, account_id: int, kind: TransactionType) -> list[tuple[TransactionStatus, int]]:
    return [
        (record.status, record.amount)
        for record in world.store.transactions.values()
        if record.account_id == account_id and record.type is kind
    ]


async def test_a_refund_of_a_pix_from_another_account_returns_it_to_that_account(world: World) -> None:
    e2e = await _paid(world)
    outside_before = external_total(world.store)

    await _refund(world, e2e, 4_00)

    assert world.balance(world.receiver) == Balance(6_00, 0)
    assert world.balance(world.sender) == Balance(FUNDS - 10_00 + 4_00, 0)
    assert external_total(world.store) == outside_before  # nothing left the service
    assert _records(world, world.receiver.id, TransactionType.REFUND_IN) == [
        (TransactionStatus.CONFIRMED, 4_00)
    ]
    assert _records(world, world.sender.id, TransactionType.REFUND_OUT) == [
        (TransactionStatus.CONFIRMED, 4_00)
    ]
    sent = [r for r in world.store.refunds.values() if r.kind is RefundKind.SENT]
    received = [r for r in world.store.refunds.values() if r.kind is RefundKind.RECEIVED]
    assert [(r.account_id, r.status, r.amount) for r in sent] == [
        (world.receiver.id, RefundStatus.DEVOLVIDO, 4_00)
    ]
    assert [(r.account_id, r.status, r.amount, r.rtr_id) for r in received] == [
        (world.sender.id, RefundStatus.DEVOLVIDO, 4_00, sent[0].rtr_id)
    ]
    # One posting moves it, from João's reservation to Maria's available: no outside entry.
    assert entries_of(world.store, sent[0].transaction_id)[-2:] == [
        ("settle_in", world.receiver.id, Bucket.BLOCKED, -4_00),
        ("settle_in", world.sender.id, Bucket.AVAILABLE, 4_00),
    ]
    assert_books_balance(world.store)


async def test_each_side_is_told_of_the_refund(world: World) -> None:
    e2e = await _paid(world)

    await _refund(world, e2e, 10_00)

    refund_events = [e for e in world.events(world.sender) if e["type"] == "REFUND"]
    assert len(refund_events) == 1
    assert refund_events[0]["data"]["creditDebitType"] == "CREDIT"
    assert refund_events[0]["data"]["endToEndId"] == e2e
    debit = [e for e in world.events(world.receiver) if e["type"] == "REFUND"]
    assert [e["data"]["creditDebitType"] for e in debit] == ["DEBIT"]


async def test_partial_refunds_add_up_to_the_whole_and_no_more(world: World) -> None:
    e2e = await _paid(world)

    await _refund(world, e2e, 3_00)
    await _refund(world, e2e, 7_00)

    assert world.balance(world.sender) == Balance(FUNDS, 0)
    assert world.balance(world.receiver) == Balance(0, 0)
    assert sorted(amount for _, amount in _records(world, world.sender.id, TransactionType.REFUND_OUT)) == [
        3_00,
        7_00,
    ]
    assert_books_balance(world.store)


async def test_an_accepted_med_returns_the_money_to_the_paying_account(world: World) -> None:
    e2e = await _paid(world)
    uow, clock = world.store.unit_of_work, world.clock
    case = await open_med(
        uow, clock, account_id=world.receiver.id, end_to_end_id=e2e, reason=MedReason.MED_FRAUDE
    )
    assert world.balance(world.receiver) == Balance(0, 10_00)

    outcome = await accept_med(uow, clock, account_id=world.receiver.id, case_id=case.id, ispb=ISPB)

    assert outcome.case.status is MedStatus.ACCEPTED
    assert outcome.refund is not None
    assert outcome.refund.status is RefundStatus.DEVOLVIDO
    assert world.balance(world.receiver) == Balance(0, 0)
    assert world.balance(world.sender) == Balance(FUNDS, 0)
    assert _records(world, world.sender.id, TransactionType.REFUND_OUT) == [
        (TransactionStatus.CONFIRMED, 10_00)
    ]
    assert_books_balance(world.store)


async def test_a_rejected_med_moves_nothing_between_the_accounts(world: World) -> None:
    e2e = await _paid(world)
    uow, clock = world.store.unit_of_work, world.clock
    case = await open_med(
        uow, clock, account_id=world.receiver.id, end_to_end_id=e2e, reason=MedReason.MED_FRAUDE
    )

    await reject_med(uow, clock, account_id=world.receiver.id, case_id=case.id)

    assert world.balance(world.receiver) == Balance(10_00, 0)
    assert world.balance(world.sender) == Balance(FUNDS - 10_00, 0)
    assert _records(world, world.sender.id, TransactionType.REFUND_OUT) == []
    assert_books_balance(world.store)


async def test_the_outside_cannot_refund_a_transfer_to_one_of_our_accounts(world: World) -> None:
    e2e = await _paid(world)
    before = (dict(world.store.balances), len(world.store.entries), dict(world.store.transactions))

    with pytest.raises(InternalRefund):
        await receive_refund(
            world.store.unit_of_work, world.clock, account_id=world.sender.id, end_to_end_id=e2e, amount=5_00
        )

    assert (dict(world.store.balances), len(world.store.entries), dict(world.store.transactions)) == before
    assert_books_balance(world.store)


async def test_the_outside_refunds_a_transfer_to_it_from_its_institution(world: World) -> None:
    created = await world.send(amount=Decimal("25.00"), priority="NORM")  # to SHOP, at 12345678
    world.clock.advance(60)
    assert await world.settle_due() == 1

    refund = await receive_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=created.transfer.end_to_end_id,
        amount=5_00,
    )

    assert refund.rtr_id.startswith("D12345678")
    entries = [e for e in world.store.entries if e.transaction_id == refund.transaction_id]
    assert [(e.account_id, e.bucket, e.amount, e.institution) for e in entries] == [
        (None, Bucket.EXTERNAL, -5_00, "12345678"),
        (world.sender.id, Bucket.AVAILABLE, 5_00, None),
    ]
    assert_books_balance(world.store)
