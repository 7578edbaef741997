"""MED cases on an account that cannot cover the dispute: a partial block, and no block at all.

The stateful test rarely meets these (found by ``make mutate``, docs/testing.md): what is blocked
is what ``available`` holds, and accepting returns exactly what was blocked (DEVOLVIDO), or,
with nothing blocked, is a refund NAO_REALIZADO of the disputed amount that moves no money.
"""

from __future__ import annotations

from decimal import Decimal

from pixcore.accounts.rules import Balance
from pixcore.keys import parse_pix_key
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.refunds.med_service import accept_med, open_med, reject_med
from pixcore.refunds.rules import RefundNature, RefundStatus
from pixcore.transfers.receipt_service import receive_payment
from tests.unit.transfer_world import FUNDS, PAYER, World, assert_books_balance

RECEIVED = 10_00


async def _receipt_then_spend(world: World, *, keep: int) -> str:
    """A receipt of 10.00, then a transfer that leaves ``keep`` centavos available."""
    receipt = await receive_payment(
        world.store.unit_of_work,
        world.clock,
        key=parse_pix_key("maria@example.com"),
        amount=RECEIVED,
        payer=PAYER,
    )
    await world.send(amount=Decimal(FUNDS + RECEIVED - keep) / 100)
    assert world.balance(world.sender).available == keep
    return receipt.end_to_end_id


async def _open(world: World, e2e: str) -> int:
    case = await open_med(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=e2e,
        reason=MedReason.MED_FRAUDE,
    )
    return case.id


async def test_a_case_blocks_what_is_available_and_accepting_returns_just_that(world: World) -> None:
    e2e = await _receipt_then_spend(world, keep=4_00)
    case_id = await _open(world, e2e)
    case = world.store.med_cases[case_id]
    assert (case.amount, case.blocked) == (RECEIVED, 4_00)
    sending = FUNDS + RECEIVED - 4_00  # the transfer's own reservation, still pending
    assert world.balance(world.sender) == Balance(0, sending + 4_00)

    outcome = await accept_med(
        world.store.unit_of_work, world.clock, account_id=world.sender.id, case_id=case_id, ispb="99999999"
    )

    assert outcome.case.status is MedStatus.ACCEPTED
    assert outcome.refund is not None
    refund = outcome.refund
    assert (refund.amount, refund.reserved, refund.status) == (4_00, True, RefundStatus.DEVOLVIDO)
    assert (refund.nature, refund.med_case_id) == (RefundNature.MED_FRAUDE, case_id)
    assert world.balance(world.sender) == Balance(0, sending)
    assert_books_balance(world.store)


async def test_a_case_with_nothing_available_blocks_nothing_and_its_refund_is_not_made(world: World) -> None:
    e2e = await _receipt_then_spend(world, keep=0)
    before = world.balance(world.sender)
    case_id = await _open(world, e2e)
    assert (world.store.med_cases[case_id].amount, world.store.med_cases[case_id].blocked) == (RECEIVED, 0)
    assert world.balance(world.sender) == before

    outcome = await accept_med(
        world.store.unit_of_work, world.clock, account_id=world.sender.id, case_id=case_id, ispb="99999999"
    )

    assert outcome.refund is not None
    refund = outcome.refund
    assert (refund.amount, refund.reserved, refund.status) == (RECEIVED, False, RefundStatus.NAO_REALIZADO)
    assert world.balance(world.sender) == before
    assert_books_balance(world.store)


async def test_rejecting_a_partly_blocked_case_releases_what_it_blocked(world: World) -> None:
    e2e = await _receipt_then_spend(world, keep=4_00)
    before = world.balance(world.sender)
    case_id = await _open(world, e2e)

    outcome = await reject_med(
        world.store.unit_of_work, world.clock, account_id=world.sender.id, case_id=case_id
    )

    assert (outcome.case.status, outcome.refund) == (MedStatus.REJECTED, None)
    assert world.balance(world.sender) == before
    assert_books_balance(world.store)
