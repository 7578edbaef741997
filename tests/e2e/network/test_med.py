"""The MED between two institutions, with both services running: A's customer paid B's customer;
A's operator reports it as a fraud and asks it back (``pixweb admin network med ask-back``); B's
service acknowledges the report and opens a MED case (the money blocked); B's customer accepts it
(``POST /sandbox/med/{id}/accept``); the money goes back through the SPI to A's customer; B's
service closes the request at the DICT naming the return, and the report as agreed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import pytest

from tests.support.databases import fetch_rows
from tests.support.network import (
    BIN,
    Institution,
    World,
    command,
    fund_customer,
    fund_settlement,
    settlement,
    two_institutions,
)


@pytest.fixture(scope="module")
async def world(database_server: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    async with two_institutions(database_server, tmp_path_factory.mktemp("med")) as made:
        yield made


async def _ask_back(bank: Institution, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, err = await command(
        bank.env, str(BIN / "pixweb"), "admin", "network", "med", "ask-back", *args
    )
    return code, json.loads(out if code == 0 else err.strip().splitlines()[-1])


async def _one(database: str, query: str, *args: object, within: float = 60) -> Any:
    """The first row ``query`` finds, once it finds one."""
    async with asyncio.timeout(within):
        while not (rows := await fetch_rows(database, query, *args)):  # noqa: ASYNC110 - another process
            await asyncio.sleep(0.2)
    return rows[0]


async def test_a_med_opened_at_a_answered_at_b_returns_the_money(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await fund_settlement(world, a.ispb, 100_000)
    await fund_customer(a, "30.00")
    sent = await a.pay(b.key, b.document, 20.0)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    await _one(
        b.database,
        "SELECT 1 FROM network_receipts WHERE end_to_end_id = $1 AND state = 'CREDITED'",
        sent["endToEndId"],
    )
    (a_paid, _), (b_paid, _), held = await a.balance(), await b.balance(), await settlement(world)

    code, asked = await _ask_back(a, sent["endToEndId"], "--details", "golpe do falso parente")
    assert code == 0, asked
    assert asked["amount"] == 2000
    assert asked["infractionReportId"] is not None

    case = await _one(
        b.database, "SELECT case_id FROM network_med WHERE refund_id = $1::uuid", asked["refundRequestId"]
    )
    assert await b.balance() == (b_paid - Decimal("20.00"), Decimal("20.00"))  # blocked at B
    accepted = await b.http.post(f"/sandbox/med/{case['case_id']}/accept", headers=b.auth)
    assert accepted.status_code == 200, accepted.text

    async with asyncio.timeout(60):
        while (await a.balance())[0] != a_paid + Decimal("20.00"):  # noqa: ASYNC110 - the other service
            await asyncio.sleep(0.2)
    request = await _one(
        world.network_database,
        "SELECT analysis_result, refund_transaction_id FROM refund_requests"
        " WHERE id = $1::uuid AND status = 'CLOSED'",
        asked["refundRequestId"],
    )
    assert request["analysis_result"] == "TOTALLY_ACCEPTED"
    [returned] = await fetch_rows(
        world.network_database,
        "SELECT end_to_end_id, amount, status FROM returns WHERE return_id = $1",
        request["refund_transaction_id"],
    )
    assert (returned["end_to_end_id"], returned["amount"], returned["status"]) == (
        sent["endToEndId"],
        2000,
        "ACSC",
    )
    report = await _one(
        world.network_database,
        "SELECT analysis_result FROM infraction_reports WHERE id = $1::uuid AND status = 'CLOSED'",
        asked["infractionReportId"],
    )
    assert report["analysis_result"] == "AGREED"
    assert await b.balance() == (b_paid - Decimal("20.00"), Decimal("0.00"))
    after = await settlement(world)
    assert (after[a.ispb] - held[a.ispb], after[b.ispb] - held[b.ispb]) == (2000, -2000)
    [closed] = await fetch_rows(
        b.database, "SELECT closed_at FROM network_med WHERE refund_id = $1::uuid", asked["refundRequestId"]
    )
    assert closed["closed_at"] is not None


async def test_asking_back_what_was_not_sent_or_twice_is_refused_with_a_sentence(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    code, refused = await _ask_back(a, "E" + "1" * 31)
    assert (code, refused["error"]) == (2, "TransactionNotFound")
    await fund_settlement(world, a.ispb, 10_000)
    await fund_customer(a, "5.00")
    sent = await a.pay(b.key, b.document, 1.0)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    code, first = await _ask_back(a, sent["endToEndId"], "--operational")
    assert code == 0, first
    assert first["infractionReportId"] is None
    code, again = await _ask_back(a, sent["endToEndId"], "--operational")
    assert code != 0
    assert "RefundAlreadyBeingProcessedForTransaction" in again["message"]
