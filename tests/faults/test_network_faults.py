"""The network's faults: ``pixnet serve`` killed (SIGKILL) while PIX cross from one institution to
the other, and an institution down while the other pays it.

What must hold: every PIX ends settled or returned, never lost and never doubled (the payer's
transfers are COMPLETED or ERROR; each COMPLETED one credited once at the payee; the settlement
accounts moved by exactly the completed ones), and the books of both institutions and of the
network agree afterwards.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.databases import fetch_rows
from tests.support.network import (
    World,
    books_agree,
    fund_customer,
    fund_settlement,
    settlement,
    two_institutions,
)
from tests.support.processes import stop_process

pytestmark = pytest.mark.faults


@pytest.fixture
async def world(database_server: str, tmp_path: Path) -> AsyncIterator[World]:
    async with two_institutions(database_server, tmp_path, network_process=True, payee_timeout=3) as made:
        yield made


async def _states(world: World, ids: list[int]) -> dict[int, tuple[str, str | None]]:
    rows = await fetch_rows(
        world.banks["A"].database,
        "SELECT transaction_id, state, error_code FROM transfers WHERE transaction_id = ANY($1::bigint[])",
        ids,
    )
    return {row["transaction_id"]: (row["state"], row["error_code"]) for row in rows}


async def test_the_network_killed_mid_load_loses_and_doubles_no_pix(world: World, tmp_path: Path) -> None:
    a, b = world.banks["A"], world.banks["B"]
    assert world.network is not None
    await fund_settlement(world, a.ispb, 1_000_000)
    await fund_customer(a, "1000.00")
    before_a, before_b, held = await a.balance(), await b.balance(), await settlement(world)

    sent: list[int] = []
    refused = 0

    async def pay(count: int) -> None:
        nonlocal refused
        while len(sent) < count:
            try:
                created = await a.pay(b.key, b.document, 1.0)
            except AssertionError:  # refused while the network is down (503): nothing reserved
                refused += 1
                await asyncio.sleep(0.1)
                continue
            sent.append(created["id"])

    load = asyncio.create_task(pay(50))
    while len(sent) < 20:  # noqa: ASYNC110 - waits for the load to be under way
        await asyncio.sleep(0.05)
    await world.network.kill()
    killed_at = time.monotonic()
    await asyncio.sleep(2)  # payments are sent meanwhile: they wait for the network
    await world.network.start()
    down = time.monotonic() - killed_at
    await load
    assert len(sent) == 50

    async with asyncio.timeout(90):  # every transfer ends, by the SPI's answer (or a resend's)
        while any(state == "PENDING" for state, _ in (await _states(world, sent)).values()):  # noqa: ASYNC110
            await asyncio.sleep(0.2)
    states = await _states(world, sent)
    completed = [tid for tid, (state, _) in states.items() if state == "COMPLETED"]
    assert set(states.values()) <= {("COMPLETED", None), ("ERROR", "AB03")}
    cents = 100 * len(completed)
    after = await settlement(world)
    assert (after[a.ispb] - held[a.ispb], after[b.ispb] - held[b.ispb]) == (-cents, cents)
    async with asyncio.timeout(60):  # B has credited each settled PIX, once
        while (await b.balance())[0] != before_b[0] + Decimal(cents) / 100:  # noqa: ASYNC110
            await asyncio.sleep(0.2)
    credited = await fetch_rows(
        b.database, "SELECT count(*) AS n FROM network_receipts WHERE state = 'CREDITED'"
    )
    assert credited[0]["n"] == len(completed)
    assert await a.balance() == (before_a[0] - Decimal(cents) / 100, Decimal("0.00"))
    await books_agree(world, tmp_path)
    print(f"{len(sent)} PIX sent, {len(completed)} settled, {refused} refused (503), down {down:.1f} s")


async def test_an_institution_down_is_paid_nothing_and_the_payer_gets_the_money_back(
    world: World, tmp_path: Path
) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await fund_settlement(world, a.ispb, 100_000)
    await fund_customer(a, "50.00")
    before, held = await a.balance(), await settlement(world)
    assert await stop_process(b.process, "pixweb serve (B)") == 0  # B is down
    created = await a.pay(b.key, b.document, 10.0)
    assert await a.finished(created["id"], within=60) == ("ERROR", "AB03")  # the payee's timeout: 3 s
    assert await a.balance() == before
    assert await settlement(world) == held
    await books_agree(world, tmp_path)
