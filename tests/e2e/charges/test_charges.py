"""Charges end to end: PUT/GET/PATCH /cob, the signed payload, expiry, and paying through the sandbox."""

from __future__ import annotations

import asyncio
import json
import secrets
import string
from decimal import Decimal
from typing import Any

import jwt
import pytest

from pixcore import brcode
from pixcore.charges.cob_service import sweep_expired_charges
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, bearer, fetch_rows, ledger_report, new_client, random_cpf

ALPHANUMERIC = string.ascii_letters + string.digits


def new_txid(length: int = 30) -> str:
    return "".join(secrets.choice(ALPHANUMERIC) for _ in range(length))


def cob(original: str = "10.00", **extra: Any) -> dict[str, Any]:
    return {"calendario": {"expiracao": 3600}, "valor": {"original": original}} | extra


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def _create(api: Api, auth: dict[str, str], body: dict[str, Any] | None = None) -> dict[str, Any]:
    txid = new_txid()
    response = await api.client.put(f"/cob/{txid}", json=body or cob(), headers=auth)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _available(api: Api, auth: dict[str, str]) -> Decimal:
    response = await api.client.get("/accounts/balances", headers=auth)
    return Decimal(str(response.json()["data"][0]["balanceAmount"]["available"]))


async def _pay(api: Api, auth: dict[str, str], code: str, **extra: Any) -> Any:
    return await api.client.post("/sandbox/payments", json={"pixCopiaECola": code} | extra, headers=auth)


