"""Settlement in groups on the fakes: a group finishes each transfer exactly as one by one does.

The reference is the ungrouped path (``settle_due``) on a world that received the same transfers:
states, error codes, record statuses, ledger entries, balances and events must match (end-to-end
ids aside, which are new on every run).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import pytest

from pixcore.accounts.rules import Balance
from pixcore.clock import ManualClock
from pixcore.errors import InsufficientFunds
from pixcore.group_commit.settlement import settle_in_groups
from pixcore.testing import InMemoryOutbox, InMemoryStore, PlainHasher
from pixcore.transfers.rules import TransferState
from pixinfra.event_payloads import payload
from tests.unit.transfer_world import (
    CLOSED,
    FUNDS,
    NORM_DELAY,
    SHOP,
    World,
    assert_books_balance,
    make_world,
)
from tests.unit.usecase_helpers import OTHER_CPF

Settle = Callable[[World], Awaitable[int]]


async def _mixed(world: World) -> list[int]:
    """Six transfers of Maria's 100.00 that end six ways once the normal delay has passed."""
    sends: list[dict[str, Any]] = [
        {"priority": "HIGH", "creditor_document": SHOP.document, "amount": Decimal("25.00")},  # settles out
        {"pix_key": CLOSED.key.value, "amount": Decimal("10.00")},  # the receiving side refuses: AC06
        {"expiration": 10, "amount": Decimal("7.00")},  # its expiration passes first: AB03
        {
            "pix_key": "joao@example.com",
            "priority": "HIGH",
            "creditor_document": OTHER_CPF,
            "amount": Decimal("15.00"),
        },
        {"pix_key": "joao@example.com", "amount": Decimal("5.00")},  # internal, normal priority
        {"amount": Decimal("1.00")},  # settles out, normal priority
    ]
    ids = [(await world.send(**changes)).transfer.transaction_id for changes in sends]
    world.clock.advance(NORM_DELAY.total_seconds())
    return ids


def _outcome(world: World, ids: list[int], *, receipt_ids: bool = True) -> tuple[object, ...]:
    """What settlement left. ``receipt_ids`` False: a receipt record's id is not compared (a group
    that rolled back spent ids, as a sequence does)."""
    store = world.store
    events = [
        (
            item.account_id,
            payload(item.event)["type"],
            payload(item.event)["data"].get("status"),
            payload(item.event)["data"].get("errorCode"),
        )
        for item in store.outbox
    ]
    entries = sorted(
        (
            (e.transaction_id, e.posting, e.account_id, e.bucket.value, e.amount, e.institution)
            for e in store.entries
        ),
        key=repr,
    )
    records = sorted(
        (
            (
                i if receipt_ids or i in ids else None,
                r.account_id,
                r.type.value,
                r.status.value,
                r.amount,
                r.processed_at,
                r.counterpart,
            )
            for i, r in store.transactions.items()
        ),
        key=repr,
    )
    return (
        [(store.transfers[i].state, store.transfers[i].error_code, store.finished_at.get(i)) for i in ids],
        records,
        entries,
        dict(store.balances),
        sorted(events, key=repr),
    )


async def _world(clock: ManualClock) -> World:
    return await make_world(InMemoryStore(clock), clock, PlainHasher())


async def _one_by_one(world: World) -> int:
    return await world.settle_due()


