"""The refund use cases against the in-memory fakes: the rules whose mutants the stateful test
cannot reach (found by ``make mutate``, docs/testing.md).

- a repeated PUT with the same id and body returns the first refund and moves nothing; with
  another body it is ``RefundIdReused``;
- the 89-day window, to the microsecond;
- a refund is processed once its delay has passed, not before, and exactly at it;
- the refusal above the remainder says how much remains.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Balance
from pixcore.clock import ManualClock
from pixcore.errors import RefundAboveRefundable, RefundIdReused, RefundWindowClosed
from pixcore.keys import parse_pix_key
from pixcore.refunds.refund_service import RequestedRefund, process_due_refunds, request_refund
from pixcore.refunds.rules import REFUND_WINDOW, RefundNature, RefundRequest, RefundStatus
from pixcore.testing import InMemoryStore
from pixcore.transfers.receipt_service import receive_payment
from tests.unit.transfer_world import FUNDS, PAYER, World
from tests.unit.wire_rendering import wire_details, wire_message

DELAY = timedelta(seconds=5)
RECEIVED = 10_00


async def _receipt(world: World) -> str:
    receipt = await receive_payment(
        world.store.unit_of_work,
        world.clock,
        key=parse_pix_key("maria@example.com"),
        amount=RECEIVED,
        payer=PAYER,
    )
    return receipt.end_to_end_id


async def _refund(world: World, e2e: str, request: RefundRequest, refund_id: str = "") -> RequestedRefund:
    return await request_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=e2e,
        refund_id=refund_id or uuid.uuid4().hex,
        request=request,
        ispb="99999999",
        delay=DELAY,
    )


async def test_the_same_id_and_body_returns_the_first_refund_and_moves_nothing(world: World) -> None:
    e2e = await _receipt(world)
    first = await _refund(world, e2e, RefundRequest(3_00, RefundNature.ORIGINAL, "back"), "ref1")
    before = (dict(world.store.refunds), list(world.store.entries), world.balance(world.sender))

    again = await _refund(world, e2e, RefundRequest(3_00, RefundNature.ORIGINAL, "back"), "ref1")

    assert first.created
    assert again == RequestedRefund(first.refund, created=False)
    assert (dict(world.store.refunds), list(world.store.entries), world.balance(world.sender)) == before
    assert world.balance(world.sender) == Balance(FUNDS + RECEIVED - 3_00, 3_00)


@pytest.mark.parametrize(
    "other",
    [
        RefundRequest(3_01, RefundNature.ORIGINAL, "back"),
        RefundRequest(3_00, RefundNature.RETIRADA, "back"),
        RefundRequest(3_00, RefundNature.ORIGINAL, "other"),
        RefundRequest(3_00, RefundNature.ORIGINAL, None),
    ],
)
async def test_the_same_id_with_another_body_is_refused(world: World, other: RefundRequest) -> None:
    e2e = await _receipt(world)
    await _refund(world, e2e, RefundRequest(3_00, RefundNature.ORIGINAL, "back"), "ref1")

    with pytest.raises(RefundIdReused, match="ref1"):
        await _refund(world, e2e, other, "ref1")

    assert len(world.store.refunds) == 1


async def test_a_receipt_is_refundable_until_the_last_microsecond_of_its_window(
    world: World, clock: ManualClock
) -> None:
    e2e = await _receipt(world)
    clock.advance(REFUND_WINDOW.total_seconds())

    assert (await _refund(world, e2e, RefundRequest(1_00))).created
    clock.advance(1e-6)
    with pytest.raises(RefundWindowClosed):
        await _refund(world, e2e, RefundRequest(1_00))


async def test_a_refund_is_processed_when_its_delay_has_passed_and_not_before(
    world: World, store: InMemoryStore, clock: ManualClock
) -> None:
    e2e = await _receipt(world)
    first = (await _refund(world, e2e, RefundRequest(1_00))).refund
    clock.advance(1)
    second = (await _refund(world, e2e, RefundRequest(2_00))).refund

    # Just short of the first's time, then exactly at it.
    clock.advance((DELAY - timedelta(seconds=1, microseconds=1)).total_seconds())
    assert await process_due_refunds(store.unit_of_work, clock) == 0
    assert store.refunds[first.id].status is RefundStatus.EM_PROCESSAMENTO

    clock.advance(1e-6)
    assert await process_due_refunds(store.unit_of_work, clock) == 1
    assert store.refunds[first.id].status is RefundStatus.DEVOLVIDO
    assert store.refunds[second.id].status is RefundStatus.EM_PROCESSAMENTO

    clock.advance(1)
    third = (await _refund(world, e2e, RefundRequest(3_00))).refund
    clock.advance(DELAY.total_seconds())
    assert await process_due_refunds(store.unit_of_work, clock) == 2
    assert {store.refunds[r.id].status for r in (second, third)} == {RefundStatus.DEVOLVIDO}
    assert await process_due_refunds(store.unit_of_work, clock) == 0
    assert world.balance(world.sender) == Balance(FUNDS + RECEIVED - 6_00, 0)


async def test_process_due_refunds_finishes_at_most_its_limit(
    world: World, store: InMemoryStore, clock: ManualClock
) -> None:
    e2e = await _receipt(world)
    for _ in range(3):
        await _refund(world, e2e, RefundRequest(1_00))
    clock.advance(DELAY.total_seconds())

    assert await process_due_refunds(store.unit_of_work, clock, limit=2) == 2
    assert await process_due_refunds(store.unit_of_work, clock) == 1


@pytest.mark.parametrize(("taken", "left"), [(9_50, "0.50"), (10_00, "0.00")])
async def test_a_refund_above_the_remainder_says_what_remains(world: World, taken: int, left: str) -> None:
    e2e = await _receipt(world)
    await _refund(world, e2e, RefundRequest(taken))

    with pytest.raises(RefundAboveRefundable) as refused:
        await _refund(world, e2e, RefundRequest(1_00))

    problem = f"valor: at most {left} remains refundable"
    assert (wire_message(refused.value), wire_details(refused.value)) == (
        f"Invalid refund: {problem}",
        [problem],
    )
