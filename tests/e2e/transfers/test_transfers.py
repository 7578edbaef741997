"""POST /dict/pix end to end: validation, directory rules, idempotency, settlement, the ledger."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, add_external_key, bearer, fund, ledger_report, new_client, random_cpf


def _body(key: str, amount: Any = 10, **extra: Any) -> dict[str, Any]:
    return {"pixKey": key, "payment": {"currency": "BRL", "amount": amount}} | extra


def _headers(auth: dict[str, str], key: str | None = None) -> dict[str, str]:
    return auth | {"x-idempotency-key": key or str(uuid.uuid4())}


async def _balance(api: Api, auth: dict[str, str]) -> tuple[float, float]:
    amount = (await api.client.get("/accounts/balances", headers=auth)).json()["data"][0]["balanceAmount"]
    return amount["available"], amount["blocked"]


@pytest.fixture
async def funded(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, "100.00")
    return client, auth


async def test_transfer_reserves_then_settles_outside(
    pg_uow: UnitOfWorkFactory, api: Api, funded: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = funded
    key, _ = await add_external_key(api.client, auth)
    response = await api.client.post("/dict/pix", json=_body(key, 25.5), headers=_headers(auth))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["type"] == "PENDING"
    assert body["payment"] == {"amount": 25.5}
    assert '"amount":25.50' in response.text
    assert len(body["endToEndId"]) == 32
    assert await _balance(api, auth) == (74.5, 25.5)

    api.clock.advance(api.settings.norm_delay_seconds)
    assert await settle_due(pg_uow, api.clock) >= 1
    assert await _balance(api, auth) == (74.5, 0)
    assert (await ledger_report(migrated_database))["ok"]


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"pixKey": "not a key"}, "pixKey"),
        ({"payment": {"currency": "BRL", "amount": 10.123}}, "payment.amount"),
        ({"payment": {"currency": "BRL", "amount": 0}}, "payment.amount"),
        ({"payment": {"currency": "BRL", "amount": -5}}, "payment.amount"),
        ({"payment": {"currency": "BRL", "amount": "10.00"}}, "payment.amount"),
        ({"priority": "HIGH"}, "creditorDocument"),
        ({"expiration": 0}, "expiration"),
        ({"expiration": 10801}, "expiration"),
        ({"priority": "URGENT"}, "priority"),
    ],
)
async def test_invalid_transfer_requests_are_400(
    api: Api, funded: tuple[Client, dict[str, str]], change: dict[str, Any], detail: str
) -> None:
    _, auth = funded
    key, _ = await add_external_key(api.client, auth)
    response = await api.client.post("/dict/pix", json=_body(key) | change, headers=_headers(auth))
    assert response.status_code == 400, response.text
    assert detail in response.text
    assert await _balance(api, auth) == (100, 0)


UUID_V1 = "c232ab00-9414-11ec-b3c8-9f6bdeced846"  # written out: a fresh one differs between xdist workers


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "not-a-uuid",
        UUID_V1,
        str(uuid.uuid5(uuid.NAMESPACE_DNS, "x")),
    ],
)
async def test_missing_or_non_v4_idempotency_key_is_400(
    api: Api, funded: tuple[Client, dict[str, str]], header: str | None
) -> None:
    _, auth = funded
    key, _ = await add_external_key(api.client, auth)
    headers = auth if header is None else auth | {"x-idempotency-key": header}
    response = await api.client.post("/dict/pix", json=_body(key), headers=headers)
    assert response.status_code == 400, response.text


async def test_directory_rules_are_422(api: Api, funded: tuple[Client, dict[str, str]]) -> None:
    client, auth = funded
    key, document = await add_external_key(api.client, auth)
    cases = [
        _body("nobody-" + uuid.uuid4().hex[:8] + "@nowhere.example"),  # not in the directory
        _body(key, 1000),  # insufficient balance
        _body(key, ispbDeny=["12345678"]),
        _body(key, priority="HIGH", creditorDocument=random_cpf()),  # document mismatch
        _body(client.opened.keys[0].value),  # own account
    ]
    for body in cases:
        response = await api.client.post("/dict/pix", json=body, headers=_headers(auth))
        assert response.status_code == 422, (body, response.text)
    assert await _balance(api, auth) == (100, 0)
    ok = await api.client.post(
        "/dict/pix", json=_body(key, priority="HIGH", creditorDocument=document), headers=_headers(auth)
    )
    assert ok.status_code == 201


async def test_idempotent_replay_returns_the_original_and_moves_nothing(
    api: Api, funded: tuple[Client, dict[str, str]]
) -> None:
    _, auth = funded
    key, _ = await add_external_key(api.client, auth)
    headers = _headers(auth)
    first = await api.client.post("/dict/pix", json=_body(key, 10), headers=headers)
    second = await api.client.post("/dict/pix", json=_body(key, 10), headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.content == second.content
    assert await _balance(api, auth) == (90, 10)
    different = await api.client.post("/dict/pix", json=_body(key, 11), headers=headers)
    assert different.status_code == 422
    assert await _balance(api, auth) == (90, 10)


async def test_fifty_concurrent_requests_with_one_key_create_one_transfer(
    api: Api, funded: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = funded
    key, _ = await add_external_key(api.client, auth)
    headers = _headers(auth)
    responses = await asyncio.gather(
        *(api.client.post("/dict/pix", json=_body(key, 10), headers=headers) for _ in range(50))
    )
    assert {r.status_code for r in responses} == {201}
    assert len({r.json()["id"] for r in responses}) == 1
    assert await _balance(api, auth) == (90, 10)
    assert (await ledger_report(migrated_database))["ok"]


async def test_forty_concurrent_transfers_never_overdraw(
    api: Api, funded: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = funded
    key, _ = await add_external_key(api.client, auth)
    responses = await asyncio.gather(
        *(api.client.post("/dict/pix", json=_body(key, 10), headers=_headers(auth)) for _ in range(40))
    )
    statuses = [r.status_code for r in responses]
    assert statuses.count(201) == 10, statuses
    assert statuses.count(422) == 30, statuses
    assert await _balance(api, auth) == (0, 100)
    assert (await ledger_report(migrated_database))["ok"]


async def test_internal_transfer_credits_the_receiver(
    pg_uow: UnitOfWorkFactory, api: Api, funded: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = funded
    receiver = await new_client(pg_uow)
    receiver_auth = await bearer(api.client, receiver)
    body = _body(
        receiver.opened.keys[0].value, 30, priority="HIGH", creditorDocument=receiver.opened.account.document
    )
    response = await api.client.post("/dict/pix", json=body, headers=_headers(auth))
    assert response.status_code == 201, response.text
    assert await settle_due(pg_uow, api.clock) >= 1
    assert await _balance(api, auth) == (70, 0)
    assert await _balance(api, receiver_auth) == (30, 0)
    assert (await ledger_report(migrated_database))["ok"]


async def test_rejecting_receiver_and_expiry_release_the_funds(
    pg_uow: UnitOfWorkFactory, api: Api, funded: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = funded
    rejecting, _ = await add_external_key(api.client, auth, behavior="reject")
    slow, _ = await add_external_key(api.client, auth)
    assert (
        await api.client.post("/dict/pix", json=_body(rejecting, 10), headers=_headers(auth))
    ).status_code == 201
    expiring = _body(slow, 20, expiration=1)
    assert (await api.client.post("/dict/pix", json=expiring, headers=_headers(auth))).status_code == 201
    assert await _balance(api, auth) == (70, 30)
    api.clock.advance(max(api.settings.norm_delay_seconds, 1))
    await settle_due(pg_uow, api.clock)
    assert await _balance(api, auth) == (100, 0)
    assert (await ledger_report(migrated_database))["ok"]
