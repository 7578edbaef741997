"""Settling transfers and receiving payments on the fakes."""

from __future__ import annotations

import dataclasses
import uuid
from decimal import Decimal
from typing import Any

import pytest

from pixcore.accounts.rules import Balance, Counterpart
from pixcore.errors import (
    DuplicatePixKey,
    KeyNotInDirectory,
)
from pixcore.identifiers import is_end_to_end_id
from pixcore.keys import parse_pix_key
from pixcore.ledger import Bucket
from pixcore.records import TransactionStatus, TransactionType
from pixcore.testing import (
    external_total,
)
from pixcore.transfers.receipt_service import receive_payment
from pixcore.transfers.rules import DirectoryEntry, TransferState
from pixcore.transfers.transfer_service import settle_transfer as settle_one
from pixcore.webhooks.rules import EventType
from pixinfra.event_payloads import payload
from tests.unit.transfer_world import (
    CLOSED,
    FUNDS,
    NORM_DELAY,
    PAYER,
    SHOP,
    World,
    assert_books_balance,
    entries_of,
    snapshot,
)
from tests.unit.usecase_helpers import OTHER_CPF

# -- settling ----------------------------------------------------------------------------


async def test_a_high_priority_transfer_settles_at_once(world: World) -> None:
    key = uuid.uuid4()
    created = await world.send(key, priority="HIGH", creditor_document=SHOP.document)
    transfer_id = created.transfer.transaction_id

    assert await world.settle_due() == 1

    store, now = world.store, world.clock.now()
    assert store.transfers[transfer_id].state is TransferState.COMPLETED
    assert store.transfers[transfer_id].error_code is None
    assert store.finished_at[transfer_id] == now
    assert store.transactions[transfer_id].status is TransactionStatus.CONFIRMED
    assert store.transactions[transfer_id].processed_at == now
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert external_total(store) == -FUNDS + 2500  # the money left the service
    assert entries_of(store, transfer_id)[2:] == [
        ("settle_out", world.sender.id, Bucket.BLOCKED, -2500),
        ("settle_out", None, Bucket.EXTERNAL, 2500),
    ]
    event = world.events(world.sender)[-1]
    assert event["type"] == "TRANSFER"
    assert event["data"]["status"] == "LIQUIDATED"
    assert event["data"]["id"] == transfer_id
    assert event["data"]["idempotencyKey"] == str(key)
    assert event["data"]["endToEndId"] == created.transfer.end_to_end_id
    assert event["data"]["payment"] == {"amount": "25.00", "currency": "BRL"}
    assert "errorCode" not in event["data"]
    assert await world.settle_due() == 0
    assert_books_balance(store)


async def test_a_normal_transfer_settles_only_after_the_norm_delay(world: World) -> None:
    created = await world.send()
    transfer_id = created.transfer.transaction_id

    assert await world.settle_due() == 0
    world.clock.advance(NORM_DELAY.total_seconds() - 1)
    assert await world.settle_due() == 0
    assert await settle_one(world.store.unit_of_work, world.clock, transfer_id) == 0  # not due yet
    assert world.store.transfers[transfer_id].state is TransferState.PENDING
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 2500)

    world.clock.advance(1)
    assert await world.settle_due() == 1

    assert world.store.transfers[transfer_id].state is TransferState.COMPLETED
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert_books_balance(world.store)


@pytest.mark.parametrize(
    ("changes", "wait"),
    [
        ({"expiration": 10}, 10),  # expires before the normal queue would settle it
        ({"priority": "HIGH", "creditor_document": SHOP.document, "expiration": 5}, 5),  # nobody ran in time
    ],
)
async def test_a_transfer_not_settled_within_its_expiration_fails_with_ab03(
    world: World, changes: dict[str, Any], wait: int
) -> None:
    created = await world.send(**changes)
    transfer_id = created.transfer.transaction_id

    world.clock.advance(wait)
    assert await world.settle_due() == 1

    store = world.store
    assert store.transfers[transfer_id].state is TransferState.ERROR
    assert store.transfers[transfer_id].error_code == "AB03"
    assert store.transactions[transfer_id].status is TransactionStatus.ERROR
    assert world.balance(world.sender) == Balance(FUNDS, 0)  # the funds are released
    assert entries_of(store, transfer_id)[2:] == [
        ("release", world.sender.id, Bucket.BLOCKED, -2500),
        ("release", world.sender.id, Bucket.AVAILABLE, 2500),
    ]
    event = world.events(world.sender)[-1]
    assert (event["type"], event["data"]["status"], event["data"]["errorCode"]) == (
        "TRANSFER",
        "ERROR",
        "AB03",
    )
    assert_books_balance(store)


