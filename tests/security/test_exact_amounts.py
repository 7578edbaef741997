"""Amounts sent as JSON numbers are judged on the digits sent, through the HTTP API.

A JSON parser that reads numbers as binary floats turns ``1.99999999999999999999`` into ``2.0`` and
``0.009999999999999999999`` into ``0.01``: an amount with more than two decimals, refused when
written ``1.999``, would move 2.00. Each body here is sent as raw bytes (an HTTP client's own JSON
encoder would round the number first) and must get the very answer ``1.999`` gets, with nothing
moved; exact forms (``1.5E1``, ``10.100``) move exactly their centavos.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.security.conftest import Signed, assert_error, signed_in
from tests.support import add_external_key, fund

TOO_PRECISE = [
    "1.99999999999999999999",  # the nearest float is 2.0
    "0.009999999999999999999",  # the nearest float is 0.01
    "10.0000000000000000001",  # the nearest float is 10.0
    "1.999e0",
    "1" + "0" * 5000 + "1E-5002",  # more digits than Python makes an int of from text
]
JSON = {"content-type": "application/json"}
AMOUNT = "Invalid amount: a positive value in reais with at most 2 decimals is expected."


async def _balance(api: Api, signed: Signed) -> Any:
    response = await api.client.get("/accounts/balances", headers=signed.auth)
    assert response.status_code == 200, response.text
    return response.json()["data"][0]["balanceAmount"]


async def _transfer(api: Api, signed: Signed, key: str, amount: str) -> Any:
    body = f'{{"pixKey": "{key}", "payment": {{"currency": "BRL", "amount": {amount}}}}}'
    headers = signed.auth | JSON | {"x-idempotency-key": str(uuid.uuid4())}
    return await api.client.post("/dict/pix", content=body.encode(), headers=headers)


async def _sandbox_payment(api: Api, signed: Signed, amount: str) -> Any:
    body = f'{{"pixKey": "{signed.key}", "amount": {amount}}}'
    return await api.client.post("/sandbox/payments", content=body.encode(), headers=signed.auth | JSON)


@pytest.fixture
async def funded(pg_uow: UnitOfWorkFactory, api: Api) -> Signed:
    signed = await signed_in(pg_uow, api.client)
    await fund(api.client, signed.client, signed.auth, "100.00")
    return signed


async def test_a_transfer_of_more_than_two_decimals_is_refused_whatever_its_float(
    api: Api, funded: Signed
) -> None:
    key, _ = await add_external_key(api.client, funded.auth)
    before = await _balance(api, funded)
    today = assert_error(await _transfer(api, funded, key, "1.999"), 400)
    assert today["details"] == [f"payment.amount: {AMOUNT}"], today
    for amount in TOO_PRECISE:
        assert assert_error(await _transfer(api, funded, key, amount), 400) == today, amount[:40]
    assert await _balance(api, funded) == before


@pytest.mark.parametrize(("amount", "moved"), [("1.5E1", 15), ("1e1", 10), ("10.100", 10.1), ("0.1e1", 1)])
async def test_a_transfer_in_an_exact_form_moves_exactly_its_centavos(
    api: Api, funded: Signed, amount: str, moved: float
) -> None:
    key, _ = await add_external_key(api.client, funded.auth)
    response = await _transfer(api, funded, key, amount)
    assert response.status_code == 201, response.text
    assert response.json()["payment"] == {"amount": moved}
    balance = await _balance(api, funded)
    assert (balance["available"], balance["blocked"]) == (100 - moved, moved)


@pytest.mark.parametrize("amount", ["-0", "-0.0", "0e5"])
async def test_a_transfer_of_negative_zero_is_refused_as_zero_is(
    api: Api, funded: Signed, amount: str
) -> None:
    key, _ = await add_external_key(api.client, funded.auth)
    zero = assert_error(await _transfer(api, funded, key, "0"), 400)
    assert assert_error(await _transfer(api, funded, key, amount), 400) == zero


@pytest.mark.parametrize("amount", ["1e400", "1" + "0" * 20, "-1e-400"])
async def test_a_transfer_of_an_extreme_number_is_a_400(api: Api, funded: Signed, amount: str) -> None:
    key, _ = await add_external_key(api.client, funded.auth)
    body = assert_error(await _transfer(api, funded, key, amount), 400)
    assert any(detail.startswith("payment.amount: ") for detail in body["details"]), body


@pytest.mark.parametrize("amount", ["01", "01.5", "1."])
async def test_a_number_with_a_leading_zero_or_no_decimals_after_the_point_is_malformed_json(
    api: Api, funded: Signed, amount: str
) -> None:
    key, _ = await add_external_key(api.client, funded.auth)
    assert_error(await _transfer(api, funded, key, amount), 400)


async def test_a_sandbox_payment_of_more_than_two_decimals_is_refused_whatever_its_float(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    signed = await signed_in(pg_uow, api.client)
    before = await _balance(api, signed)
    today = assert_error(await _sandbox_payment(api, signed, "1.999"), 400)
    assert today["details"] == [f"amount: {AMOUNT}"], today
    for amount in TOO_PRECISE:
        assert assert_error(await _sandbox_payment(api, signed, amount), 400) == today, amount[:40]
    assert await _balance(api, signed) == before


async def test_a_sandbox_payment_in_an_exact_form_credits_exactly_its_centavos(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    signed = await signed_in(pg_uow, api.client)
    available = (await _balance(api, signed))["available"]
    for amount, credited in (("1.5E1", 15), ("0.10", 0.1), ("2.500", 2.5)):
        response = await _sandbox_payment(api, signed, amount)
        assert response.status_code == 201, response.text
        available = round(available + credited, 2)
        assert (await _balance(api, signed))["available"] == available
