"""A stateful property: random receipts, transfers, refunds and MED actions on one account,
each outcome predicted by a small model and asserted both ways.

The model keeps, per receipt, its amount, its refunds (amount, whether reserved, when due) and
its open MED case; per transfer, its amount and what was refunded to us. From these it decides
whether a refund or a case is allowed before the use case runs: an allowed one must succeed
with the predicted amounts and reservation, a refused one must raise ``RefundAboveRefundable``
(nothing is swallowed). Rules that ask for exactly the remainder, or one centavo more, make an
off-by-one in the refundable remainder fail as surely as refusing every refund does.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pixcore.clock import ManualClock
from pixcore.errors import (
    DuplicateMedCase,
    InsufficientFunds,
    InvalidTransition,
    RefundAboveRefundable,
    TransactionNotFound,
)
from pixcore.keys import parse_pix_key
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.refunds.med_service import accept_med, open_med, reject_med
from pixcore.refunds.refund_service import process_due_refunds, receive_refund, request_refund
from pixcore.refunds.rules import RefundKind, RefundRequest, RefundStatus
from pixcore.testing import InMemoryStore, PlainHasher
from pixcore.transfers.receipt_service import receive_payment
from tests.unit.transfer_world import PAYER, World, assert_books_balance, make_world

T = TypeVar("T")
DELAY = timedelta(seconds=5)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@dataclass
class ModelRefund:
    amount: int
    reserved: bool
    due: datetime
    finished: bool = False

    @property
    def status(self) -> RefundStatus:
        if not self.finished:
            return RefundStatus.EM_PROCESSAMENTO
        return RefundStatus.DEVOLVIDO if self.reserved else RefundStatus.NAO_REALIZADO


@dataclass
class ModelReceipt:
    transaction_id: int
    amount: int
    refunds: dict[str, ModelRefund] = field(default_factory=dict)
    open_case: int | None = None
    disputed: int = 0

    def remaining(self) -> int:
        taken = sum(r.amount for r in self.refunds.values() if r.status is not RefundStatus.NAO_REALIZADO)
        return self.amount - taken - (self.disputed if self.open_case is not None else 0)


@dataclass
class ModelTransfer:
    transaction_id: int
    amount: int
    refunded: int = 0


@dataclass
class ModelCase:
    receipt: str
    amount: int
    blocked: int
    status: MedStatus = MedStatus.CREATED


class Books(RuleBasedStateMachine):
    """One account (Maria, of the transfer world) receives, sends, refunds and is disputed, at random."""

    @initialize()
    def start(self) -> None:
        self.clock = ManualClock()
        self.store = InMemoryStore(clock=self.clock)
        self.world: World = run(make_world(self.store, self.clock, PlainHasher()))
        self.account = self.world.sender.id
        self.receipts: dict[str, ModelReceipt] = {}
        self.transfers: dict[str, ModelTransfer] = {}
        self.cases: dict[int, ModelCase] = {}

    def _available(self) -> int:
        return self.store.balances[self.account].available

    # -- money in and out ---------------------------------------------------------------------

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
        self.receipts[receipt.end_to_end_id] = ModelReceipt(receipt.transaction_id, amount)

    @rule(amount=st.integers(min_value=1, max_value=60_00))
    def send(self, amount: int) -> None:
        if amount > self._available():
            with pytest.raises(InsufficientFunds):
                run(self.world.send(amount=Decimal(amount) / 100))
            return
        created = run(self.world.send(amount=Decimal(amount) / 100))
        self.transfers[created.transfer.end_to_end_id] = ModelTransfer(
            created.transfer.transaction_id, amount
        )

    # Around the refund delay (5 s) and the NORM settlement delay (30 s), where off-by-ones live.
    @rule(seconds=st.sampled_from([0, 1, 4, 5, 6, 29, 30, 31, 60]))
    def time_passes(self, seconds: int) -> None:
        self.clock.advance(seconds)
        run(self.world.settle_due())
        run(process_due_refunds(self.store.unit_of_work, self.clock))
        for receipt in self.receipts.values():
            for refund in receipt.refunds.values():
                refund.finished = refund.finished or refund.due <= self.clock.now()

    # -- refunds of a receipt -------------------------------------------------------------------

    def _request_refund(self, e2e: str, amount: int) -> None:
        receipt = self.receipts[e2e]
        allowed, available = amount <= receipt.remaining(), self._available()
        refund_id = uuid.uuid4().hex
        requested = request_refund(
            self.store.unit_of_work,
            self.clock,
            account_id=self.account,
            end_to_end_id=e2e,
            refund_id=refund_id,
            request=RefundRequest(amount),
            ispb="99999999",
            delay=DELAY,
        )
        if not allowed:
            with pytest.raises(RefundAboveRefundable):
                run(requested)
            return
        result = run(requested)
        assert result.created
        assert (result.refund.amount, result.refund.reserved) == (amount, available >= amount)
        receipt.refunds[refund_id] = ModelRefund(amount, available >= amount, self.clock.now() + DELAY)

    @precondition(lambda self: self.receipts)
    @rule(data=st.data(), amount=st.integers(min_value=1, max_value=60_00))
    def refund(self, data: st.DataObject, amount: int) -> None:
        self._request_refund(data.draw(st.sampled_from(list(self.receipts))), amount)

    @precondition(lambda self: self.receipts)
    @rule(data=st.data(), extra=st.sampled_from([0, 1]))
    def refund_the_rest(self, data: st.DataObject, extra: int) -> None:
        """Exactly what remains (allowed), or one centavo more (refused)."""
        e2e = data.draw(st.sampled_from(list(self.receipts)))
        self._request_refund(e2e, max(1, self.receipts[e2e].remaining() + extra))

    # -- refunds of a transfer ------------------------------------------------------------------

    def _receive_refund(self, e2e: str, amount: int) -> None:
        transfer = self.transfers[e2e]
        received = receive_refund(
            self.store.unit_of_work,
            self.clock,
            account_id=self.account,
            end_to_end_id=e2e,
            amount=amount,
        )
        if self.store.transactions[transfer.transaction_id].status is not TransactionStatus.CONFIRMED:
            with pytest.raises(TransactionNotFound):  # not settled yet
                run(received)
        elif amount > transfer.amount - transfer.refunded:
            with pytest.raises(RefundAboveRefundable):
                run(received)
        else:
            refund = run(received)
            assert (refund.amount, refund.status) == (amount, RefundStatus.DEVOLVIDO)
            transfer.refunded += amount

    @precondition(lambda self: self.transfers)
    @rule(data=st.data(), amount=st.integers(min_value=1, max_value=60_00))
    def refund_received(self, data: st.DataObject, amount: int) -> None:
        self._receive_refund(data.draw(st.sampled_from(list(self.transfers))), amount)

    @precondition(lambda self: self.transfers)
    @rule(data=st.data(), extra=st.sampled_from([0, 1]))
    def rest_refunded_to_us(self, data: st.DataObject, extra: int) -> None:
        e2e = data.draw(st.sampled_from(list(self.transfers)))
        transfer = self.transfers[e2e]
        self._receive_refund(e2e, max(1, transfer.amount - transfer.refunded + extra))

    # -- MED --------------------------------------------------------------------------------------

    @precondition(lambda self: self.receipts)
    @rule(data=st.data(), reason=st.sampled_from(MedReason))
    def open_case(self, data: st.DataObject, reason: MedReason) -> None:
        e2e = data.draw(st.sampled_from(list(self.receipts)))
        receipt = self.receipts[e2e]
        remaining, available = receipt.remaining(), self._available()
        opened = open_med(
            self.store.unit_of_work, self.clock, account_id=self.account, end_to_end_id=e2e, reason=reason
        )
        if receipt.open_case is not None:
            with pytest.raises(DuplicateMedCase):
                run(opened)
            return
        if remaining <= 0:
            with pytest.raises(RefundAboveRefundable):
                run(opened)
            return
        case = run(opened)
        assert (case.amount, case.blocked) == (remaining, min(remaining, available))
        receipt.open_case, receipt.disputed = case.id, remaining
        self.cases[case.id] = ModelCase(e2e, case.amount, case.blocked)

    @precondition(lambda self: self.cases)
    @rule(data=st.data(), accept=st.booleans())
    def decide(self, data: st.DataObject, accept: bool) -> None:
        case_id = data.draw(st.sampled_from(sorted(self.cases)))
        case = self.cases[case_id]
        if accept:
            decided = accept_med(
                self.store.unit_of_work, self.clock, account_id=self.account, case_id=case_id, ispb="9" * 8
            )
        else:
            decided = reject_med(
                self.store.unit_of_work, self.clock, account_id=self.account, case_id=case_id
            )
        if case.status is not MedStatus.CREATED:
            with pytest.raises(InvalidTransition):
                run(decided)
            return
        outcome = run(decided)
        receipt = self.receipts[case.receipt]
        receipt.open_case = None
        case.status = MedStatus.ACCEPTED if accept else MedStatus.REJECTED
        assert outcome.case.status is case.status
        if not accept:
            assert outcome.refund is None
            return
        refund = ModelRefund(case.blocked or case.amount, case.blocked > 0, self.clock.now(), finished=True)
        assert outcome.refund is not None
        assert (outcome.refund.amount, outcome.refund.status) == (refund.amount, refund.status)
        receipt.refunds[outcome.refund.refund_id] = refund

    # -- what the store must agree with -----------------------------------------------------------

    @invariant()
    def books_balance(self) -> None:
        if hasattr(self, "store"):
            assert_books_balance(self.store)

    @invariant()
    def refunds_and_cases_are_as_the_model_says(self) -> None:
        if not hasattr(self, "store"):
            return
        by_receipt = {receipt.transaction_id: receipt for receipt in self.receipts.values()}
        sent = {
            (r.original_transaction_id, r.refund_id): (r.amount, r.status)
            for r in self.store.refunds.values()
            if r.kind is RefundKind.SENT
        }
        assert sent == {
            (receipt.transaction_id, refund_id): (refund.amount, refund.status)
            for receipt in by_receipt.values()
            for refund_id, refund in receipt.refunds.items()
        }
        received = {}
        for r in self.store.refunds.values():
            if r.kind is RefundKind.RECEIVED:
                received[r.original_transaction_id] = received.get(r.original_transaction_id, 0) + r.amount
        assert received == {t.transaction_id: t.refunded for t in self.transfers.values() if t.refunded}
        cases = {c.id: (c.amount, c.blocked, c.status) for c in self.store.med_cases.values()}
        assert cases == {i: (c.amount, c.blocked, c.status) for i, c in self.cases.items()}

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
TestBooks.settings = settings(max_examples=60, stateful_step_count=30)