async def test_a_transfer_the_receiving_side_rejects_fails_with_ac06(world: World) -> None:
    created = await world.send(pix_key=CLOSED.key.value)
    transfer_id = created.transfer.transaction_id

    world.clock.advance(NORM_DELAY.total_seconds())
    assert await world.settle_due() == 1

    assert world.store.transfers[transfer_id].state is TransferState.ERROR
    assert world.store.transfers[transfer_id].error_code == "AC06"
    assert world.store.transactions[transfer_id].status is TransactionStatus.ERROR
    assert world.balance(world.sender) == Balance(FUNDS, 0)
    event = world.events(world.sender)[-1]
    assert (event["data"]["status"], event["data"]["errorCode"]) == ("ERROR", "AC06")
    assert event["data"]["creditorAccount"]["ispb"] == CLOSED.ispb
    assert_books_balance(world.store)


async def test_a_transfer_to_an_account_of_the_service_settles_inside(world: World) -> None:
    store, sender, receiver = world.store, world.sender, world.receiver
    created = await world.send(pix_key="joao@example.com", priority="HIGH", creditor_document=OTHER_CPF)
    transfer = created.transfer
    assert transfer.receiver_account_id == receiver.id
    outside_before = external_total(store)

    assert await world.settle_due() == 1

    assert store.transfers[transfer.transaction_id].state is TransferState.COMPLETED
    assert world.balance(sender) == Balance(FUNDS - 2500, 0)
    assert world.balance(receiver) == Balance(2500, 0)
    assert external_total(store) == outside_before  # no money left the service
    assert entries_of(store, transfer.transaction_id)[2:] == [
        ("settle_in", sender.id, Bucket.BLOCKED, -2500),
        ("settle_in", receiver.id, Bucket.AVAILABLE, 2500),
    ]

    (receipt_id,) = [
        i
        for i, t in store.transactions.items()
        if t.account_id == receiver.id and t.type is TransactionType.PAYMENT
    ]
    receipt = store.transactions[receipt_id]
    assert (receipt.status, receipt.amount) == (TransactionStatus.CONFIRMED, 2500)
    assert receipt.end_to_end_id == transfer.end_to_end_id
    assert receipt.counterpart == Counterpart(
        sender.name, sender.document, sender.ispb, "", sender.branch, sender.number
    )

    (received,) = world.events(receiver)
    assert received["type"] == "RECEIVE"
    assert received["data"]["id"] == receipt_id
    assert received["data"]["payment"] == {"amount": "25.00", "currency": "BRL"}
    assert received["data"]["debtorAccount"] == {"name": sender.name, "document": "***.982.247-**"}
    sent = world.events(sender)[-1]
    assert (sent["type"], sent["data"]["status"], sent["data"]["id"]) == (
        "TRANSFER",
        "LIQUIDATED",
        transfer.transaction_id,
    )
    assert_books_balance(store)


async def test_settling_the_same_transfer_twice_finishes_it_once(world: World) -> None:
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    transfer_id = created.transfer.transaction_id
    uow, clock = world.store.unit_of_work, world.clock

    assert await settle_one(uow, clock, transfer_id) == 1
    assert await settle_one(uow, clock, transfer_id) == 0
    assert await world.settle_due() == 0

    assert [e[0] for e in entries_of(world.store, transfer_id)] == ["reserve"] * 2 + ["settle_out"] * 2
    transfers_told = [e for e in world.events(world.sender) if e["type"] == "TRANSFER"]
    assert len(transfers_told) == 1
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert_books_balance(world.store)


async def test_a_transfer_another_worker_holds_is_skipped(world: World) -> None:
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    transfer_id = created.transfer.transaction_id

    async with world.store.unit_of_work() as other_worker:
        assert await other_worker.transfers.lock_pending(transfer_id) == created.transfer
        assert await settle_one(world.store.unit_of_work, world.clock, transfer_id) == 0
        assert await world.settle_due() == 0
        assert world.store.transfers[transfer_id].state is TransferState.PENDING

    assert await world.settle_due() == 1  # the other worker let go without finishing it
    assert world.store.transfers[transfer_id].state is TransferState.COMPLETED
    assert_books_balance(world.store)


async def test_settle_due_finishes_at_most_limit_transfers_per_call(world: World) -> None:
    for _ in range(3):
        await world.send(priority="HIGH", creditor_document=SHOP.document, amount=Decimal("1.00"))

    assert await world.settle_due(limit=2) == 2
    assert await world.settle_due(limit=2) == 1
    assert await world.settle_due(limit=2) == 0
    assert {t.state for t in world.store.transfers.values()} == {TransferState.COMPLETED}
    assert_books_balance(world.store)


