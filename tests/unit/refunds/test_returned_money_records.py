"""What a return of money writes, field by field (docs/decisions/refunds-and-med.md): the REFUND_OUT
record, the received refund, the ledger lines and the CREDIT notification all carry the time of the return,
its rtrId, the refunder's words and the original transfer, on both paths that return money to
one of our transfers' senders: a refund by another of our accounts, and one from outside."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial

import pytest

from pixcore.accounts.rules import Counterpart
from pixcore.errors import OwnInstitution, RefundAboveRefundable
from pixcore.ledger import Bucket, require_outside
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.refund_service import (
    Original,
    _institution_of,
    process_due_refunds,
    receive_refund,
    request_refund,
)
from pixcore.refunds.rules import RefundKind, RefundNature, RefundRequest, RefundStatus
from pixcore.testing import OutboxItem
from pixinfra.event_payloads import payload
from tests.unit.transfer_world import World
from tests.unit.usecase_helpers import ISPB

DELAY = timedelta(seconds=5)
WORDS = "sent to the wrong João"


def _credit_events(world: World, account_id: int) -> list[OutboxItem]:
    return [
        item
        for item in world.store.outbox
        if item.account_id == account_id
        and payload(item.event)["type"] == "REFUND"
        and payload(item.event)["data"]["creditDebitType"] == "CREDIT"
    ]


async def test_a_refund_between_our_accounts_writes_the_return_for_the_payer(world: World) -> None:
    created = await world.send(pix_key="joao@example.com", amount=Decimal("10.00"), priority="NORM")
    world.clock.advance(60)
    assert await world.settle_due() == 1
    transfer = created.transfer
    await request_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.receiver.id,
        end_to_end_id=transfer.end_to_end_id,
        refund_id=uuid.uuid4().hex,
        request=RefundRequest(4_00, description=WORDS),
        ispb=ISPB,
        delay=DELAY,
    )
    world.clock.advance(10)
    now = world.clock.now()
    assert await process_due_refunds(world.store.unit_of_work, world.clock) == 1
    (sent,) = [r for r in world.store.refunds.values() if r.kind is RefundKind.SENT]

    ((record_id, record),) = [
        (i, r)
        for i, r in world.store.transactions.items()
        if r.account_id == world.sender.id and r.type is TransactionType.REFUND_OUT
    ]
    original = world.store.transactions[transfer.transaction_id]
    assert (record.status, record.amount, record.end_to_end_id, record.description) == (
        TransactionStatus.CONFIRMED,
        4_00,
        sent.rtr_id,
        WORDS,
    )
    assert (record.created_at, record.processed_at) == (now, now)
    assert original.counterpart is not None
    whom = original.counterpart  # the receiver, as the transactions table keeps a counterpart
    assert record.counterpart == Counterpart(whom.name, whom.document, whom.ispb)

    (received,) = [r for r in world.store.refunds.values() if r.kind is RefundKind.RECEIVED]
    assert (received.account_id, received.original_transaction_id, received.transaction_id) == (
        world.sender.id,
        transfer.transaction_id,
        record_id,
    )
    assert (received.refund_id, received.rtr_id, received.amount) == (sent.rtr_id, sent.rtr_id, 4_00)
    assert (received.nature, received.description, received.reserved) == (RefundNature.ORIGINAL, WORDS, False)
    assert (received.requested_at, received.process_after, received.finished_at) == (now, now, now)
    assert (received.status, received.reason) == (RefundStatus.DEVOLVIDO, None)

    (item,) = _credit_events(world, world.sender.id)
    assert item.at == now
    data = payload(item.event)["data"]
    assert (data["id"], data["endToEndId"]) == (transfer.transaction_id, transfer.end_to_end_id)
    (returned,) = data["refunds"]
    assert (returned["endToEndId"], returned["information"]) == (sent.rtr_id, WORDS)
    assert returned["payment"]["amount"] == Decimal("4.00")


async def test_a_refund_from_outside_writes_the_return_at_its_time(world: World) -> None:
    created = await world.send(amount=Decimal("25.00"), priority="NORM")  # to SHOP, at 12345678
    world.clock.advance(60)
    assert await world.settle_due() == 1
    world.clock.advance(7)
    now = world.clock.now()

    refund = await receive_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=created.transfer.end_to_end_id,
        amount=5_00,
    )

    assert (refund.status, refund.finished_at, refund.reason) == (RefundStatus.DEVOLVIDO, now, None)
    assert (refund.requested_at, refund.process_after, refund.reserved) == (now, now, False)
    entries = [e for e in world.store.entries if e.transaction_id == refund.transaction_id]
    assert [(e.bucket, e.amount, e.at) for e in entries] == [
        (Bucket.EXTERNAL, -5_00, now),
        (Bucket.AVAILABLE, 5_00, now),
    ]
    record = world.store.transactions[refund.transaction_id]
    assert (record.created_at, record.processed_at, record.end_to_end_id) == (now, now, refund.rtr_id)
    (item,) = _credit_events(world, world.sender.id)
    assert item.at == now
    assert payload(item.event)["data"]["refunds"][0]["information"] == ""


def test_the_outside_is_never_our_own_institution() -> None:
    assert require_outside("12345678", own=ISPB) == "12345678"
    with pytest.raises(OwnInstitution) as refused:
        require_outside(ISPB, own=ISPB)
    assert str(refused.value) == (
        f"ISPB {ISPB} is this service's own: the outside world is another institution"
        " (an account of this service pays with POST /dict/pix)."
    )


def _original(counterpart: Counterpart | None) -> Original:
    return Original(
        transaction_id=41,
        account_id=1,
        amount=10_00,
        end_to_end_id="E12345678202611231200abcdefghijk",
        counterpart=counterpart,
        received_at=datetime(2026, 11, 23, 12, tzinfo=UTC),
    )


@pytest.mark.parametrize("counterpart", [None, Counterpart(name="Nobody", document="", ispb="")])
def test_money_cannot_return_from_no_institution(counterpart: Counterpart | None) -> None:
    with pytest.raises(ValueError, match=r"^transaction 41 names no institution to return money to$"):
        _institution_of(_original(counterpart))


def test_money_returns_from_the_original_counterparts_institution() -> None:
    counterpart = Counterpart(name="Shop", document="12345678000195", ispb="12345678")
    assert _institution_of(_original(counterpart)) == "12345678"


async def test_the_outside_returns_no_more_than_what_remains_of_the_transfer(world: World) -> None:
    created = await world.send(amount=Decimal("25.00"), priority="NORM")  # to SHOP, at 12345678
    world.clock.advance(60)
    assert await world.settle_due() == 1
    e2e = created.transfer.end_to_end_id
    refund = partial(receive_refund, world.store.unit_of_work, world.clock, account_id=world.sender.id)

    await refund(end_to_end_id=e2e, amount=20_00)
    with pytest.raises(RefundAboveRefundable) as refused:
        await refund(end_to_end_id=e2e, amount=5_01)
    assert refused.value.message == "Invalid refund: amount: at most 5.00 of the transfer remains"
    assert refused.value.details == ["amount: at most 5.00 of the transfer remains"]
    await refund(end_to_end_id=e2e, amount=5_00)
    with pytest.raises(RefundAboveRefundable):
        await refund(end_to_end_id=e2e, amount=1)
