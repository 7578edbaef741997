"""A batch of receipts writes, for each receipt, the records the unbatched path writes for it:
the PAYMENT record field by field (amount, type, status, counterpart, key, times), its ledger
entries and its RECEIVE event. The ledger alone is not enough: a record given another receipt's
amount or payer would leave the books balanced and the statement wrong."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta
from typing import Any

from pixcore.accounts import Counterpart
from pixcore.keys import parse_pix_key
from pixcore.records import NewTransaction
from pixcore.testing import InMemoryStore
from pixcore.usecases.receipt_batch import ReceiptBatcher
from pixcore.usecases.receipts import Receipt, receive_payment
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


def _event(world: World, receipt: Receipt) -> dict[str, Any]:
    """The receipt's RECEIVE event, its own identifiers (record id, end-to-end id) taken out."""
    found = [
        e
        for e in world.events(world.sender)
        if e["type"] == "RECEIVE" and e["data"]["endToEndId"] == receipt.end_to_end_id
    ]
    assert len(found) == 1, found
    assert found[0]["data"]["id"] == receipt.transaction_id
    data = {k: v for k, v in found[0]["data"].items() if k not in {"endToEndId", "id"}}
    return {**found[0], "data": data}


async def test_each_record_of_a_batch_is_the_one_the_unbatched_path_writes(world: World) -> None:
    alone = [
        await receive_payment(world.store.unit_of_work, world.clock, key=KEY, amount=amount, payer=payer)
        for amount, payer in PAID
    ]
    batcher = ReceiptBatcher(world.store.unit_of_work, world.clock, size=16, window=timedelta(seconds=1))
    commits = world.store.commits

    batched = await asyncio.gather(*(batcher.receive(key=KEY, amount=a, payer=p) for a, p in PAID))

    assert world.store.commits == commits + 1  # one batch: the comparison is of the batched path
    assert [_record(world.store, r) for r in batched] == [_record(world.store, r) for r in alone]
    assert [_record(world.store, r).amount for r in batched] == [amount for amount, _ in PAID]
    assert [entries_of(world.store, r.transaction_id) for r in batched] == [
        entries_of(world.store, r.transaction_id) for r in alone
    ]
    assert [_event(world, r) for r in batched] == [_event(world, r) for r in alone]
    assert len({r.end_to_end_id for r in [*alone, *batched]}) == 2 * len(PAID)
    assert_books_balance(world.store)
