"""A payment its payee leaves unanswered is refused at its deadline (``AB03``), and a late answer
changes nothing: the SPI's clock, with a payee timeout of 2 seconds."""

from __future__ import annotations

import time
from datetime import timedelta

import asyncpg
import pytest

from pixwire.spi.model import Reason, Status, StatusReport
from tests.integration.network.spi import Inbox, answer_of, balances, funded, payment, report, send
from tests.integration.network.support import BANK_A, BANK_B, Network

TIMEOUT = timedelta(seconds=2)


@pytest.fixture(scope="module")
def payee_timeout() -> timedelta:
    return TIMEOUT


async def test_a_payment_left_unanswered_is_refused_at_its_deadline_and_a_late_answer_changes_nothing(
    network: Network, books: asyncpg.Connection
) -> None:
    await funded(books, BANK_A, 1_000)
    a = Inbox(network, BANK_A)
    await a.drain()
    before = await balances(books)
    paid = payment(500)
    report(network, await send(network, BANK_A, paid))
    started = time.monotonic()
    told: list[StatusReport] = []
    while not told and time.monotonic() - started < 15:
        told = [m for m in await a.take(wait=5) if isinstance(m, StatusReport)]
    assert [(m.end_to_end_id, m.status, m.reason) for m in told] == [
        (paid.end_to_end_id, Status.RJCT, Reason.AB03)
    ]
    assert time.monotonic() - started >= TIMEOUT.total_seconds() - 0.5
    late = report(network, await send(network, BANK_B, answer_of(paid, Status.ACSP)))
    assert (late.status, late.reason) == (Status.RJCT, Reason.AB03)
    assert await balances(books) == before
