"""Money across the whole network, against a reference model: two institutions, A and B, each a
``pixweb serve`` on one simulated PIX network (``pixnet`` in this process).

A hypothesis state machine drives random sequences of steps: a cash-in at A or at B (an outside
payer, ``POST /sandbox/payments``); a PIX from A to B's key or from B to A's, of a part of the
payer's balance, all of it, or more (refused at once, 422: nothing moves); the operator funding or
drawing on an institution's settlement account at the network (a PIX it does not cover ends in
ERROR ``AM04``, the money back at the payer); a refund of a PIX received, partial, full or above
what remains of it (400), which goes back through the SPI (NAO_REALIZADO, the money staying, when
the refunder's balance or settlement account does not cover it); and a wait until nothing is on
its way.

The model (plain Python, integer centavos) keeps each customer's available and blocked balance,
each settlement account, and the money that came in from outside the network (cash-ins, and
fundings less withdrawals). PIX and refunds are left on their way while the next steps run: the
model decides each outcome when it holds in whatever order what is on its way settles, and
otherwise waits first for everything to land, so no outcome depends on timing. What it checks:

- after every step, each balance lies within the model's bounds (each thing on its way landed or
  not yet);
- after each wait, each balance is the model's, and each PIX and refund ended as it decided;
- at the end of each example, after a wait: ``pixnet admin ledger check`` over both
  institutions' ``pixweb admin ledger check`` reports holds, and both customers' balances plus
  both settlement accounts are what came in from outside; at the end of the test, the same sum
  is what came in since the network started.

The network and its two ``pixweb serve`` start once for the test; each example carries on from
where the previous one left them, its model initialised from the real balances once nothing is on
its way. The state machine runs in a thread of its own and hands each step to the test's event
loop, where the network runs.

Bounded: ``PIX_NETWORK_MODEL_EXAMPLES`` sequences (default 5; hypothesis's first two are its
simplest, all waits and none) of at most ``PIX_NETWORK_MODEL_STEPS`` steps (default 15). A failing
sequence is reported as found, not shrunk: an example costs seconds, so shrinking takes minutes,
past the test's time limit; ``PIX_NETWORK_MODEL_SHRINK=on`` shrinks it (with ``--timeout=0``).
Each PIX looks its payee's key up in the DICT, whose anti-scan policy allows a payer 100 look-ups
(and 2 more a minute): a search of more than about 600 steps runs out of them.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from hypothesis import Phase, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.support.databases import fetch_rows
from tests.support.network import (
    World,
    all_finished,
    books_agree,
    fund_customer,
    fund_settlement,
    settlement,
    two_institutions,
)

T = TypeVar("T")

EXAMPLES = int(os.environ.get("PIX_NETWORK_MODEL_EXAMPLES", "5"))
STEPS = int(os.environ.get("PIX_NETWORK_MODEL_STEPS", "15"))
SHRINK = os.environ.get("PIX_NETWORK_MODEL_SHRINK", "off") == "on"

BANKS = ("A", "B")
AVAILABLE, BLOCKED, SETTLEMENT = "available", "blocked", "settlement"
Quantity = tuple[str, str]
"""A bank's customer's ``available`` or ``blocked`` balance, or its ``settlement`` account."""
QUANTITIES = [(bank, what) for bank in BANKS for what in (AVAILABLE, BLOCKED, SETTLEMENT)]
Outcome = Literal["settles", "returned", "unreserved"]
"""Settled at the SPI; refused there (AM04: the money back where it was reserved); a refund nothing
could be reserved for (NAO_REALIZADO, never sent)."""


def other(bank: str) -> str:
    return "B" if bank == "A" else "A"


def reais(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def amount_for(least: int, most: int, portion: str, extra: int) -> int | None:
    """An amount against what is there, which lies between ``least`` and ``most`` while things are
    on their way: a part of it, all of it, or more than it can be; None when the part or the whole
    of it is not known yet (wait, then ask again)."""
    if portion == "over" or most == 0:
        return most + 1 + extra % 1_000
    if least == 0:
        return None
    return least if portion == "full" else 1 + extra % least


@dataclass
class Flight:
    """A PIX or a refund on its way, with the outcome the model decided for it."""

    payer: str
    """The bank whose settlement account pays it (a refund's: the refunder's)."""
    amount: int
    outcome: Outcome
    left: dict[Quantity, int]
    """The changes still to come (already in the model's values)."""
    end_to_end_id: str = ""
    transaction_id: int = 0
    """A PIX's, at its payer."""
    refund_id: str = ""

    @property
    def payee(self) -> str:
        return other(self.payer)


@dataclass
class Receipt:
    """A PIX settled at its payee, which may refund it."""

    payee: str
    end_to_end_id: str
    amount: int
    returned: int = 0
    """Refunded, or on its way to be."""
    doomed: int = 0
    """Refunds on their way that will not be made, counted by the service until they end."""


@dataclass
class Books:
    """The model: every balance once what is on its way has landed, and what is on its way."""

    values: dict[Quantity, int]
    outside: int
    """The money that came in from outside the network."""
    flights: list[Flight] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    floor: dict[str, int] = field(default_factory=dict)
    ceiling: dict[str, int] = field(default_factory=dict)
    """The least and the most each settlement account held, before anything on its way settles,
    since nothing was on its way."""

    def __post_init__(self) -> None:
        self.landed()

    def bounds(self, quantity: Quantity) -> tuple[int, int]:
        """The least and the most ``quantity`` can be now, as what is on its way lands or not."""
        left = [flight.left.get(quantity, 0) for flight in self.flights]
        value = self.values[quantity]
        return value - sum(d for d in left if d > 0), value - sum(d for d in left if d < 0)

    def base(self, bank: str) -> int:
        """The settlement account with nothing on its way settled yet."""
        return self.values[bank, SETTLEMENT] - sum(f.left.get((bank, SETTLEMENT), 0) for f in self.flights)

    def _sure(self) -> bool:
        """Whether each outcome decided holds in any order: what settles from an account fits in the
        least it held, and what is refused there is more than it could ever hold meanwhile."""
        settling = [f for f in self.flights if f.outcome == "settles"]
        for bank in BANKS:
            out = sum(f.amount for f in settling if f.payer == bank)
            into = sum(f.amount for f in settling if f.payee == bank)
            refused = [f.amount for f in self.flights if f.outcome == "returned" and f.payer == bank]
            if self.floor[bank] < out or any(self.ceiling[bank] + into >= amount for amount in refused):
                return False
        return True

    def _fly(self, flight: Flight, now: dict[Quantity, int]) -> None:
        for quantity, change in now.items():
            self.values[quantity] += change
        for quantity, change in flight.left.items():
            self.values[quantity] += change
        self.flights.append(flight)

    def _spi(self, payer: str, amount: int, now: dict[Quantity, int]) -> Flight | None:
        """Sent to the SPI from ``payer``'s reservation of ``amount``: settled or returned, whichever
        is sure (None: neither is yet)."""
        payee = other(payer)
        settles: dict[Quantity, int] = {(payer, BLOCKED): -amount, (payer, SETTLEMENT): -amount}
        settles |= {(payee, SETTLEMENT): amount, (payee, AVAILABLE): amount}
        returned: dict[Quantity, int] = {(payer, BLOCKED): -amount, (payer, AVAILABLE): amount}
        for flight in (
            Flight(payer, amount, "settles", settles),
            Flight(payer, amount, "returned", returned),
        ):
            self.flights.append(flight)
            sure = self._sure()
            self.flights.pop()
            if sure:
                self._fly(flight, now)
                return flight
        return None

    def pix(self, payer: str, amount: int) -> Flight | Literal["refused"] | None:
        """A PIX of ``amount`` from ``payer``'s customer: refused at once, or on its way; None when
        whether the balance covers it, or how it settles, depends on what is on its way."""
        least, most = self.bounds((payer, AVAILABLE))
        if amount > most:
            return "refused"
        if amount > least:
            return None
        return self._spi(payer, amount, {(payer, AVAILABLE): -amount, (payer, BLOCKED): amount})

    def refund(self, receipt: Receipt, amount: int) -> Flight | Literal["refused"] | None:
        """A refund of ``amount`` of ``receipt`` by its payee: refused above what remains of it, else
        on its way (to the SPI if the refunder's balance covers it); None when that is not sure yet."""
        refunder = receipt.payee
        remains = receipt.amount - receipt.returned
        least, most = self.bounds((refunder, AVAILABLE))
        if amount > remains:
            return "refused"
        if amount > remains - receipt.doomed or least < amount <= most:
            return None
        flight: Flight | None
        if amount > most:  # nothing reserved: it ends NAO_REALIZADO where it is
            flight = Flight(refunder, amount, "unreserved", {})
            self.flights.append(flight)
        else:
            reserve = {(refunder, AVAILABLE): -amount, (refunder, BLOCKED): amount}
            flight = self._spi(refunder, amount, reserve)
        if flight is not None and flight.outcome == "settles":
            receipt.returned += amount
        elif flight is not None:
            receipt.doomed += amount
        return flight

    def fund(self, bank: str, amount: int) -> bool:
        """The operator moves ``amount`` (below zero: draws it) in ``bank``'s settlement account;
        False (nothing done) when that would change an outcome decided."""
        self.values[bank, SETTLEMENT] += amount
        before = (self.floor[bank], self.ceiling[bank])
        self.floor[bank] = min(self.floor[bank], self.base(bank))
        self.ceiling[bank] = max(self.ceiling[bank], self.base(bank))
        if self._sure():
            self.outside += amount
            return True
        self.values[bank, SETTLEMENT] -= amount
        self.floor[bank], self.ceiling[bank] = before
        return False

    def drawable(self, bank: str) -> int:
        """What the operator can surely draw: the account once all that is on its way left it."""
        return self.base(bank) - sum(
            f.amount for f in self.flights if f.outcome == "settles" and f.payer == bank
        )

    def landed(self) -> None:
        """Everything on its way has landed: the settled PIX may be refunded."""
        self.receipts += [
            Receipt(f.payee, f.end_to_end_id, f.amount)
            for f in self.flights
            if f.transaction_id and f.outcome == "settles"
        ]
        for receipt in self.receipts:
            receipt.doomed = 0
        self.flights = []
        self.floor = {bank: self.values[bank, SETTLEMENT] for bank in BANKS}
        self.ceiling = dict(self.floor)


async def balances(world: World) -> dict[Quantity, int]:
    """Every balance the model keeps, as the world has it now, in centavos."""
    held = await settlement(world)
    values = {}
    for name, bank in world.banks.items():
        available, blocked = await bank.balance()
        values[name, AVAILABLE], values[name, BLOCKED] = int(available * 100), int(blocked * 100)
        values[name, SETTLEMENT] = held[bank.ispb]
    return values


@dataclass
class Driver:
    """The world and the model side by side, a step at a time."""

    world: World
    reports: Path
    """Where the institutions' ledger reports are written."""
    came_in: int = 0
    """The money that came in from outside since the network started, every example's."""
    examples: int = 0
    steps: int = 0
    seen: Counter[str] = field(default_factory=Counter)
    """How many of each outcome the examples met (printed at the end)."""
    notes: list[str] = field(default_factory=list)
    """What a step says of itself, for hypothesis to show with a failing example."""
    books: Books = field(init=False)

    async def start(self) -> None:
        """A new example: once nothing is on its way, the model is what the world holds."""
        await all_finished(self.world)
        values = await balances(self.world)
        self.books = Books(values, outside=sum(values.values()))
        self.examples += 1

    async def _surely(self, decide: Callable[[], T | None]) -> T:
        """What ``decide`` says, after waiting for what is on its way if it cannot say yet."""
        decided = decide()
        if decided is None:
            self.notes.append("what is on its way decides this step: it waits for it first")
            self.seen["waits a step needed"] += 1
            await self.wait()
            decided = decide()
        assert decided is not None, "nothing is on its way, and yet the model cannot decide"
        return decided

    async def cash_in(self, bank: str, amount: int) -> None:
        await fund_customer(self.world.banks[bank], reais(amount))
        self.books.values[bank, AVAILABLE] += amount
        self.books.outside += amount
        self.came_in += amount

    async def pix(self, payer: str, portion: str, extra: int) -> None:
        def decide() -> tuple[int, Flight | Literal["refused"]] | None:
            amount = amount_for(*self.books.bounds((payer, AVAILABLE)), portion, extra)
            made = None if amount is None else self.books.pix(payer, amount)
            return None if amount is None or made is None else (amount, made)

        amount, made = await self._surely(decide)
        payee = self.world.banks[other(payer)]
        response = await self.world.banks[payer].send(payee.key, payee.document, amount / 100)
        if made == "refused":
            assert response.status_code == 422, response.text
            self.seen["PIX refused (422)"] += 1
            return
        assert response.status_code == 201, response.text
        made.transaction_id, made.end_to_end_id = response.json()["id"], response.json()["endToEndId"]

    async def fund(self, bank: str, amount: int) -> None:
        """The operator puts ``amount`` in ``bank``'s settlement account."""
        await self._surely(lambda: self.books.fund(bank, amount) or None)
        await fund_settlement(self.world, self.world.banks[bank].ispb, amount)
        self.came_in += amount

    async def draw(self, bank: str, portion: str, extra: int) -> None:
        """The operator draws on ``bank``'s settlement account: a part of what may surely be drawn,
        or all of it; nothing when that is nothing."""
        if self.books.drawable(bank) == 0 and self.books.flights:
            await self.wait()
        drawable = self.books.drawable(bank)
        if drawable == 0:
            self.notes.append(f"nothing to draw from {bank}'s settlement account")
            return
        amount = drawable if portion == "full" else 1 + extra % drawable
        assert self.books.fund(bank, -amount), "what may surely be drawn changes no outcome"
        await fund_settlement(self.world, self.world.banks[bank].ispb, -amount)
        self.came_in -= amount

    async def refund(self, pick: int, portion: str, extra: int, fresh: bool) -> None:
        """A refund of a PIX received (``fresh``: of one not all refunded yet, if any)."""
        open_ones = [r for r in self.books.receipts if r.returned < r.amount] if fresh else []
        receipts = open_ones or self.books.receipts
        receipt = receipts[pick % len(receipts)]

        def decide() -> tuple[int, Flight | Literal["refused"]] | None:
            remains = receipt.amount - receipt.returned
            amount = amount_for(remains - receipt.doomed, remains, portion, extra)
            made = None if amount is None else self.books.refund(receipt, amount)
            return None if amount is None or made is None else (amount, made)

        amount, made = await self._surely(decide)
        refund_id = uuid.uuid4().hex
        response = await self.world.banks[receipt.payee].refund(
            receipt.end_to_end_id, refund_id, reais(amount)
        )
        if made == "refused":
            assert response.status_code == 400, response.text
            self.seen["refunds refused (400)"] += 1
            return
        assert response.status_code == 201, response.text
        made.end_to_end_id, made.refund_id = receipt.end_to_end_id, refund_id

    async def wait(self) -> None:
        """Until nothing is on its way; then each PIX and refund ended as the model decided, and each
        balance is the model's."""
        await all_finished(self.world)
        problems = [problem for flight in self.books.flights for problem in await self._ended(flight)]
        self.books.landed()
        await self.within_bounds(problems)

    async def _ended(self, flight: Flight) -> list[str]:
        settled = flight.outcome == "settles"
        kind = "refunds" if not flight.transaction_id else "PIX"
        self.seen[f"{kind} {'settled' if settled else 'not settled: ' + flight.outcome}"] += 1
        if not flight.transaction_id:  # a refund
            refunder = self.world.banks[flight.payer]
            status = await refunder.refund_status(flight.end_to_end_id, flight.refund_id)
            expected = "DEVOLVIDO" if settled else "NAO_REALIZADO"
            what = f"{flight.payer}'s refund of {flight.amount} of {flight.end_to_end_id}"
            return [] if status == expected else [f"{what}: {status}, the model says {expected}"]
        sent = await fetch_rows(
            self.world.banks[flight.payer].database,
            "SELECT state, error_code FROM transfers WHERE transaction_id = $1",
            flight.transaction_id,
        )
        taken = await fetch_rows(
            self.world.banks[flight.payee].database,
            "SELECT state FROM network_receipts WHERE end_to_end_id = $1",
            flight.end_to_end_id,
        )
        ended = ([tuple(row) for row in sent], [row["state"] for row in taken])
        decided = (
            [("COMPLETED", None) if settled else ("ERROR", "AM04")],
            ["CREDITED" if settled else "REJECTED"],
        )
        what = f"PIX {flight.end_to_end_id} of {flight.amount} from {flight.payer}"
        return (
            []
            if ended == decided
            else [f"{what} (at its payer, at its payee): {ended}, the model says {decided}"]
        )

    async def within_bounds(self, problems: list[str] | None = None) -> None:
        """Each balance within the model's bounds (exactly the model's when nothing is on its way)."""
        problems = problems or []
        real = await balances(self.world)
        for quantity in QUANTITIES:
            least, most = self.books.bounds(quantity)
            if not least <= real[quantity] <= most:
                bank, what = quantity
                problems.append(f"{bank}'s {what}: {real[quantity]}, the model says {least} to {most}")
        assert not problems, "\n".join(problems)

    async def finish(self) -> None:
        """The end of an example: nothing on its way, every balance the model's, money conserved
        (both customers and both settlement accounts hold what came in from outside) and the
        network's ledger check over both institutions' reports holds."""
        await self.wait()
        total = sum((await balances(self.world)).values())
        assert total == self.books.outside, f"the network holds {total}; {self.books.outside} came in"
        await books_agree(self.world, self.reports)


banks = st.sampled_from(BANKS)
amounts = st.integers(min_value=1, max_value=300_00)
funding = st.integers(min_value=1, max_value=1_000_00)
funds_or_none = st.one_of(st.just(0), funding)
picks = st.integers(min_value=0, max_value=1_000)
spending = st.sampled_from(["part", "part", "part", "full", "over"])
refunding = st.sampled_from(["part", "part", "full", "over"])


class NetworkMoney(RuleBasedStateMachine):
    """One example: the network and the model, step by step."""

    def __init__(self, driver: Driver, run: Callable[[Awaitable[None]], None]) -> None:
        super().__init__()
        self.driver, self.on_loop = driver, run
        self.started = self.failed = False

    def run(self, step: Awaitable[None]) -> None:
        try:
            self.on_loop(step)
        except BaseException:
            self.failed = True  # the example's own checks at its end would only repeat the failure
            raise
        finally:
            for said in self.driver.notes:
                note(said)
            self.driver.notes.clear()

    def step(self, step: Awaitable[None]) -> None:
        self.driver.steps += 1
        self.run(step)

    @initialize(cash=st.tuples(amounts, amounts), funds=st.tuples(funds_or_none, funds_or_none))
    def start(self, cash: tuple[int, int], funds: tuple[int, int]) -> None:
        """The model read from the world; then money comes in at both customers, and the operator
        funds each settlement account, or not."""
        self.run(self.driver.start())
        self.started = True
        for bank, amount, funded in zip(BANKS, cash, funds, strict=True):
            self.run(self.driver.cash_in(bank, amount))
            if funded:
                self.run(self.driver.fund(bank, funded))

    @rule(bank=banks, amount=amounts)
    def cash_in(self, bank: str, amount: int) -> None:
        self.step(self.driver.cash_in(bank, amount))

    @rule(portion=spending, extra=picks)
    def pix_from_a(self, portion: str, extra: int) -> None:
        self.step(self.driver.pix("A", portion, extra))

    @rule(portion=spending, extra=picks)
    def pix_from_b(self, portion: str, extra: int) -> None:
        self.step(self.driver.pix("B", portion, extra))

    @rule(bank=banks, amount=funding)
    def fund(self, bank: str, amount: int) -> None:
        self.step(self.driver.fund(bank, amount))

    @rule(bank=banks, portion=st.sampled_from(["part", "part", "full"]), extra=picks)
    def draw(self, bank: str, portion: str, extra: int) -> None:
        self.step(self.driver.draw(bank, portion, extra))

    @precondition(lambda self: self.driver.books.receipts)
    @rule(pick=picks, portion=refunding, extra=picks, fresh=st.booleans())
    def refund(self, pick: int, portion: str, extra: int, fresh: bool) -> None:
        self.step(self.driver.refund(pick, portion, extra, fresh))

    @rule()
    def wait(self) -> None:
        self.step(self.driver.wait())

    @invariant()
    def within_bounds(self) -> None:
        self.run(self.driver.within_bounds())

    def teardown(self) -> None:
        if self.started and not self.failed:
            self.run(self.driver.finish())


async def test_money_across_the_network_is_where_the_model_says(database_server: str, tmp_path: Path) -> None:
    phases = list(Phase) if SHRINK else [Phase.explicit, Phase.reuse, Phase.generate]
    chosen = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, phases=phases)
    reports = tmp_path / "books"
    reports.mkdir()
    loop = asyncio.get_running_loop()

    def run(step: Awaitable[None]) -> None:
        async def wrapped() -> None:
            await step

        asyncio.run_coroutine_threadsafe(wrapped(), loop).result()

    async with two_institutions(database_server, tmp_path) as world:
        driver = Driver(world, reports)

        class Example(NetworkMoney):
            def __init__(self) -> None:
                super().__init__(driver, run)

        await asyncio.to_thread(run_state_machine_as_test, Example, settings=chosen)
        total = sum((await balances(world)).values())
        assert total == driver.came_in, (
            f"the network holds {total}; {driver.came_in} came in since it started"
        )
    print(f"{driver.examples} examples, {driver.steps} steps: {dict(sorted(driver.seen.items()))}")
