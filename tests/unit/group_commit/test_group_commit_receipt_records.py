"""A group of receipts writes, for each receipt, what the ungrouped path writes for it: the
PAYMENT record field by field (amount, type, status, counterpart, key, times), its ledger entries
and its notifications (RECEIVE, and PIX when the key has a webhook). The ledger alone is not
enough: a record given another receipt's amount or payer would leave the books balanced and the
statement wrong."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Counterpart
from pixcore.group_commit.receipts import ReceiptGroupCommit
from pixcore.keys import parse_pix_key
from pixcore.records import NewTransaction
from pixcore.testing import InMemoryStore, StaticResolver
from pixcore.transfers.receipt_service import Receipt, receive_payment
from pixcore.webhooks.key_webhook_service import parse_key_webhook, set_key_webhook
from pixcore.webhooks.rules import EventType
from pixinfra.event_payloads import payload
from tests.unit.transfer_world import PAYER, World, assert_books_balance, entries_of
from tests.unit.usecase_helpers import OTHER_CPF

KEY = parse_pix_key("maria@example.com")
OTHER_PAYER = Counterpart("Outra Pagadora", OTHER_CPF, "55667788", "Banco Terceiro", "0042", "99881")
PAID = [(1_250, PAYER), (7, OTHER_PAYER), (300_00, PAYER), (45_67, OTHER_PAYER)]
"""Receipts of different amounts from two payers: no record may borrow another's."""


def _record(store: InMemoryStore, receipt: Receipt) -> NewTransaction:
    record = store.transactions[receipt.transaction_id]
    assert record.end_to_end_id == receipt.end_to_end_id  # each its own, generated per receipt
    return dataclasses.replace(record, end_to_end_id=None)


def _outbox(world: World, receipt: Receipt) -> list[tuple[object, ...]]:
    """The receipt's notifications (its RECEIVE event, and its PIX event when the key has a
    webhook), each with its account, type and time; its own identifiers (record id, end-to-end id)
    replaced by placeholders."""
    found: list[tuple[object, ...]] = []
    for item in world.store.outbox:
        text = json.dumps(payload(item.event), sort_keys=True)
        if receipt.end_to_end_id not in text:
            continue
        event = json.loads(text.replace(receipt.end_to_end_id, "<e2e>"))
        if event["type"] == "RECEIVE":
            assert event["data"]["id"] == receipt.transaction_id
            event["data"]["id"] = "<id>"
        found.append((item.account_id, item.webhook_type, item.at, event))
    return found


@pytest.mark.parametrize("hooked", [False, True], ids=["no-key-webhook", "key-webhook"])
async def test_a_group_writes_each_receipt_as_the_ungrouped_path_does(world: World, hooked: bool) -> None:
    """``hooked``: the key has a webhook of the standard, so each receipt also queues a PIX event."""
    if hooked:
        await set_key_webhook(
            world.store.unit_of_work,
            world.clock,
            StaticResolver({"hooks.example.com": ["203.0.114.10"]}),
            account_id=world.sender.id,
            request=parse_key_webhook(key=KEY.value, webhook_url="https://hooks.example.com/a"),
            allow_private=False,
        )
    alone = [
        await receive_payment(world.store.unit_of_work, world.clock, key=KEY, amount=amount, payer=payer)
        for amount, payer in PAID
    ]
    group_commit = ReceiptGroupCommit(
        world.store.unit_of_work, world.clock, size=16, window=timedelta(seconds=1)
    )
    commits = world.store.commits

    grouped = await asyncio.gather(*(group_commit.receive(key=KEY, amount=a, payer=p) for a, p in PAID))

    assert world.store.commits == commits + 1  # one group: the comparison is of the grouped path
    assert [_record(world.store, r) for r in grouped] == [_record(world.store, r) for r in alone]
    assert [_record(world.store, r).amount for r in grouped] == [amount for amount, _ in PAID]
    assert [entries_of(world.store, r.transaction_id) for r in grouped] == [
        entries_of(world.store, r.transaction_id) for r in alone
    ]
    assert [_outbox(world, r) for r in grouped] == [_outbox(world, r) for r in alone]
    assert [[item[1] for item in _outbox(world, r)] for r in grouped] == [
        [EventType.CASH_IN, EventType.PIX] if hooked else [EventType.CASH_IN]
    ] * len(PAID)
    assert len({r.end_to_end_id for r in [*alone, *grouped]}) == 2 * len(PAID)
    assert_books_balance(world.store)


async def test_receipts_to_two_keys_at_once_are_each_credited_to_their_key_owner(world: World) -> None:
    """A group is one key's: receipts to Maria's and João's keys arriving together are never
    credited to the owner of whichever key came first."""
    group_commit = ReceiptGroupCommit(
        world.store.unit_of_work, world.clock, size=16, window=timedelta(seconds=1)
    )
    maria, joao = world.balance(world.sender), world.balance(world.receiver)
    joao_key = parse_pix_key("joao@example.com")
    paid = [(KEY, 100), (joao_key, 20), (KEY, 3), (joao_key, 4_000)]

    receipts = await asyncio.gather(*(group_commit.receive(key=k, amount=a, payer=PAYER) for k, a in paid))

    owners = [world.sender.id, world.receiver.id, world.sender.id, world.receiver.id]
    assert [r.account_id for r in receipts] == owners
    assert [world.store.transactions[r.transaction_id].account_id for r in receipts] == owners
    assert world.balance(world.sender).available == maria.available + 103
    assert world.balance(world.receiver).available == joao.available + 4_020
    assert_books_balance(world.store)