async def test_create_returns_an_active_charge_with_a_dynamic_code(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    cpf = random_cpf()
    txid = new_txid(35)
    body = cob(
        "123.45",
        devedor={"cpf": cpf, "nome": "Fulano de Tal"},
        solicitacaoPagador="Servico prestado",
        infoAdicionais=[{"nome": "Pedido", "valor": "42"}],
    )
    response = await api.client.put(f"/cob/{txid}", json=body, headers=auth)
    assert response.status_code == 201, response.text
    charge = response.json()
    assert charge["txid"] == txid
    assert charge["status"] == "ATIVA"
    assert charge["revisao"] == 0
    assert charge["calendario"]["expiracao"] == 3600
    assert charge["valor"] == {"original": "123.45", "modalidadeAlteracao": 0}
    assert charge["devedor"] == {"cpf": cpf, "nome": "Fulano de Tal"}
    assert charge["chave"] == client.opened.keys[0].value
    assert charge["loc"]["tipoCob"] == "cob"
    assert isinstance(charge["loc"]["id"], int)
    assert charge["location"] == charge["loc"]["location"] == charge["pixCopiaECola"]

    code = brcode.decode(charge["location"])
    assert code.point_of_initiation == "12"
    assert code.reference == "***"
    assert code.amount == 12345
    assert code.key is None
    assert code.location is not None
    host = api.settings.public_url.split("://")[1]
    assert code.location.startswith(f"{host}/qr/v2/")
    assert len(code.location.rsplit("/", 1)[1]) == 32
    assert brcode.encode(code) == charge["location"]

    again = await api.client.get(f"/cob/{txid}", headers=auth)
    assert again.status_code == 200
    assert again.json() == charge


async def test_chave_defaults_to_the_first_key_and_may_name_another_of_the_account(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    key = client.opened.keys[0].value
    created = await _create(api, auth, cob(chave=key))
    assert created["chave"] == key


@pytest.mark.parametrize(
    ("path_txid", "body", "detail"),
    [
        ("short1234567890123456789", cob(), "txid"),
        ("a" * 36, cob(), "txid"),
        ("abcdefghijklmnopqrstuvwxy-", cob(), "txid"),
        (None, cob(devedor={"cpf": "1234567890", "nome": "X"}), "devedor.cpf"),
        (None, cob(devedor={"cpf": "12345678900", "nome": "X"}), "devedor.cpf"),
        (None, cob(devedor={"cpf": "529.982.247-25", "nome": "X"}), "devedor.cpf"),
        (None, cob(devedor={"cpf": "52998224725", "cnpj": "11222333000181", "nome": "X"}), "devedor"),
        (None, cob(devedor={"cnpj": "11222333000180", "nome": "X"}), "devedor.cnpj"),
        (None, cob(devedor={"cpf": "52998224725"}), "devedor.nome"),
        (None, cob(devedor={"nome": "Sem Documento"}), "devedor.nome"),
        (None, cob("10"), "valor.original"),
        (None, cob("10.5"), "valor.original"),
        (None, cob("10.000"), "valor.original"),
        (None, cob("-1.00"), "valor.original"),
        (None, cob("0.00"), "valor.original"),
        (None, {"calendario": {}, "valor": {"original": 10.0}}, "valor.original"),
        (None, {"calendario": {}}, "valor"),
        (None, {"valor": {"original": "1.00"}}, "calendario"),
        (None, cob(chave="x" * 78), "chave"),
        (None, cob(chave="someone-else@example.com"), "chave"),
        (None, cob(chave="not a key"), "chave"),
        (None, cob(solicitacaoPagador="x" * 141), "solicitacaoPagador"),
        (
            None,
            {"calendario": {}, "valor": {"original": "1.00", "modalidadeAlteracao": 2}},
            "modalidadeAlteracao",
        ),
        (
            None,
            {"calendario": {}, "valor": {"original": "1.00", "modalidadeAlteracao": "1"}},
            "modalidadeAlteracao",
        ),
        (None, {"calendario": {"expiracao": 0}, "valor": {"original": "1.00"}}, "calendario.expiracao"),
        (None, {"calendario": {"expiracao": "60"}, "valor": {"original": "1.00"}}, "calendario.expiracao"),
        (None, cob(infoAdicionais=[{"nome": "a"}]), "infoAdicionais"),
    ],
)
async def test_each_rule_is_a_400(
    api: Api, owner: tuple[Client, dict[str, str]], path_txid: str | None, body: dict[str, Any], detail: str
) -> None:
    _, auth = owner
    response = await api.client.put(f"/cob/{path_txid or new_txid()}", json=body, headers=auth)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["statusCode"] == 400
    assert error["error"] == "Bad Request"
    assert detail in error["message"]


async def test_a_txid_is_taken_once_even_by_20_concurrent_puts(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    txid = new_txid()
    responses = await asyncio.gather(
        *(api.client.put(f"/cob/{txid}", json=cob(), headers=auth) for _ in range(20))
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * 19, statuses
    conflict = next(r for r in responses if r.status_code == 409).json()
    assert conflict == {"statusCode": 409, "message": conflict["message"], "error": "Conflict"}
    assert txid in conflict["message"]


async def test_another_accounts_charge_is_not_found_and_its_txid_is_free(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    created = await _create(api, auth)
    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    assert (await api.client.get(f"/cob/{created['txid']}", headers=other_auth)).status_code == 404
    patch = {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}
    response = await api.client.patch(f"/cob/{created['txid']}", json=patch, headers=other_auth)
    assert response.status_code == 404
    assert (await api.client.get(f"/cob/{created['txid']}", headers=auth)).json()["status"] == "ATIVA"
    # The payer side: the other account cannot settle this charge through its own sandbox either.
    assert (await _pay(api, other_auth, created["location"])).status_code == 404


async def test_cancelling_an_active_charge_and_only_an_active_one(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    created = await _create(api, auth)
    path = f"/cob/{created['txid']}"
    refused = await api.client.patch(path, json={"status": "CONCLUIDA"}, headers=auth)
    assert refused.status_code == 400
    response = await api.client.patch(path, json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "REMOVIDA_PELO_USUARIO_RECEBEDOR"
    assert response.json()["revisao"] == 1
    assert (await api.client.get(path, headers=auth)).json()["status"] == "REMOVIDA_PELO_USUARIO_RECEBEDOR"
    again = await api.client.patch(path, json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth)
    assert again.status_code == 422
    paid = await _pay(api, auth, created["location"])
    assert paid.status_code == 422, paid.text


async def test_paying_a_charge_credits_records_and_notifies_once(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    created = await _create(api, auth, cob("25.90"))
    before = await _available(api, auth)
    payer = {"name": "Maria Pagadora", "document": random_cpf(), "ispb": "12345678"}
    response = await _pay(api, auth, created["location"], payer=payer)
    assert response.status_code == 201, response.text
    e2e = response.json()["endToEndId"]
    assert e2e.startswith("E12345678")
    assert await _available(api, auth) == before + Decimal("25.90")
    charge = (await api.client.get(f"/cob/{created['txid']}", headers=auth)).json()
    assert charge["status"] == "CONCLUIDA"

    records = await fetch_rows(
        migrated_database,
        "SELECT type, status, amount, counterpart_name, counterpart_document FROM transactions "
        "WHERE account_id = $1 AND end_to_end_id = $2",
        client.account_id,
        e2e,
    )
    assert [tuple(r) for r in records] == [
        ("PAYMENT", "CONFIRMED", 2590, "Maria Pagadora", payer["document"])
    ]
    events = await fetch_rows(
        migrated_database,
        "SELECT payload FROM outbox WHERE account_id = $1 AND payload->'data'->>'endToEndId' = $2",
        client.account_id,
        e2e,
    )
    assert len(events) == 1
    event = json.loads(events[0]["payload"])
    assert event["type"] == "RECEIVE"
    assert event["data"]["txId"] == created["txid"]
    assert event["data"]["status"] == "LIQUIDATED"
    assert event["data"]["payment"] == {"amount": "25.90", "currency": "BRL"}
    assert event["data"]["debtorAccount"]["name"] == "Maria Pagadora"
    assert event["data"]["debtorAccount"]["document"].startswith("***.")

    twice = await _pay(api, auth, created["location"], payer=payer)
    assert twice.status_code == 422
    assert await _available(api, auth) == before + Decimal("25.90")
    assert (await ledger_report(migrated_database))["ok"]


async def test_concurrent_payments_of_one_charge_credit_once(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    created = await _create(api, auth, cob("7.00"))
    before = await _available(api, auth)
    responses = await asyncio.gather(*(_pay(api, auth, created["location"]) for _ in range(15)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [422] * 14, statuses
    assert await _available(api, auth) == before + Decimal("7.00")
    rows = await fetch_rows(
        migrated_database,
        "SELECT count(*) AS n FROM outbox WHERE account_id = $1 AND payload->'data'->>'txId' = $2",
        client.account_id,
        created["txid"],
    )
    assert rows[0]["n"] == 1
    assert (await ledger_report(migrated_database))["ok"]


async def test_the_amount_must_match_unless_the_charge_allows_a_change(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    fixed = await _create(api, auth, cob("10.00"))
    refused = await _pay(api, auth, fixed["location"], amount=9.99)
    assert refused.status_code == 422
    assert "10.00" in refused.json()["message"]
    assert (await _pay(api, auth, fixed["location"], amount=10)).status_code == 201

    changeable = cob("10.00")
    changeable["valor"]["modalidadeAlteracao"] = 1
    open_charge = await _create(api, auth, changeable)
    before = await _available(api, auth)
    assert (await _pay(api, auth, open_charge["location"], amount=12.5)).status_code == 201
    assert await _available(api, auth) == before + Decimal("12.50")


async def test_an_expired_charge_reads_removed_cannot_be_paid_and_the_sweep_persists_it(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    _, auth = owner
    created = await _create(api, auth, {"calendario": {"expiracao": 60}, "valor": {"original": "5.00"}})
    path = f"/cob/{created['txid']}"
    api.clock.advance(61)
    assert (await api.client.get(path, headers=auth)).json()["status"] == "REMOVIDA_PELO_PSP"
    assert (await _pay(api, auth, created["location"])).status_code == 422
    cancel = await api.client.patch(path, json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth)
    assert cancel.status_code == 422

    assert await sweep_expired_charges(pg_uow, api.clock) >= 1
    rows = await fetch_rows(migrated_database, "SELECT status FROM charges WHERE txid = $1", created["txid"])
    assert [r["status"] for r in rows] == ["REMOVIDA_PELO_PSP"]


async def test_the_payload_location_serves_a_jws_verifiable_with_the_jwks(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    created = await _create(api, auth, cob("42.00", solicitacaoPagador="Pedido 7"))
    location = brcode.decode(created["location"]).location
    assert location is not None
    location_id = location.rsplit("/", 1)[1]

    response = await api.client.get(f"/qr/v2/{location_id}")  # no bearer token
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/jose")
    token = response.text
    header = jwt.get_unverified_header(token)
    jwks = (await api.client.get("/.well-known/jwks.json")).json()
    key = next(k for k in jwks["keys"] if k["kid"] == header["kid"])
    assert header["jku"].endswith("/.well-known/jwks.json")
    claims = jwt.decode(token, jwt.PyJWK(key).key, algorithms=["ES256"])
    assert claims["txid"] == created["txid"]
    assert claims["valor"]["original"] == "42.00"
    assert claims["status"] == "ATIVA"
    assert claims["solicitacaoPagador"] == "Pedido 7"
    assert claims["calendario"]["expiracao"] == 3600

    tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(tampered, jwt.PyJWK(key).key, algorithms=["ES256"])

    unknown = await api.client.get(f"/qr/v2/{'0' * 32}")
    assert unknown.status_code == 404
    assert unknown.json()["type"] == "https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado"


async def test_a_static_code_pays_the_key_it_names(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    code = brcode.encode(
        brcode.BrCode(
            merchant_name="HOLDER", merchant_city="RECIFE", key=client.opened.keys[0].value, amount=300
        )
    )
    before = await _available(api, auth)
    assert (await _pay(api, auth, code)).status_code == 201
    assert await _available(api, auth) == before + Decimal("3.00")
    assert (await _pay(api, auth, code[:-1] + ("0" if code[-1] != "0" else "1"))).status_code == 400
