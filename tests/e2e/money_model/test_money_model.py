"""Money across the whole service, against a reference model.

A hypothesis state machine drives random sequences of operations over three fresh
accounts of the service and the sandbox's outside world: receipts, transfers between
our accounts and to outside keys that settle or reject (with replays of their
idempotency keys), charges and cash-in paid, partial, full and excessive refunds,
MED cases opened, accepted and rejected, refunds from outside receivers, Pix
Automático's recurring charges debited from a sandbox payer whose balance covers them
or not, clock moves and runs of the settlement workers. After every step it compares each balance, record
count and status with ``tests/money_model/`` and checks the ledger and the
conservation of money (``tests/e2e/money_model/money_compare.py``).

The real app runs on the test's event loop; the state machine, which hypothesis runs
synchronously, runs in a thread of its own and hands each step to that loop.

Bounded by default (``PIX_MODEL_EXAMPLES`` sequences of at most ``PIX_MODEL_STEPS``
steps: 30 and 40); set them higher for a longer search (docs/testing.md). The service takes
``PIX_TRANSFER_BATCH_SIZE`` and ``PIX_TRANSFER_BATCH_WINDOW_MS`` from the environment: grouped
(group commit, the default, which also settles due transfers in groups of that size) or
``PIX_TRANSFER_BATCH_SIZE=1`` for one transaction per request and per settlement.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from pixinfra.postgres.pool import Database
from tests.e2e.money_model.money_driver import ACCOUNTS, Driver
from tests.e2e.money_model.money_service import ModelService, model_service
from tests.money_model import DueTerms, Receipt, payer_day

T = TypeVar("T")

EXAMPLES = int(os.environ.get("PIX_MODEL_EXAMPLES", "30"))
STEPS = int(os.environ.get("PIX_MODEL_STEPS", "40"))

accounts = st.integers(min_value=0, max_value=ACCOUNTS - 1)
amounts = st.integers(min_value=1, max_value=300_00)
picks = st.integers(min_value=0, max_value=1_000)
# Moves that cross each rule's edge: settlement delay, deadlines, token and charge expiries,
# the refund window (89 days, inclusive).
clock_moves = st.sampled_from([0, 0, 1, 2, 2, 10, 60, 600, 3_600, 86_400, 30 * 86_400, 89 * 86_400])
portions = st.sampled_from(["full", "part", "part", "over"])
reasons = st.sampled_from(["MED_FRAUDE", "MED_OPERACIONAL"])
spending = st.sampled_from(["part", "part", "part", "full", "over"])  # mostly within the balance


def portion_of(remaining: int, portion: str, extra: int) -> int:
    """An amount against what remains: all of it, a part, or more (at least 1 centavo)."""
    if remaining <= 0:
        return 1 + extra % 1_000
    if portion == "full":
        return remaining
    if portion == "part":
        return 1 + extra % max(remaining - 1, 1)
    return remaining + 1 + extra % 1_000


def _preferring(items: list[T], wanted: Callable[[T], bool], *, prefer: bool) -> list[T]:
    chosen = [item for item in items if wanted(item)] if prefer else []
    return chosen or items


class MoneyModel(RuleBasedStateMachine):
    """One example: the service and the model, step by step."""

    def __init__(self, service: ModelService) -> None:
        super().__init__()
        self.service = service
        self.driver: Driver

    @initialize(funds=st.lists(amounts, min_size=ACCOUNTS, max_size=ACCOUNTS))
    def open_accounts(self, funds: list[int]) -> None:
        self.driver = self.service.run(Driver.start(self.service))
        for account, amount in enumerate(funds):
            self.service.run(self.driver.receive(account, amount))

    def _receipt(self, pick: int, *, ours: bool, fresh: bool) -> Receipt:
        """A receipt; ``fresh``: one that may still be refunded or disputed, if any; ``ours``:
        one paid by another account of ours, if any."""
        model = self.driver.model
        receipts = _preferring(model.receipts, lambda r: model.refundable(r) > 0, prefer=fresh)
        receipts = _preferring(receipts, lambda r: r.payer is not None, prefer=ours)
        return receipts[pick % len(receipts)]

    @rule(account=accounts, amount=amounts)
    def receive(self, account: int, amount: int) -> None:
        self.service.run(self.driver.receive(account, amount))

    @rule(
        sender=accounts,
        to=st.integers(min_value=0, max_value=ACCOUNTS + 1),
        portion=spending,
        extra=picks,
        high=st.booleans(),
        expiration=st.sampled_from([1, 60, 600, 10_800, 10_800]),
    )
    def transfer(  # noqa: PLR0917 - hypothesis passes each drawn value by name
        self, sender: int, to: int, portion: str, extra: int, high: bool, expiration: int
    ) -> None:
        amount = portion_of(self.driver.model.accounts[sender].available, portion, extra)
        self.service.run(self.driver.transfer(sender, to, amount, high=high, expiration=expiration))

    @rule(
        sender=accounts,
        to=st.integers(min_value=0, max_value=ACCOUNTS + 1),
        portion=spending,
        extra=picks,
        copies=st.integers(min_value=2, max_value=6),
        high=st.booleans(),
    )
    def transfer_burst(  # noqa: PLR0917 - hypothesis passes each drawn value by name
        self, sender: int, to: int, portion: str, extra: int, copies: int, high: bool
    ) -> None:
        """A client's concurrent retries of one transfer (one idempotency key): one answer, one move."""
        amount = portion_of(self.driver.model.accounts[sender].available, portion, extra)
        self.service.run(self.driver.transfer_burst(sender, to, amount, copies, high=high, expiration=600))

    @precondition(lambda self: any(t.id for t in self.driver.model.transfers))
    @rule(pick=picks, same=st.booleans())
    def replay_transfer(self, pick: int, same: bool) -> None:
        made = [t for t in self.driver.model.transfers if t.id]
        self.service.run(self.driver.replay_transfer(made[pick % len(made)], same=same))

    @rule(
        account=accounts,
        amount=amounts,
        expiration=st.sampled_from([300, 3_600, 86_400]),
        cash_in=st.booleans(),
    )
    def charge(self, account: int, amount: int, expiration: int, cash_in: bool) -> None:
        self.service.run(self.driver.charge(account, amount, expiration, cash_in=cash_in))

    @rule(
        account=accounts,
        amount=amounts,
        ahead=st.sampled_from([0, 1, 3, 7]),
        days_after=st.sampled_from([0, 1, 30]),
        fine=st.sampled_from([0, 1, 250]),
        interest=st.sampled_from([0, 1, 33]),
    )
    def due_charge(  # noqa: PLR0917 - hypothesis passes each drawn value by name
        self, account: int, amount: int, ahead: int, days_after: int, fine: int, interest: int
    ) -> None:
        """``PUT /cobv``: due ``ahead`` days after the payer's today (the model's own amount due)."""
        due = payer_day(self.driver.model.now) + timedelta(days=ahead)
        terms = DueTerms(amount, due, days_after, fine, interest)
        self.service.run(self.driver.due_charge(account, terms))

    @precondition(lambda self: self.driver.model.charges)
    @rule(pick=picks, active=st.booleans())
    def pay(self, pick: int, active: bool) -> None:
        """``active``: one of the charges still ATIVA if any (else any charge, paid or not)."""
        charges = _preferring(self.driver.model.charges, lambda c: c.status == "ATIVA", prefer=active)
        self.service.run(self.driver.pay(charges[pick % len(charges)]))

    @precondition(lambda self: self.driver.model.receipts)
    @rule(pick=picks, portion=portions, extra=picks, ours=st.booleans(), fresh=st.booleans())
    def refund(self, pick: int, portion: str, extra: int, ours: bool, fresh: bool) -> None:
        receipt = self._receipt(pick, ours=ours, fresh=fresh)
        amount = portion_of(self.driver.model.refundable(receipt), portion, extra)
        self.service.run(self.driver.refund(receipt, amount))

    @precondition(lambda self: any(not f.refund_id.startswith("MED") for f in self.driver.model.refunds()))
    @rule(pick=picks, same=st.booleans())
    def repeat_refund(self, pick: int, same: bool) -> None:
        asked = [f for f in self.driver.model.refunds() if not f.refund_id.startswith("MED")]
        self.service.run(self.driver.repeat_refund(asked[pick % len(asked)], same=same))

    @precondition(lambda self: self.driver.model.receipts)
    @rule(pick=picks, reason=reasons, ours=st.booleans(), fresh=st.booleans())
    def open_case(self, pick: int, reason: str, ours: bool, fresh: bool) -> None:
        receipt = self._receipt(pick, ours=ours, fresh=fresh)
        self.service.run(self.driver.open_case(receipt, reason))

    @precondition(lambda self: self.driver.model.cases)
    @rule(pick=picks, accept=st.booleans(), open_one=st.booleans())
    def decide_case(self, pick: int, accept: bool, open_one: bool) -> None:
        cases = _preferring(self.driver.model.cases, lambda c: c.status == "CREATED", prefer=open_one)
        self.service.run(self.driver.decide_case(cases[pick % len(cases)], accept=accept))

    @precondition(
        lambda self: any(t.state == "COMPLETED" or t.receiver is None for t in self.driver.model.transfers)
    )
    @rule(pick=picks, portion=portions, extra=picks)
    def outside_refund(self, pick: int, portion: str, extra: int) -> None:
        # A transfer to one of our accounts that did not settle is left out: whether the
        # service says 404 (not settled) or 422 (receiver of ours) first is not a money rule.
        eligible = [t for t in self.driver.model.transfers if t.state == "COMPLETED" or t.receiver is None]
        transfer = eligible[pick % len(eligible)]
        amount = portion_of(transfer.amount - transfer.returned, portion, extra)
        self.service.run(self.driver.outside_refund(transfer, amount))

    @rule(account=accounts, amount=amounts, ahead=st.sampled_from([0, 0, 1, 3]))
    def recurring_charge(self, account: int, amount: int, ahead: int) -> None:
        """A recurrence approved by the example's payer and its charge, due ``ahead`` days on."""
        self.service.run(self.driver.recurring_charge(account, amount, ahead))

    @precondition(lambda self: self.driver.model.recurring)
    @rule(portion=spending, extra=picks)
    def fund_payer(self, portion: str, extra: int) -> None:
        """The payer's balance set against what their open charges add up to: mostly short of
        it (some debits fail for insufficient funds), sometimes all of it or more."""
        model = self.driver.model
        owed = sum(c.amount for c in model.recurring if c.status in {"CRIADA", "ATIVA"})
        self.service.run(self.driver.fund_payer(portion_of(owed, portion, extra)))

    @rule(seconds=clock_moves, workers=st.booleans())
    def time_passes(self, seconds: int, workers: bool) -> None:
        """The clock moves (0: it does not), then a round of the workers runs, or not: so that
        the states in between (due but not settled, expired but not swept) are seen too."""
        if seconds:
            self.service.run(self.driver.advance(seconds))
        if workers:
            self.service.run(self.driver.run_workers())

    @invariant()
    def the_service_is_the_model(self) -> None:
        self.service.run(self.driver.check())


async def test_money_is_where_the_model_says_after_every_step(database: Database, tmp_path: Path) -> None:
    chosen = settings(max_examples=EXAMPLES, stateful_step_count=STEPS)
    async with model_service(database, tmp_path) as service:
        await asyncio.to_thread(run_state_machine_as_test, lambda: MoneyModel(service), settings=chosen)
