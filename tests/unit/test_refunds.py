"""Refund and MED rules, and a stateful property: random receipts, transfers, refunds and MED
actions keep the books balanced and never refund more than was received."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Coroutine
from datetime import timedelta
from decimal import Decimal
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pixcore.clock import ManualClock
from pixcore.errors import (
    DuplicateMedCase,
    InsufficientFunds,
    InvalidTransition,
    RefundAboveRefundable,
    TransactionNotFound,
    ValidationError,
)
from pixcore.keys import parse_pix_key
from pixcore.med import MedLifecycle, MedReason, MedStatus
from pixcore.records import TransactionType
from pixcore.refunds import RefundKind, RefundLifecycle, RefundNature, RefundRequest, RefundStatus
from pixcore.testing import InMemoryStore, PlainHasher
from pixcore.usecases.med import accept_med, open_med, reject_med
from pixcore.usecases.receipts import receive_payment
from pixcore.usecases.refunds import process_due_refunds, receive_refund, request_refund
from tests.unit.transfer_world import PAYER, World, assert_books_balance, make_world

T = TypeVar("T")


@pytest.mark.parametrize(
    ("trigger", "status"), [("complete", RefundStatus.DEVOLVIDO), ("fail", RefundStatus.NAO_REALIZADO)]
)
def test_a_refund_finishes_once(trigger: str, status: RefundStatus) -> None:
    lifecycle = RefundLifecycle()
    assert getattr(lifecycle, trigger)() is status
    for again in ("complete", "fail"):
        with pytest.raises(InvalidTransition):
            getattr(lifecycle, again)()


@pytest.mark.parametrize(
    ("trigger", "status"), [("accept", MedStatus.ACCEPTED), ("reject", MedStatus.REJECTED)]
)
def test_a_med_case_is_decided_once(trigger: str, status: MedStatus) -> None:
    lifecycle = MedLifecycle()
    assert getattr(lifecycle, trigger)() is status
    for again in ("accept", "reject"):
        with pytest.raises(InvalidTransition):
            getattr(lifecycle, again)()


def test_refund_request_rules() -> None:
    assert RefundRequest.parse(valor="1.50") == RefundRequest(150, RefundNature.ORIGINAL, None)
    assert (
        RefundRequest.parse(valor="2.00", natureza="RETIRADA", descricao="x").nature is RefundNature.RETIRADA
    )
    for bad in ({"valor": 1.5}, {"valor": "1.5"}, {"valor": "0.00"}, {"valor": None}):
        with pytest.raises(ValidationError, match="valor"):
            RefundRequest.parse(**bad)
    for nature in ("MED_FRAUDE", "MED_OPERACIONAL", "original", 1):
        with pytest.raises(ValidationError, match="natureza"):
            RefundRequest.parse(valor="1.00", natureza=nature)
    with pytest.raises(ValidationError, match="descricao"):
        RefundRequest.parse(valor="1.00", descricao="d" * 141)
    assert MedReason.parse("MED_FRAUDE") is MedReason.MED_FRAUDE
    with pytest.raises(ValidationError):
        MedReason.parse("FRAUDE")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


class Books(RuleBasedStateMachine):
    """One account (Maria, of the transfer world) receives, sends, refunds and is disputed, at random."""

    @initialize()
    def start(self) -> None:
        self.clock = ManualClock()
        self.store = InMemoryStore(clock=self.clock)
        self.world: World = run(make_world(self.store, self.clock, PlainHasher()))
        self.account = self.world.sender.id
        self.receipts: list[str] = []
        self.transfers: list[str] = []
        self.cases: list[int] = []

    def _e2e(self, transaction_id: int) -> str:
        e2e = self.store.transactions[transaction_id].end_to_end_id
        assert e2e is not None
        return e2e

    @rule(amount=st.integers(min_value=1, max_value=50_00))
    def receive(self, amount: int) -> None:
        receipt = run(
            receive_payment(
                self.store.unit_of_work,
                self.clock,
                key=parse_pix_key("maria@example.com"),
                amount=amount,
                payer=PAYER,
            )
        )
        self.receipts.append(receipt.end_to_end_id)

    @rule(amount=st.integers(min_value=1, max_value=60_00))
    def send(self, amount: int) -> None:
        try:
            created = run(self.world.send(amount=Decimal(amount) / 100))
        except InsufficientFunds:
            return
        self.transfers.append(created.transfer.end_to_end_id)

    @rule(seconds=st.integers(min_value=0, max_value=60))
    def time_passes(self, seconds: int) -> None:
        self.clock.advance(seconds)
        run(self.world.settle_due())
        run(process_due_refunds(self.store.unit_of_work, self.clock))

    @precondition(lambda self: self.receipts)
    @rule(data=st.data(), amount=st.integers(min_value=1, max_value=60_00))
    def refund(self, data: st.DataObject, amount: int) -> None:
        e2e = data.draw(st.sampled_from(self.receipts))
        with contextlib.suppress(RefundAboveRefundable):
            run(
                request_refund(
                    self.store.unit_of_work,
                    self.clock,
                    account_id=self.account,
                    end_to_end_id=e2e,
                    refund_id=uuid.uuid4().hex,
                    request=RefundRequest(amount),
                    ispb="99999999",
                    delay=timedelta(seconds=5),
                )
            )

    @precondition(lambda self: self.transfers)
    @rule(data=st.data(), amount=st.integers(min_value=1, max_value=60_00))
    def refund_received(self, data: st.DataObject, amount: int) -> None:
        e2e = data.draw(st.sampled_from(self.transfers))
        with contextlib.suppress(RefundAboveRefundable, TransactionNotFound):  # not settled yet
            run(
                receive_refund(
                    self.store.unit_of_work,
                    self.clock,
                    account_id=self.account,
                    end_to_end_id=e2e,
                    amount=amount,
                )
            )

    @precondition(lambda self: self.receipts)
    @rule(data=st.data(), reason=st.sampled_from(MedReason))
    def open_case(self, data: st.DataObject, reason: MedReason) -> None:
        e2e = data.draw(st.sampled_from(self.receipts))
        try:
            case = run(
                open_med(
                    self.store.unit_of_work,
                    self.clock,
                    account_id=self.account,
                    end_to_end_id=e2e,
                    reason=reason,
                )
            )
        except (DuplicateMedCase, RefundAboveRefundable):
            return
        self.cases.append(case.id)

    @precondition(lambda self: self.cases)
    @rule(data=st.data(), accept=st.booleans())
    def decide(self, data: st.DataObject, accept: bool) -> None:
        case_id = data.draw(st.sampled_from(self.cases))
        try:
            if accept:
                run(
                    accept_med(
                        self.store.unit_of_work,
                        self.clock,
                        account_id=self.account,
                        case_id=case_id,
                        ispb="9" * 8,
                    )
                )
            else:
                run(reject_med(self.store.unit_of_work, self.clock, account_id=self.account, case_id=case_id))
        except InvalidTransition:
            assert self.store.med_cases[case_id].status is not MedStatus.CREATED

    @invariant()
    def books_balance(self) -> None:
        if hasattr(self, "store"):
            assert_books_balance(self.store)

    @invariant()
    def refunds_never_exceed_the_original(self) -> None:
        if not hasattr(self, "store"):
            return
        for transaction_id, record in self.store.transactions.items():
            refunds = [
                r
                for r in self.store.refunds.values()
                if r.original_transaction_id == transaction_id and r.status is not RefundStatus.NAO_REALIZADO
            ]
            disputed = sum(
                c.amount
                for c in self.store.med_cases.values()
                if c.original_transaction_id == transaction_id and c.status is MedStatus.CREATED
            )
            if record.type is TransactionType.PAYMENT:
                sent = sum(r.amount for r in refunds if r.kind is RefundKind.SENT)
                assert sent + disputed <= record.amount
            if record.type is TransactionType.WITHDRAW:
                assert sum(r.amount for r in refunds if r.kind is RefundKind.RECEIVED) <= record.amount


TestBooks = Books.TestCase
TestBooks.settings = settings(
    max_examples=60, stateful_step_count=30, suppress_health_check=[HealthCheck.filter_too_much]
)