@pytest.mark.parametrize("size", [2, 4, 64])
async def test_a_mixed_group_finishes_each_transfer_as_one_by_one_does(size: int) -> None:
    alone, grouped = await _world(ManualClock()), await _world(ManualClock())
    alone_ids, grouped_ids = await _mixed(alone), await _mixed(grouped)
    assert alone_ids == grouped_ids

    assert await _one_by_one(alone) == 6
    commits = grouped.store.commits
    assert await settle_in_groups(grouped.store.unit_of_work, grouped.clock, size=size) == 6

    assert grouped.store.commits - commits == -(-6 // size)  # one commit a group
    assert _outcome(grouped, grouped_ids) == _outcome(alone, alone_ids)
    states = [grouped.store.transfers[i] for i in grouped_ids]
    assert [(t.state, t.error_code) for t in states] == [
        (TransferState.COMPLETED, None),
        (TransferState.ERROR, "AC06"),
        (TransferState.ERROR, "AB03"),
        (TransferState.COMPLETED, None),
        (TransferState.COMPLETED, None),
        (TransferState.COMPLETED, None),
    ]
    assert grouped.balance(grouped.sender) == Balance(FUNDS - 2500 - 1500 - 500 - 100, 0)
    assert grouped.balance(grouped.receiver) == Balance(2000, 0)
    assert_books_balance(grouped.store)
    assert await settle_in_groups(grouped.store.unit_of_work, grouped.clock, size=size) == 0


async def test_a_transfer_not_yet_due_in_a_group_is_left_pending() -> None:
    world = await _world(ManualClock())
    due = (await world.send(priority="HIGH", creditor_document=SHOP.document)).transfer.transaction_id
    later = (await world.send()).transfer.transaction_id

    assert await settle_in_groups(world.store.unit_of_work, world.clock, size=8) == 1

    assert world.store.transfers[due].state is TransferState.COMPLETED
    assert world.store.transfers[later].state is TransferState.PENDING
    assert world.balance(world.sender) == Balance(FUNDS - 5000, 2500)
    assert_books_balance(world.store)


async def test_a_failed_group_is_settled_one_by_one_none_lost_none_twice(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    alone, grouped = await _world(ManualClock()), await _world(ManualClock())
    alone_ids, grouped_ids = await _mixed(alone), await _mixed(grouped)
    await _one_by_one(alone)

    async def broken(self: InMemoryOutbox, events: Any, at: Any) -> None:
        raise RuntimeError("the connection went away")

    monkeypatch.setattr(InMemoryOutbox, "add_each", broken)
    with caplog.at_level(logging.WARNING, "pixcore.group_commit.settlement"):
        assert await settle_in_groups(grouped.store.unit_of_work, grouped.clock, size=4) == 6

    assert [r.getMessage() for r in caplog.records if r.name == "pixcore.group_commit.settlement"] == [
        "a batch of 4 due transfers failed; settling them one by one",
        "a batch of 2 due transfers failed; settling them one by one",
    ]
    assert _outcome(grouped, grouped_ids, receipt_ids=False) == _outcome(alone, alone_ids, receipt_ids=False)
    assert len([item for item in grouped.store.outbox if payload(item.event)["type"] == "TRANSFER"]) == 6
    assert_books_balance(grouped.store)


async def test_a_guard_refusing_a_group_rolls_it_back_whole() -> None:
    """Were a reserve missing (a corrupt book), the group's guarded UPDATE refuses it: nothing of
    the group stays, and the one by one path then refuses only that transfer."""
    world = await _world(ManualClock())
    ids = await _mixed(world)
    store = world.store
    # Corrupt the book: Maria's blocked funds lose the 1.00 her last transfer reserved.
    sender = world.sender.id
    store.balances[sender] = Balance(store.balances[sender].available, store.balances[sender].blocked - 100)
    with pytest.raises(InsufficientFunds):  # the ungrouped path's own refusal, as settle_due gives it
        await settle_in_groups(store.unit_of_work, world.clock, size=64)
    # The group rolled back, then one by one finished the five the book covers before the sixth failed.
    assert [store.transfers[i].state for i in ids[:5]] == [
        TransferState.COMPLETED,
        TransferState.ERROR,
        TransferState.ERROR,
        TransferState.COMPLETED,
        TransferState.COMPLETED,
    ]
    assert store.transfers[ids[5]].state is TransferState.PENDING


async def test_two_loops_at_once_never_finish_a_transfer_twice() -> None:
    world = await _world(ManualClock())
    ids = await _mixed(world)

    finished = await asyncio.gather(
        *(settle_in_groups(world.store.unit_of_work, world.clock, size=size) for size in (2, 3, 64, 1))
    )

    assert sum(finished) == 6
    transfer_events = [
        payload(item.event)["data"]["id"]
        for item in world.store.outbox
        if payload(item.event)["type"] == "TRANSFER"
    ]
    assert sorted(transfer_events) == sorted(ids)
    assert_books_balance(world.store)


async def test_a_group_holds_at_least_one_transfer() -> None:
    with pytest.raises(ValueError, match="at least one"):
        await settle_in_groups(InMemoryStore().unit_of_work, ManualClock(), size=0)