async def test_settling_an_unknown_transfer_does_nothing(world: World) -> None:
    before = snapshot(world.store)

    assert await settle_one(world.store.unit_of_work, world.clock, 404) == 0
    assert snapshot(world.store) == before


# -- receiving ---------------------------------------------------------------------------


async def test_a_receipt_credits_available_and_tells_the_receiver(world: World) -> None:
    store, receiver, now = world.store, world.receiver, world.clock.now()

    receipt = await receive_payment(
        store.unit_of_work,
        world.clock,
        key=parse_pix_key("joao@example.com"),
        amount=1234,
        payer=PAYER,
        tx_id="abcdefghijklmnopqrstuvwxyz123",
    )

    assert receipt.account_id == receiver.id
    assert world.balance(receiver) == Balance(1234, 0)
    record = store.transactions[receipt.transaction_id]
    assert (record.account_id, record.type, record.status, record.amount) == (
        receiver.id,
        TransactionType.PAYMENT,
        TransactionStatus.CONFIRMED,
        1234,
    )
    assert (record.counterpart, record.pix_key, record.processed_at) == (PAYER, "joao@example.com", now)
    assert record.end_to_end_id == receipt.end_to_end_id
    assert is_end_to_end_id(receipt.end_to_end_id)
    assert receipt.end_to_end_id.startswith("E" + PAYER.ispb)
    assert entries_of(store, receipt.transaction_id) == [
        ("receive", None, Bucket.EXTERNAL, -1234),
        ("receive", receiver.id, Bucket.AVAILABLE, 1234),
    ]
    item = store.outbox[-1]
    assert (item.account_id, payload(item.event), item.webhook_type, item.at) == (
        receiver.id,
        {
            "type": "RECEIVE",
            "data": {
                "id": receipt.transaction_id,
                "txId": "abcdefghijklmnopqrstuvwxyz123",
                "status": "LIQUIDATED",
                "payment": {"amount": "12.34", "currency": "BRL"},
                "endToEndId": receipt.end_to_end_id,
                "debtorAccount": {"name": PAYER.name, "document": "**.ABC.345/01DE-**"},
            },
        },
        EventType.CASH_IN,  # where a RECEIVE goes, stored with it
        now,
    )
    assert_books_balance(store)


async def test_a_receipt_for_a_key_of_no_account_is_refused(world: World) -> None:
    before = snapshot(world.store)

    with pytest.raises(KeyNotInDirectory):
        await receive_payment(
            world.store.unit_of_work, world.clock, key=SHOP.key, amount=1234, payer=PAYER
        )  # an outside key: not ours to credit

    assert snapshot(world.store) == before
    assert_books_balance(world.store)


# -- the fake directory ------------------------------------------------------------------


async def test_the_directory_resolves_the_keys_of_the_accounts_of_the_service(world: World) -> None:
    receiver, payer = world.receiver, world.sender.document
    entry = await world.directory.lookup(parse_pix_key("JOAO@example.com"), payer=payer)

    assert entry == DirectoryEntry(
        key=parse_pix_key("joao@example.com"),
        ispb=receiver.ispb,
        name=receiver.name,
        document=receiver.document,
        bank_name="",
        branch=receiver.branch,
        account_number=receiver.number,
        behavior="settle",
        account_id=receiver.id,
    )
    assert await world.directory.lookup(SHOP.key, payer=payer) == SHOP
    assert await world.directory.lookup(parse_pix_key("nobody@example.com"), payer=payer) is None


async def test_the_directory_refuses_a_key_it_knows_already(world: World) -> None:
    with pytest.raises(DuplicatePixKey):
        world.directory.add(SHOP)
    with pytest.raises(DuplicatePixKey):  # a key of an account of the service
        world.directory.add(dataclasses.replace(SHOP, key=parse_pix_key("maria@example.com")))

    payer = world.sender.document
    assert await world.directory.lookup(parse_pix_key("maria@example.com"), payer=payer) is not None
    assert (await world.directory.lookup(SHOP.key, payer=payer)) == SHOP


async def test_a_receipt_restricted_to_an_account_refuses_another_accounts_key(world: World) -> None:
    payer = Counterpart("Payer", OTHER_CPF, "00000000")
    with pytest.raises(KeyNotInDirectory, match="your account"):
        await receive_payment(
            world.store.unit_of_work,
            world.clock,
            key=parse_pix_key("joao@example.com"),
            amount=100,
            payer=payer,
            only_for=world.sender.id,
        )
