"""Pix Automático's steps of the model-based test in a fixed order, so that every run sees a
recurring debit paid, one failing for insufficient funds and a refund of a recurring receipt,
whatever sequences hypothesis draws: the same driver, model and comparison after every step."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from pixinfra.postgres.pool import Database
from tests.e2e.money_model.money_driver import Driver
from tests.e2e.money_model.money_service import model_service

A, B = 0, 1
DAY = 86_400


@pytest.fixture
async def driver(database: Database, tmp_path: Path) -> AsyncIterator[Driver]:
    async with model_service(database, tmp_path) as service:
        yield await Driver.start(service)


async def step(driver: Driver, operation: Awaitable[None]) -> None:
    """One step, then the whole comparison, as the state machine does."""
    await operation
    await driver.check()


async def test_a_covered_debit_comes_in_and_a_short_one_moves_nothing(driver: Driver) -> None:
    await step(driver, driver.receive(A, 10_00))
    await step(driver, driver.recurring_charge(A, 40_00, ahead=1))
    await step(driver, driver.recurring_charge(B, 30_00, ahead=1))
    await step(driver, driver.fund_payer(50_00))  # covers the first due, not both
    await step(driver, driver.run_workers())  # scheduled, not yet due
    assert [c.status for c in driver.model.recurring] == ["ATIVA", "ATIVA"]
    await step(driver, driver.advance(DAY))
    await step(driver, driver.run_workers())
    paid, short = driver.model.recurring
    assert (paid.status, short.status) == ("CONCLUIDA", "EXPIRADA")
    assert driver.model.accounts[A].available == 50_00
    assert driver.model.accounts[B].available == 0
    assert driver.model.payer_balance == 10_00
    assert driver.model.outside == -50_00


async def test_a_recurring_receipt_is_refunded_as_any_receipt(driver: Driver) -> None:
    await step(driver, driver.fund_payer(0))
    await step(driver, driver.recurring_charge(A, 25_00, ahead=0))
    await step(driver, driver.fund_payer(25_00))
    await step(driver, driver.run_workers())
    [charge] = driver.model.recurring
    assert charge.receipt is not None
    assert charge.receipt.e2e
    await step(driver, driver.refund(charge.receipt, 5_00))
    await step(driver, driver.advance(driver.service.settings.norm_delay_seconds))
    await step(driver, driver.run_workers())
    assert driver.model.accounts[A].available == 20_00
    # The refund leaves the service for the payer's institution; the sandbox does not credit
    # the payer's simulated balance back (no documented rule says it should).
    assert driver.model.payer_balance == 0
    assert driver.model.outside == -20_00
