"""A key ported from one institution to another through the network's DICT, with both services
running: the holder's new account at B claims the key (``pixweb admin network claims open``),
A's service gives it up by its policy (``PIX_NETWORK_CLAIMS=confirm``, the default), B's service
completes the claim by itself; then a PIX to the key, from either institution, lands at B.
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
    two_institutions,
)


@pytest.fixture(scope="module")
async def world(database_server: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    async with two_institutions(database_server, tmp_path_factory.mktemp("claims")) as made:
        yield made


async def _admin(bank: Institution, *args: str) -> dict[str, Any]:
    code, out, err = await command(bank.env, str(BIN / "pixweb"), "admin", *args)
    assert code == 0, out + err
    answer: dict[str, Any] = json.loads(out)
    return answer


async def _key_holder(bank: Institution, key: str) -> int | None:
    rows = await fetch_rows(bank.database, "SELECT account_id FROM pix_keys WHERE key_value = $1", key)
    return rows[0]["account_id"] if rows else None


async def _available(bank: Institution, account_id: int) -> int:
    [row] = await fetch_rows(
        bank.database, "SELECT available FROM balances WHERE account_id = $1", account_id
    )
    return int(row["available"])


async def test_a_key_ported_from_a_to_b_takes_the_payments_to_b(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await fund_settlement(world, a.ispb, 100_000)
    await fund_customer(a, "40.00")  # while the key still brings money to A
    held_at_a = await _key_holder(a, a.key)
    assert held_at_a is not None
    opened = await _admin(b, "account", "create", "--name", "Cliente Portado", "--document", a.document)
    moving_to = int(opened["accountId"])

    claim = await _admin(b, "network", "claims", "open", "--account", str(moving_to), "--key", a.key)
    assert (claim["type"], claim["status"], claim["donor"], claim["claimer"]) == (
        "PORTABILITY",
        "OPEN",
        a.ispb,
        b.ispb,
    )
    async with asyncio.timeout(60):  # A confirms, then B completes: a pass of each every 5 s
        while await _key_holder(b, a.key) != moving_to or await _key_holder(a, a.key) is not None:  # noqa: ASYNC110
            await asyncio.sleep(0.2)
        while not await fetch_rows(  # noqa: ASYNC110 - the network's DICT, as the claim completes
            world.network_database,
            "SELECT 1 FROM claims WHERE id = $1::uuid AND status = 'COMPLETED'",
            claim["id"],
        ):
            await asyncio.sleep(0.2)
    [entry] = await fetch_rows(
        world.network_database, "SELECT participant, account_number FROM entries WHERE key = $1", a.key
    )
    assert (entry["participant"], entry["account_number"]) == (b.ispb, opened["number"])

    # From A, whose customer paid with the key before: the DICT now names B.
    before = await _available(b, moving_to)
    sent = await a.pay(a.key, a.document, 12.5)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    async with asyncio.timeout(30):
        while await _available(b, moving_to) != before + 1250:  # noqa: ASYNC110 - the other service
            await asyncio.sleep(0.1)
    # From B's own customer: the key is B's now, settled inside B.
    await fund_customer(b, "10.00")
    inside = await b.pay(a.key, a.document, 2.0)
    assert await b.finished(inside["id"]) == ("COMPLETED", None)
    assert await _available(b, moving_to) == before + 1250 + 200
    assert (await a.balance())[0] == Decimal("40.00") - Decimal("12.50")


async def test_a_claim_of_a_key_b_holds_or_for_no_account_is_refused_with_a_sentence(world: World) -> None:
    b = world.banks["B"]
    code, _, err = await command(
        b.env,
        str(BIN / "pixweb"),
        "admin",
        "network",
        "claims",
        "open",
        "--account",
        "999999",
        "--key",
        b.key,
    )
    assert code != 0
    assert json.loads(err.strip().splitlines()[-1])["error"] in {"AccountNotFound", "DuplicatePixKey"}
    code, _, err = await command(
        b.env,
        str(BIN / "pixweb"),
        "admin",
        "network",
        "claims",
        "open",
        "--account",
        "1",
        "--key",
        "nobody-here@example.com",
    )
    assert code != 0
    refusal = json.loads(err.strip().splitlines()[-1])
    assert "ClaimKeyNotFound" in refusal["message"]
