"""Edges of the money rules that ``make mutate``'s second run showed no fast test reaching
(docs/testing.md): an unreserved refund's outcome, a MED case blocking one centavo, the exact
fields of a directory entry and a refund request, and lifecycles without shortcut triggers."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from pixcore.accounts.rules import Balance
from pixcore.keys import parse_pix_key
from pixcore.records import TransactionStatus
from pixcore.refunds.med import MedLifecycle, MedReason
from pixcore.refunds.med_service import accept_med, open_med
from pixcore.refunds.refund_service import process_due_refunds, request_refund
from pixcore.refunds.rules import (
    INSUFFICIENT_FUNDS,
    RefundLifecycle,
    RefundNature,
    RefundRequest,
    RefundStatus,
)
from pixcore.transfers.receipt_service import receive_payment
from pixcore.transfers.rules import MAX_BANK_NAME, DirectoryEntry
from pixinfra.event_payloads import payload
from tests.unit.transfer_world import FUNDS, PAYER, World


async def _receipt(world: World, amount: int) -> str:
    receipt = await receive_payment(
        world.store.unit_of_work,
        world.clock,
        key=parse_pix_key("maria@example.com"),
        amount=amount,
        payer=PAYER,
    )
    return receipt.end_to_end_id


async def test_a_refund_the_account_cannot_cover_ends_not_made_and_moves_nothing(world: World) -> None:
    e2e = await _receipt(world, 10_00)
    await world.send(amount=Decimal(FUNDS + 10_00 - 2_00) / 100)  # 2.00 left available
    before = world.balance(world.sender)
    requested = await request_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=e2e,
        refund_id="short",
        request=RefundRequest(5_00),
        ispb="99999999",
        delay=timedelta(seconds=5),
    )
    assert requested.refund.reserved is False
    world.clock.advance(5)

    assert await process_due_refunds(world.store.unit_of_work, world.clock) == 1

    refund = world.store.refunds[requested.refund.id]
    assert (refund.status, refund.reason) == (RefundStatus.NAO_REALIZADO, INSUFFICIENT_FUNDS)
    assert world.store.transactions[refund.transaction_id].status is TransactionStatus.ERROR
    assert not [item for item in world.store.outbox if payload(item.event).get("type") == "REFUND"]
    assert world.balance(world.sender) == before


async def test_a_refund_made_is_confirmed_and_notified(world: World) -> None:
    e2e = await _receipt(world, 10_00)
    requested = await request_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=e2e,
        refund_id="made",
        request=RefundRequest(3_00),
        ispb="99999999",
        delay=timedelta(seconds=5),
    )
    world.clock.advance(5)
    await process_due_refunds(world.store.unit_of_work, world.clock)

    refund = world.store.refunds[requested.refund.id]
    assert (refund.status, refund.reason) == (RefundStatus.DEVOLVIDO, None)
    assert world.store.transactions[refund.transaction_id].status is TransactionStatus.CONFIRMED
    refunds = [
        payload(item.event) for item in world.store.outbox if payload(item.event).get("type") == "REFUND"
    ]
    assert len(refunds) == 1


async def test_a_case_that_can_block_one_centavo_blocks_it(world: World) -> None:
    e2e = await _receipt(world, 10_00)
    await world.send(amount=Decimal(FUNDS + 10_00 - 1) / 100)
    case = await open_med(
        world.store.unit_of_work,
        world.clock,
        account_id=world.sender.id,
        end_to_end_id=e2e,
        reason=MedReason.MED_OPERACIONAL,
    )
    assert case.blocked == 1
    assert world.balance(world.sender).available == 0

    outcome = await accept_med(
        world.store.unit_of_work, world.clock, account_id=world.sender.id, case_id=case.id, ispb="99999999"
    )

    assert outcome.refund is not None
    assert (outcome.refund.amount, outcome.refund.reserved, outcome.refund.status) == (
        1,
        True,
        RefundStatus.DEVOLVIDO,
    )
    assert world.balance(world.sender) == Balance(0, FUNDS + 10_00 - 1)  # the transfer, still pending


def test_a_directory_entry_keeps_every_field() -> None:
    entry = DirectoryEntry.parse(
        pix_key="ana@example.com",
        ispb="12345678",
        name="A" * 140,
        document="52998224725",
        bank_name="B" * MAX_BANK_NAME,  # the column holds 100
        branch="0001",
        account_number="42",
        behavior="settle",
    )

    assert (entry.ispb, entry.document, entry.bank_name, entry.branch, entry.account_number) == (
        "12345678",
        "52998224725",
        "B" * MAX_BANK_NAME,
        "0001",
        "42",
    )
    assert entry.name == "A" * 140


def test_a_refund_request_keeps_its_description_up_to_140_characters() -> None:
    assert RefundRequest.parse(amount="1.00", description="d" * 140) == RefundRequest(
        100, RefundNature.ORIGINAL, "d" * 140
    )


@pytest.mark.parametrize(("lifecycle", "state"), [(RefundLifecycle, "DEVOLVIDO"), (MedLifecycle, "ACCEPTED")])
def test_a_lifecycle_has_no_shortcut_triggers(lifecycle: type[object], state: str) -> None:
    # Built here, not at collection: the mutant under test must be the one that builds it.
    assert not hasattr(lifecycle(), f"to_{state}")
