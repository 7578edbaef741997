"""Batches of due-date charges on the fakes: the request's own rules (every one at once), each
charge judged on its own by the cobv rules, one unit of work per batch (a failure midway leaves
nothing), and revisions limited to the batch's own charges."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pixcore.accounts.accounts_service import open_account
from pixcore.charges.batch_service import BatchChange, BatchCharge, create_due_batch, revise_due_batch
from pixcore.charges.batches import MAX_CHARGES, BatchItemStatus, BatchRequest, Refusal
from pixcore.charges.cob import DebtorFields
from pixcore.charges.cobv import DueCalendarFields, DueValueFields, payer_day
from pixcore.charges.cobv_requests import DueChargeFields, DueRevisionFields, DueValueChange
from pixcore.clock import ManualClock
from pixcore.errors import (
    BatchNotFound,
    Conflict,
    DuplicateBatch,
    DuplicateCharge,
    InvalidCredentials,
    NotFound,
    ValidationError,
)
from pixcore.testing import InMemoryStore, PlainHasher
from tests.unit.wire_rendering import wire_details, wire_raises

PREFIX = "pix.example.com/qr/v2/"


def _txid(n: int) -> str:
    return f"{n:032d}"


def _fields(clock: ManualClock, original: str = "100.00", *, debtor: bool = True) -> DueChargeFields:
    due = payer_day(clock.now()) + timedelta(days=10)
    return DueChargeFields(
        calendar=DueCalendarFields(due.isoformat(), 5),
        value=DueValueFields(original=original),
        debtor=DebtorFields(cpf="52998224725", name="João Souza") if debtor else None,
    )


async def _account(store: InMemoryStore) -> int:
    opened = await open_account(
        store.unit_of_work,
        PlainHasher(),
        ispb="99999999",
        name="Maria",
        document="11144477735",
        city="RECIFE",
    )
    return opened.account.id


def test_every_broken_rule_of_the_request_at_once() -> None:
    with pytest.raises(ValidationError) as caught:
        BatchRequest.parse(description=None, txids=[_txid(1), "short", 7, _txid(1)], creating=True)
    assert wire_details(caught.value) == [
        "descricao: required, a text",
        "cobsv[1].txid: Invalid identifier: txid must be 26 to 35 alphanumeric characters",
        "cobsv[2].txid: required, a text",
        f"cobsv[3].txid: {_txid(1)} is given more than once in the batch",
    ]
    with pytest.raises(ValidationError) as caught:
        BatchRequest.parse(
            description="x" * 141, txids=[_txid(n) for n in range(MAX_CHARGES + 1)], creating=False
        )
    assert [d.split(":")[0] for d in wire_details(caught.value)] == ["descricao", "cobsv"]
    with wire_raises(ValidationError, match="cobsv: required"):
        BatchRequest.parse(description="Lote", txids=None, creating=True)
    assert BatchRequest.parse(description="Lote", txids=[], creating=True).txids == ()
    assert BatchRequest.parse(description=None, txids=[_txid(2)], creating=False).description is None


def test_a_refusal_keeps_the_branch_of_its_error() -> None:
    refusal = Refusal.of(DuplicateCharge("taken"))
    assert (refusal.branch, refusal.message) == ("Conflict", "taken")
    assert isinstance(refusal.error(), Conflict)
    assert isinstance(Refusal.of(BatchNotFound()).error(), NotFound)
    with pytest.raises(ValueError, match="not a refusal"):
        Refusal.of(InvalidCredentials())


async def test_each_charge_is_judged_on_its_own(store: InMemoryStore, clock: ManualClock) -> None:
    account_id = await _account(store)
    charges = [
        BatchCharge(_txid(1), _fields(clock)),
        BatchCharge(_txid(2), _fields(clock, debtor=False)),
        BatchCharge(_txid(3), ValidationError("no", details=["valor: Expected `object`"])),
        BatchCharge(_txid(4), _fields(clock, "0.00")),
        BatchCharge(_txid(5), _fields(clock, "7.50")),
    ]
    batch = await create_due_batch(
        store.unit_of_work,
        clock,
        account_id=account_id,
        batch_id=3,
        description="Lote",
        charges=charges,
        location_prefix=PREFIX,
    )
    statuses = [(i.txid, i.status) for i in batch.items]
    assert statuses == [
        (_txid(1), BatchItemStatus.CRIADA),
        (_txid(2), BatchItemStatus.NEGADA),
        (_txid(3), BatchItemStatus.NEGADA),
        (_txid(4), BatchItemStatus.NEGADA),
        (_txid(5), BatchItemStatus.CRIADA),
    ]
    refusal = batch.items[2].refusal
    assert refusal is not None
    assert refusal.details == ("valor: Expected `object`",)
    assert store.tables.batches[(account_id, 3)] == batch
    stored = {c.txid: c for c in store.charges.values()}
    assert sorted(stored) == [_txid(1), _txid(5)]
    assert {c.batch_id for c in stored.values()} == {3}
    assert stored[_txid(5)].amount == 7_50

    with pytest.raises(DuplicateBatch):
        await create_due_batch(
            store.unit_of_work,
            clock,
            account_id=account_id,
            batch_id=3,
            description="Again",
            charges=[BatchCharge(_txid(9), _fields(clock))],
            location_prefix=PREFIX,
        )
    assert _txid(9) not in {c.txid for c in store.charges.values()}


async def test_a_failure_midway_leaves_nothing(
    store: InMemoryStore, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id = await _account(store)
    calls: list[Any] = []

    def killed_on_the_second_charge() -> Any:
        uow = store.unit_of_work()
        real = uow.charges.add

        async def add(charge: Any) -> Any:
            calls.append(charge)
            if len(calls) == 2:
                raise RuntimeError("the process died")
            return await real(charge)

        monkeypatch.setattr(uow.charges, "add", add)
        return uow

    charges = [BatchCharge(_txid(n), _fields(clock)) for n in (1, 2, 3)]
    with pytest.raises(RuntimeError):
        await create_due_batch(
            killed_on_the_second_charge,
            clock,
            account_id=account_id,
            batch_id=1,
            description="Lote",
            charges=charges,
            location_prefix=PREFIX,
        )
    assert len(calls) == 2  # the first charge was added before the failure...
    assert store.tables.batches == {}  # ...and nothing of the batch remains
    assert store.charges == {}


async def test_revisions_reach_only_the_batchs_charges(store: InMemoryStore, clock: ManualClock) -> None:
    account_id = await _account(store)
    await create_due_batch(
        store.unit_of_work,
        clock,
        account_id=account_id,
        batch_id=1,
        description="Lote",
        charges=[BatchCharge(_txid(1), _fields(clock)), BatchCharge(_txid(2), _fields(clock, debtor=False))],
        location_prefix=PREFIX,
    )
    await create_due_batch(
        store.unit_of_work,
        clock,
        account_id=account_id,
        batch_id=2,
        description="Outro",
        charges=[BatchCharge(_txid(3), _fields(clock))],
        location_prefix=PREFIX,
    )
    raise_to = DueRevisionFields(value=DueValueChange(original="150.00"))
    with pytest.raises(ValidationError) as caught:
        await revise_due_batch(
            store.unit_of_work,
            clock,
            location_prefix=PREFIX,
            account_id=account_id,
            batch_id=1,
            description=None,
            changes=[BatchChange(_txid(1), raise_to), BatchChange(_txid(3), raise_to)],
        )
    assert wire_details(caught.value) == [f"cobsv[1].txid: {_txid(3)} is not a charge of batch 1"]
    assert {c.txid: c.amount for c in store.charges.values()} == {_txid(1): 100_00, _txid(3): 100_00}

    revised = await revise_due_batch(
        store.unit_of_work,
        clock,
        location_prefix=PREFIX,
        account_id=account_id,
        batch_id=1,
        description="Novo",
        changes=[BatchChange(_txid(2), raise_to), BatchChange(_txid(1), raise_to)],
    )
    assert revised.description == "Novo"
    first, second = revised.items
    assert (first.txid, first.status, first.refusal) == (_txid(1), BatchItemStatus.CRIADA, None)
    assert second.status is BatchItemStatus.NEGADA
    assert second.refusal is not None
    assert second.refusal.branch == "NotFound"
    assert {c.txid: c.amount for c in store.charges.values()} == {_txid(1): 150_00, _txid(3): 100_00}
    with pytest.raises(BatchNotFound):
        await revise_due_batch(
            store.unit_of_work,
            clock,
            location_prefix=PREFIX,
            account_id=account_id + 1,
            batch_id=1,
            description=None,
            changes=[BatchChange(_txid(1), raise_to)],
        )
