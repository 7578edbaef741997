"""Balances: both shapes, and the equivalences the spec states between them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from pixcore import ledger
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import bearer, ledger_report, new_client

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


async def _set_balance(
    pg_uow: UnitOfWorkFactory, url: str, account_id: int, available: int, blocked: int
) -> None:
    """Bring a new account to (available, blocked) through the ledger: a receipt, then a reservation."""
    now = datetime.now(UTC)
    async with pg_uow() as tx:
        transaction_id = await tx.transactions.add(
            NewTransaction(
                account_id, TransactionType.PAYMENT, TransactionStatus.CONFIRMED, available + blocked, now
            )
        )
        await tx.ledger.post(transaction_id, ledger.receive(account_id, available + blocked, "12345678"), now)
        if blocked:
            await tx.ledger.post(transaction_id, ledger.reserve(account_id, blocked), now)
        await tx.commit()
    assert (await ledger_report(url))["ok"]


async def test_new_account_has_zero_balance_in_both_shapes(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    central = (await api.client.get("/accounts/balances", headers=auth)).json()
    assert len(central["data"]) == 1
    item = central["data"][0]
    assert item["balanceAmount"] == {"available": 0, "blocked": 0, "overdraft": 0}
    assert TIMESTAMP.match(item["eventDate"])
    standard = (await api.client.get("/balance", headers=auth)).json()
    assert standard["grossBalance"] == standard["blockedBalance"] == standard["netBalance"] == 0
    assert TIMESTAMP.match(standard["consultedAt"])


@pytest.mark.parametrize(
    ("available", "blocked", "texts"),
    [
        (12345, 678, ("123.45", "6.78", "130.23")),
        (1, 0, ("0.01", "0.00", "0.01")),
        (999_999_999_999, 1, ("9999999999.99", "0.01", "10000000000.00")),
        (10, 90, ("0.10", "0.90", "1.00")),
    ],
)
async def test_balance_shapes_are_equivalent_and_exact(  # noqa: PLR0917 - pytest hands fixtures and parameters by name
    pg_uow: UnitOfWorkFactory,
    api: Api,
    migrated_database: str,
    available: int,
    blocked: int,
    texts: tuple[str, str, str],
) -> None:
    client = await new_client(pg_uow)
    await _set_balance(pg_uow, migrated_database, client.account_id, available, blocked)
    auth = await bearer(api.client, client)

    central_response = await api.client.get("/accounts/balances", headers=auth)
    standard_response = await api.client.get("/balance", headers=auth)
    assert central_response.status_code == standard_response.status_code == 200
    available_text, blocked_text, gross_text = texts
    # Numbers are written with their two decimals, exactly: never through a float.
    assert f'"available":{available_text}' in central_response.text
    assert f'"blocked":{blocked_text}' in central_response.text
    assert '"overdraft":0.00' in central_response.text
    assert f'"grossBalance":{gross_text}' in standard_response.text
    assert f'"blockedBalance":{blocked_text}' in standard_response.text
    assert f'"netBalance":{available_text}' in standard_response.text

    amount = central_response.json()["data"][0]["balanceAmount"]
    standard = standard_response.json()
    assert standard["netBalance"] == amount["available"]
    assert standard["blockedBalance"] == amount["blocked"]
    assert round((standard["grossBalance"] - amount["available"] - amount["blocked"]) * 100) == 0


async def test_balance_is_the_callers_own(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    mine, theirs = await new_client(pg_uow), await new_client(pg_uow)
    await _set_balance(pg_uow, migrated_database, theirs.account_id, 50_000, 0)
    await _set_balance(pg_uow, migrated_database, mine.account_id, 700, 0)
    standard = (await api.client.get("/balance", headers=await bearer(api.client, mine))).json()
    assert standard["netBalance"] == 7


async def test_balance_requires_a_token(api: Api) -> None:
    for path in ("/accounts/balances", "/balance"):
        response = await api.client.get(path)
        assert response.status_code == 401
        assert response.json()["error"] == "Unauthorized"
