"""POST /api/pix/cash-in end to end: the QR code, its image, the bounds, and paying it."""

from __future__ import annotations

import asyncio
import base64
import io
import uuid
from datetime import timedelta
from decimal import Decimal
from typing import Any

import PIL.Image
import pytest
import zxingcpp

from pixcore import brcode
from pixcore.charges.cob_service import sweep_expired_charges
from pixcore.clock import parse_timestamp
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, bearer, fetch_rows, ledger_report, new_client, random_cpf


def cash_in(value: Any = 15.5, **transaction: Any) -> dict[str, Any]:
    return {
        "transaction": {"value": value, "description": "Pedido 99", "externalId": str(uuid.uuid4())}
        | transaction,
        "payer": {"fullName": "Joao da Silva", "document": random_cpf()},
    }


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def test_cash_in_returns_a_pending_dynamic_code(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    body = cash_in(15.5, expirationTime=600)
    response = await api.client.post("/api/pix/cash-in", json=body, headers=auth)
    assert response.status_code == 201, response.text
    out = response.json()
    assert out["status"] == "PENDING"
    assert out["externalId"] == body["transaction"]["externalId"]
    assert str(uuid.UUID(out["correlationId"])) == out["correlationId"]
    assert out["transactionId"].isdigit()
    assert "qrCodeImage" not in out
    generated, expires = parse_timestamp(out["generateTime"]), parse_timestamp(out["expirationDate"])
    assert expires - generated == timedelta(seconds=600)
    code = brcode.decode(out["pixCode"])
    assert code.point_of_initiation == "12"
    assert code.amount == 1550
    assert code.location is not None
    assert "/qr/v2/" in code.location


async def test_the_qr_image_is_a_png_that_decodes_to_the_pix_code(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    response = await api.client.post("/api/pix/cash-in", json=cash_in(generateQrCode=True), headers=auth)
    assert response.status_code == 201, response.text
    out = response.json()
    png = base64.b64decode(out["qrCodeImage"], validate=True)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = PIL.Image.open(io.BytesIO(png))
    decoded = [result.text for result in zxingcpp.read_barcodes(image)]
    assert decoded == [out["pixCode"]]


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"expirationTime": 299}, "expirationTime"),
        ({"expirationTime": 604_801}, "expirationTime"),
        ({"expirationTime": "600"}, "expirationTime"),
        ({"value": 0}, "transaction.value"),
        ({"value": -1}, "transaction.value"),
        ({"value": 1.234}, "transaction.value"),
        ({"value": "10.00"}, "transaction.value"),
        ({"description": ""}, "transaction.description"),
        ({"externalId": None}, "transaction.externalId"),
        ({"generateQrCode": "yes"}, "generateQrCode"),
    ],
)
async def test_each_transaction_bound_is_a_400(
    api: Api, owner: tuple[Client, dict[str, str]], change: dict[str, Any], detail: str
) -> None:
    _, auth = owner
    body = cash_in()
    body["transaction"] |= change
    response = await api.client.post("/api/pix/cash-in", json=body, headers=auth)
    assert response.status_code == 400, response.text
    assert response.json()["statusCode"] == 400
    assert detail in response.json()["message"]


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"payer": {"fullName": "x" * 101, "document": "52998224725"}}, "payer.fullName"),
        ({"payer": {"fullName": "Ana", "document": "52998224700"}}, "payer.document"),
        ({"payer": {"fullName": "Ana", "document": "1234"}}, "payer.document"),
        ({"additionalInfo": {f"k{i}": "v" for i in range(11)}}, "additionalInfo"),
        ({"additionalInfo": {"k": 1}}, "additionalInfo"),
    ],
)
async def test_payer_and_additional_info_bounds_are_400(
    api: Api, owner: tuple[Client, dict[str, str]], change: dict[str, Any], detail: str
) -> None:
    _, auth = owner
    response = await api.client.post("/api/pix/cash-in", json=cash_in() | change, headers=auth)
    assert response.status_code == 400, response.text
    assert detail in response.json()["message"]


async def test_ten_additional_info_keys_and_a_cnpj_payer_are_fine(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    body = cash_in() | {"additionalInfo": {f"k{i}": "v" for i in range(10)}}
    body["payer"]["document"] = "11222333000181"
    assert (await api.client.post("/api/pix/cash-in", json=body, headers=auth)).status_code == 201


async def test_a_duplicate_external_id_is_409_even_when_concurrent(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    body = cash_in()
    responses = await asyncio.gather(
        *(api.client.post("/api/pix/cash-in", json=body, headers=auth) for _ in range(10))
    )
    assert sorted(r.status_code for r in responses) == [201] + [409] * 9
    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    # Per account: another account may use the same external id.
    assert (await api.client.post("/api/pix/cash-in", json=body, headers=other_auth)).status_code == 201


async def test_paying_a_cash_in_confirms_its_record(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    out = (await api.client.post("/api/pix/cash-in", json=cash_in(33), headers=auth)).json()
    transaction_id = int(out["transactionId"])
    rows = await fetch_rows(
        migrated_database, "SELECT status FROM transactions WHERE id = $1", transaction_id
    )
    assert rows[0]["status"] == "PENDING"

    before = (await api.client.get("/balance", headers=auth)).json()
    paid = await api.client.post("/sandbox/payments", json={"pixCopiaECola": out["pixCode"]}, headers=auth)
    assert paid.status_code == 201, paid.text
    after = (await api.client.get("/balance", headers=auth)).json()
    assert Decimal(str(after["netBalance"])) - Decimal(str(before["netBalance"])) == Decimal("33.00")

    rows = await fetch_rows(
        migrated_database,
        "SELECT status, end_to_end_id, external_id, processed_at FROM transactions WHERE id = $1",
        transaction_id,
    )
    assert rows[0]["status"] == "CONFIRMED"
    assert rows[0]["end_to_end_id"] == paid.json()["endToEndId"]
    assert rows[0]["external_id"] == out["externalId"]
    assert rows[0]["processed_at"] is not None
    events = await fetch_rows(
        migrated_database,
        "SELECT payload FROM outbox WHERE account_id = $1 AND payload->>'type' = 'RECEIVE' "
        "AND (payload->'data'->>'id')::bigint = $2",
        client.account_id,
        transaction_id,
    )
    assert len(events) == 1
    assert (await ledger_report(migrated_database))["ok"]


async def test_an_expired_cash_in_is_an_error_record_and_cannot_be_paid(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = owner
    out = (await api.client.post("/api/pix/cash-in", json=cash_in(expirationTime=300), headers=auth)).json()
    api.clock.advance(301)
    refused = await api.client.post("/sandbox/payments", json={"pixCopiaECola": out["pixCode"]}, headers=auth)
    assert refused.status_code == 422
    assert await sweep_expired_charges(pg_uow, api.clock) >= 1
    rows = await fetch_rows(
        migrated_database, "SELECT status FROM transactions WHERE id = $1", int(out["transactionId"])
    )
    assert rows[0]["status"] == "ERROR"
