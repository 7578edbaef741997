"""Group commit of receipts on the fakes: one key paid many times at once, in one unit of work."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Balance
from pixcore.errors import PixError
from pixcore.group_commit.receipts import ReceiptGroupCommit
from pixcore.keys import parse_pix_key
from pixcore.testing import InMemoryTransactions
from pixcore.transfers.receipt_service import Receipt
from tests.unit.transfer_world import FUNDS, PAYER, World, assert_books_balance


def _group_commit(world: World, size: int = 16) -> ReceiptGroupCommit:
    return ReceiptGroupCommit(
        world.store.unit_of_work, world.clock, size=size, window=timedelta(milliseconds=50)
    )


async def _pay(
    group_commit: ReceiptGroupCommit, amounts: list[int], only_for: int | None = None
) -> list[object]:
    key = parse_pix_key("maria@example.com")
    return list(
        await asyncio.gather(
            *(group_commit.receive(key=key, amount=a, payer=PAYER, only_for=only_for) for a in amounts),
            return_exceptions=True,
        )
    )


async def test_receipts_to_one_key_commit_together(world: World) -> None:
    commits, events = world.store.commits, len(world.events(world.sender))
    receipts = await _pay(_group_commit(world), [100, 200, 300, 400])
    assert all(isinstance(r, Receipt) and r.account_id == world.sender.id for r in receipts)
    assert world.store.commits == commits + 1
    assert world.balance(world.sender) == Balance(FUNDS + 1000, 0)
    received = [e for e in world.events(world.sender)[events:] if e["type"] == "RECEIVE"]
    assert sorted(e["data"]["payment"]["amount"] for e in received) == ["1.00", "2.00", "3.00", "4.00"]
    assert_books_balance(world.store)


@pytest.mark.parametrize("size", [1, 16])
async def test_a_key_of_another_account_is_refused_as_alone(world: World, size: int) -> None:
    before = world.balance(world.sender)
    refused = await _pay(_group_commit(world, size), [100, 200], only_for=world.receiver.id)
    assert [type(r).__name__ for r in refused] == ["KeyNotInDirectory"] * 2
    assert {str(r) for r in refused if isinstance(r, PixError)} == {"The key is not a key of your account."}
    assert world.balance(world.sender) == before


async def test_a_failed_group_of_receipts_is_credited_one_by_one(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: InMemoryTransactions, records: object) -> list[int]:
        raise RuntimeError("the group statement failed")

    monkeypatch.setattr(InMemoryTransactions, "add_many", broken)
    commits = world.store.commits
    receipts = await _pay(_group_commit(world), [100, 200, 300])
    assert all(isinstance(r, Receipt) for r in receipts)
    assert world.store.commits == commits + 3
    assert world.balance(world.sender) == Balance(FUNDS + 600, 0)
    assert_books_balance(world.store)
