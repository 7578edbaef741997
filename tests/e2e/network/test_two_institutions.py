"""Two institutions on one network: two ``pixweb serve`` processes, each a participant
(``PIX_NETWORK_URL``) of a ``pixnet`` application, their keys registered in its DICT, their PIX
settled by its SPI between their settlement accounts.

What a client of either sees: a PIX from A to a key of B completes at A and lands at B; a PIX the
payer institution's settlement account does not cover ends in ERROR (``AM04``) with the money back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import asyncpg
import pytest

from pixnet.settlement.spi import check_ledger
from tests.support.databases import fetch_rows
from tests.support.network import (
    BIN,
    World,
    command,
    fund_customer,
    fund_settlement,
    ledger_reports,
    network_env,
    settlement,
    two_institutions,
)


@pytest.fixture(scope="module")
async def world(database_server: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    """The network and both institutions, once for the module (the tests read changes, not totals)."""
    async with two_institutions(database_server, tmp_path_factory.mktemp("two-institutions")) as made:
        yield made


async def test_a_pix_from_a_to_a_key_of_b_settles_between_the_institutions(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await fund_settlement(world, a.ispb, 100_000)
    await fund_customer(a, "50.00")
    before, (a_before, _), (b_before, _) = await settlement(world), await a.balance(), await b.balance()

    sent = await a.pay(b.key, b.document, 12.34)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    assert await a.balance() == (a_before - Decimal("12.34"), Decimal("0.00"))
    async with asyncio.timeout(30):
        while (await b.balance())[0] != b_before + Decimal("12.34"):  # noqa: ASYNC110 - the other service
            await asyncio.sleep(0.1)
    after = await settlement(world)
    assert (after[a.ispb] - before[a.ispb], after[b.ispb] - before[b.ispb]) == (-1234, 1234)
    [credited] = await fetch_rows(
        b.database,
        "SELECT amount, counterpart_ispb FROM transactions WHERE end_to_end_id = $1",
        sent["endToEndId"],
    )
    assert (credited["amount"], credited["counterpart_ispb"]) == (1234, a.ispb)
    connection = await asyncpg.connect(world.network_database)
    try:
        assert (await check_ledger(connection))["ok"] is True
    finally:
        await connection.close()


async def test_a_pix_the_payers_settlement_account_does_not_cover_ends_in_error_with_the_money_back(
    world: World,
) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await fund_customer(a, "50.00")
    held = (await settlement(world))[a.ispb]
    await fund_settlement(world, a.ispb, 1_000 - held)  # 10.00 left at the SPI
    a_before, b_before = await a.balance(), await b.balance()
    sent = await a.pay(b.key, b.document, 20.0)
    assert await a.finished(sent["id"]) == ("ERROR", "AM04")
    assert await a.balance() == a_before  # the money back
    assert await b.balance() == b_before
    assert (await settlement(world))[a.ispb] == 1_000


async def test_a_refund_of_a_pix_from_another_institution_goes_back_through_the_spi(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await fund_settlement(world, a.ispb, 100_000)
    await fund_customer(a, "30.00")
    sent = await a.pay(b.key, b.document, 20.0)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    async with asyncio.timeout(30):  # B credited its customer
        while not await fetch_rows(  # noqa: ASYNC110 - polls the other service's database
            b.database,
            "SELECT 1 FROM network_receipts WHERE end_to_end_id = $1 AND state = 'CREDITED'",
            sent["endToEndId"],
        ):
            await asyncio.sleep(0.1)
    held, (a_before, _), (b_before, _) = await settlement(world), await a.balance(), await b.balance()

    refund = await b.http.put(
        f"/pix/{sent['endToEndId']}/devolucao/volta1", json={"valor": "5.00"}, headers=b.auth
    )
    assert refund.status_code == 201, refund.text
    async with asyncio.timeout(30):
        while (await a.balance())[0] != a_before + Decimal("5.00"):  # noqa: ASYNC110 - the other service
            await asyncio.sleep(0.1)
    read = await b.http.get(f"/pix/{sent['endToEndId']}/devolucao/volta1", headers=b.auth)
    assert read.json()["status"] == "DEVOLVIDO"
    assert (await b.balance())[0] == b_before - Decimal("5.00")
    after = await settlement(world)
    assert (after[a.ispb] - held[a.ispb], after[b.ispb] - held[b.ispb]) == (500, -500)
    [returned] = await fetch_rows(
        a.database, "SELECT type, amount FROM transactions WHERE end_to_end_id = $1", read.json()["rtrId"]
    )
    assert (returned["type"], returned["amount"]) == ("REFUND_OUT", 500)


async def test_money_is_conserved_across_the_network(world: World, tmp_path: Path) -> None:
    """Each institution's own ledger check, then the network's over both: every report holds and
    what each institution's books say went to the other is what the SPI settled between them."""
    a, b = world.banks["A"], world.banks["B"]
    await fund_settlement(world, a.ispb, 10_000)
    await fund_customer(a, "9.00")
    sent = await a.pay(b.key, b.document, 3.0)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    files = await ledger_reports(world, tmp_path)  # each institution's own check holds
    code, out, err = await command(
        network_env(world), str(BIN / "pixnet"), "admin", "ledger", "check", *files
    )
    assert code == 0, out + err
    report = json.loads(out)
    assert (report["ok"], report["institutions"], report["networkMismatches"]) == (True, [a.ispb, b.ispb], [])

    books = json.loads((tmp_path / f"{a.ispb}.json").read_text())
    books["outside"] = [dict(row, balance=row["balance"] + 1) for row in books["outside"]]  # a centavo astray
    (tmp_path / f"{a.ispb}.json").write_text(json.dumps(books))
    code, out, _ = await command(network_env(world), str(BIN / "pixnet"), "admin", "ledger", "check", *files)
    assert code == 1
    assert any(f"{a.ispb}'s books say" in line for line in json.loads(out)["networkMismatches"])
