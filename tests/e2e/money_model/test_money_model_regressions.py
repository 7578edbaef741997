"""The sequences the model-based test (test_money_model.py) found bugs with, replayed step by
step: the same driver, the same reference model, the same comparison after every step.

Each test is named after the bug. The state machine's own failing programs are longer and
depend on its rules' order; these are the steps that matter, written out.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from pixinfra.postgres.pool import Database
from tests.e2e.money_model.money_driver import Driver
from tests.e2e.money_model.money_service import model_service

A, B = 0, 1


@pytest.fixture
async def driver(database: Database, tmp_path: Path) -> AsyncIterator[Driver]:
    async with model_service(database, tmp_path) as service:
        yield await Driver.start(service)


async def step(driver: Driver, operation: Awaitable[None]) -> None:
    """One step, then the whole comparison, as the state machine does."""
    await operation
    await driver.check()


async def _a_pays_b(driver: Driver, amount: int) -> None:
    """A receives from outside, then sends ``amount`` to B's key; it settles."""
    await step(driver, driver.receive(A, 100_00))
    await step(driver, driver.transfer(A, B, amount, high=True, expiration=600))
    await step(driver, driver.run_workers())


async def test_a_refund_of_a_transfer_between_two_accounts_returns_it_to_the_payer(driver: Driver) -> None:
    # Found as: B refunds (DEVOLVIDO) what A sent it; B is debited, A never credited, and the
    # money was booked as gone to the outside world (the bounded run, --hypothesis-seed=3).
    await _a_pays_b(driver, 10_00)
    [receipt] = [r for r in driver.model.receipts if r.account == B]
    await step(driver, driver.refund(receipt, 4_00))
    await step(driver, driver.advance(driver.service.settings.norm_delay_seconds))
    await step(driver, driver.run_workers())
    await step(driver, driver.refund(receipt, 6_00))
    await step(driver, driver.advance(driver.service.settings.norm_delay_seconds))
    await step(driver, driver.run_workers())
    assert driver.model.accounts[A].available == 100_00


async def test_an_accepted_med_of_a_transfer_between_two_accounts_returns_it_to_the_payer(
    driver: Driver,
) -> None:
    # Found as: a MED accepted against B's receipt of A's transfer sends the blocked amount
    # out of the service instead of back to A (the bounded run, --hypothesis-seed=1 and 2).
    await _a_pays_b(driver, 25_00)
    [receipt] = [r for r in driver.model.receipts if r.account == B]
    await step(driver, driver.open_case(receipt, "MED_FRAUDE"))
    [case] = driver.model.cases
    await step(driver, driver.decide_case(case, accept=True))
    assert driver.model.accounts[A].available == 100_00


async def test_a_sandbox_refund_of_a_transfer_to_an_account_of_ours_is_refused(driver: Driver) -> None:
    # Found as: POST /sandbox/refunds of A's transfer to B credited A from outside while B
    # kept the money (money made from nothing). The bounded run found it with every seed tried
    # (--hypothesis-seed=1, 2, 3); its shortest program: A funded, transfer A -> B, the clock
    # 2 s on and a worker round, then this refund.
    await _a_pays_b(driver, 10_00)
    [transfer] = driver.model.transfers
    await step(driver, driver.outside_refund(transfer, 5_00))
    await step(driver, driver.outside_refund(transfer, 10_00))
    assert driver.model.accounts[A].available == 90_00


async def test_the_refund_window_of_a_paid_cash_in_charge_counts_from_its_payment(driver: Driver) -> None:
    # Found as: a cash-in charge (whose record is written PENDING when the charge is created)
    # paid a minute later could not be refunded 89 days after its payment: the service counted
    # the window from the charge's creation (the model-based run, a seed of the default profile).
    await step(driver, driver.charge(A, 5_00, 300, cash_in=True))
    await step(driver, driver.advance(60))
    [charge] = driver.model.charges
    await step(driver, driver.pay(charge))
    [receipt] = [r for r in driver.model.receipts if r.account == A]
    await step(driver, driver.advance(89 * 24 * 60 * 60))
    await step(driver, driver.refund(receipt, 5_00))
    assert [r.amount for r in receipt.refunds] == [5_00]
    await step(driver, driver.advance(1))
    await step(driver, driver.refund(receipt, 1))
    assert len(receipt.refunds) == 1
