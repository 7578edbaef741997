"""The fields of the standard the service keeps and gives back, end to end: the debtor's e-mail and
postal address (``devedor.email``, ``logradouro``, ``cidade``, ``uf``, ``cep``) on ``cob`` and
``cobv`` (created, read, in the signed payload, revised by ``PATCH``, in a batch's charges, in a
kept revision), the account's address in a ``cobv``'s ``recebedor``, and ``componentesValor`` of
every received PIX (a ``cob``'s and a key's payment: ``original`` alone; a ``cobv``'s: the parts
of its amount on the day it was paid, as kept then). Responses are checked against the standard's
schemas, which require the receiver's address.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from decimal import Decimal
from typing import Any

import jwt
import pytest

from pixcore import brcode
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_charge_schemas import validator
from tests.e2e.charges.test_cobv import _claims, _cobv_validator, _create, _due, _move_to, _txid, cobv
from tests.e2e.conftest import Api
from tests.support import Client, bearer, new_client, random_cpf

PROBLEM = "application/problem+json"
TYPE = "https://pix.bcb.gov.br/api/v2/error/"
ADDRESS = {
    "email": "joao.souza@example.com",
    "logradouro": "Rua das Flores, 12",
    "cidade": "Recife",
    "uf": "PE",
    "cep": "50010000",
}
MOVED = {
    "email": "joao@example.org",
    "logradouro": "Avenida Boa Viagem, 500",
    "cidade": "Recife",
    "uf": "PE",
    "cep": "51011000",
}


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


def _debtor(**extra: str) -> dict[str, str]:
    return {"cpf": random_cpf(), "nome": "João Souza"} | extra


async def _cob_claims(api: Api, created: dict[str, Any]) -> dict[str, Any]:
    """The signed payload of a ``cob`` (``/qr/v2/{id}``), its signature checked."""
    location = brcode.decode(created["pixCopiaECola"]).location
    assert location is not None
    response = await api.client.get(f"/qr/v2/{location.rsplit('/', 1)[1]}")
    assert response.status_code == 200, response.text
    jwks = (await api.client.get("/.well-known/jwks.json")).json()
    kid = jwt.get_unverified_header(response.text)["kid"]
    key = next(k for k in jwks["keys"] if k["kid"] == kid)
    claims: dict[str, Any] = jwt.decode(response.text, jwt.PyJWK(key).key, algorithms=["ES256"])
    return claims


async def _ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


async def _pay(api: Api, auth: dict[str, str], code: str) -> str:
    response = await api.client.post("/sandbox/payments", json={"pixCopiaECola": code}, headers=auth)
    paid = await _ok(response, 201)
    e2e: str = paid["endToEndId"]
    return e2e


def _window(api: Api) -> dict[str, str]:
    now = api.clock.now()
    return {"inicio": (now - timedelta(hours=1)).isoformat(), "fim": (now + timedelta(hours=1)).isoformat()}


# -- the debtor's e-mail and address ------------------------------------------------


async def test_a_cob_keeps_its_debtors_email_and_address(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    debtor = _debtor(**ADDRESS)
    txid = _txid()
    body = {"calendario": {"expiracao": 3600}, "valor": {"original": "12.00"}, "devedor": debtor}
    created = await _ok(await api.client.put(f"/cob/{txid}", json=body, headers=auth), 201)
    validator("CobGerada").validate(created)
    assert created["devedor"] == debtor
    read = await _ok(await api.client.get(f"/cob/{txid}", headers=auth))
    assert read["devedor"] == debtor
    assert (await _cob_claims(api, created))["devedor"] == debtor

    moved = _debtor(**MOVED) | {"cpf": debtor["cpf"]}
    revised = await _ok(await api.client.patch(f"/cob/{txid}", json={"devedor": moved}, headers=auth))
    assert (revised["revisao"], revised["devedor"]) == (1, moved)
    assert (await _ok(await api.client.get(f"/cob/{txid}", headers=auth)))["devedor"] == moved
    assert (await _cob_claims(api, revised))["devedor"] == moved
    first = await _ok(await api.client.get(f"/cob/{txid}", params={"revisao": "0"}, headers=auth))
    assert first["devedor"] == debtor  # the revision kept as it was written

    # A debtor given anew is the whole debtor: what it leaves out, it no longer has.
    bare = {"cnpj": "11222333000181", "nome": "Empresa LTDA"}
    replaced = await _ok(await api.client.patch(f"/cob/{txid}", json={"devedor": bare}, headers=auth))
    assert replaced["devedor"] == bare

    posted = await _ok(await api.client.post("/cob", json=body, headers=auth), 201)
    assert posted["devedor"] == debtor


async def test_a_cobv_keeps_its_debtors_email_and_address(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    debtor = _debtor(**ADDRESS)
    created = await _create(api, auth, cobv(_due(api), "80.00") | {"devedor": debtor})
    _cobv_validator("CobVCompleta").validate(created)
    assert created["devedor"] == debtor
    txid = created["txid"]
    assert (await _ok(await api.client.get(f"/cobv/{txid}", headers=auth)))["devedor"] == debtor
    assert (await _claims(api, created))["devedor"] == debtor

    moved = _debtor(**MOVED)
    revised = await _ok(await api.client.patch(f"/cobv/{txid}", json={"devedor": moved}, headers=auth))
    _cobv_validator("CobVCompleta").validate(revised)
    assert (revised["revisao"], revised["devedor"]) == (1, moved)
    assert (await _claims(api, revised))["devedor"] == moved
    first = await _ok(await api.client.get(f"/cobv/{txid}", params={"revisao": "0"}, headers=auth))
    assert first["devedor"] == debtor
    # A change of another part keeps the debtor whole.
    other = await api.client.patch(f"/cobv/{txid}", json={"solicitacaoPagador": "Again"}, headers=auth)
    assert (await _ok(other))["devedor"] == moved


async def test_a_batchs_charges_keep_their_debtors_address(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    batch_id = secrets.randbelow(2**31 - 1) + 1
    txid, due = _txid(), _due(api)
    debtor = _debtor(**ADDRESS)
    body = {"descricao": "Lote", "cobsv": [cobv(due) | {"txid": txid, "devedor": debtor}]}
    put = await _ok(await api.client.put(f"/lotecobv/{batch_id}", json=body, headers=auth), 202)
    assert [item["status"] for item in put["cobsv"]] == ["CRIADA"]
    assert (await _ok(await api.client.get(f"/cobv/{txid}", headers=auth)))["devedor"] == debtor

    moved = _debtor(**MOVED)
    change = {"cobsv": [{"txid": txid, "devedor": moved}]}
    patched = await _ok(await api.client.patch(f"/lotecobv/{batch_id}", json=change, headers=auth), 202)
    assert [item["status"] for item in patched["cobsv"]] == ["CRIADA"]
    assert (await _ok(await api.client.get(f"/cobv/{txid}", headers=auth)))["devedor"] == moved


@pytest.mark.parametrize(
    ("given", "paths"),
    [
        ({"uf": "P1"}, ["devedor.uf"]),
        ({"uf": "PER"}, ["devedor.uf"]),
        ({"cep": "50010-000"}, ["devedor.cep"]),
        ({"cep": 50010000}, ["devedor.cep"]),
        ({"email": "x" * 245 + "@example.com"}, ["devedor.email"]),
        ({"logradouro": "r" * 201, "cidade": "c" * 201}, ["devedor.logradouro", "devedor.cidade"]),
    ],
)
async def test_a_part_of_the_debtor_out_of_its_form_is_a_400_naming_it(
    api: Api, owner: tuple[Client, dict[str, str]], given: dict[str, Any], paths: list[str]
) -> None:
    _, auth = owner
    body = {"calendario": {}, "valor": {"original": "1.00"}, "devedor": _debtor() | given}
    problem = await _ok(await api.client.post("/cob", json=body, headers=auth), 400)
    assert problem["type"] == TYPE + "CobOperacaoInvalida"
    assert [v["propriedade"] for v in problem["violacoes"]] == paths
    due_problem = await _ok(
        await api.client.put(
            f"/cobv/{_txid()}", json=cobv(_due(api)) | {"devedor": body["devedor"]}, headers=auth
        ),
        400,
    )
    assert due_problem["type"] == TYPE + "CobVOperacaoInvalida"
    assert [v["propriedade"] for v in due_problem["violacoes"]] == paths


async def test_an_address_without_a_document_is_refused(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    body = {
        "calendario": {},
        "valor": {"original": "1.00"},
        "devedor": {"email": "a@example.com", "uf": "SP"},
    }
    problem = await _ok(await api.client.post("/cob", json=body, headers=auth), 400)
    assert [(v["propriedade"], v["razao"]) for v in problem["violacoes"]] == [
        ("devedor.email", "needs devedor.cpf or devedor.cnpj"),
        ("devedor.uf", "needs devedor.cpf or devedor.cnpj"),
    ]


# -- the receiver's address ----------------------------------------------------------


async def test_a_cobvs_receiver_is_the_accounts_holder_with_its_address(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    account = client.opened.account
    receiver = {
        "nome": account.name,
        "logradouro": account.street,
        "cidade": account.city,
        "uf": account.state,
        "cep": account.postal_code,
        "cpf": account.document,
    }
    created = await _create(api, auth, cobv(_due(api)))
    _cobv_validator("CobVCompleta").validate(created)  # DadosRecebedor requires the four parts
    assert created["recebedor"] == receiver
    assert (await _ok(await api.client.get(f"/cobv/{created['txid']}", headers=auth)))[
        "recebedor"
    ] == receiver
    assert (await _claims(api, created))["recebedor"] == receiver
    without = {k: v for k, v in created["recebedor"].items() if k != "cep"}
    assert list(_cobv_validator("CobVCompleta").iter_errors(created | {"recebedor": without}))


# -- componentesValor ----------------------------------------------------------------


async def test_a_cob_payment_and_a_key_payment_are_their_original_amount(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    body = {"calendario": {"expiracao": 3600}, "valor": {"original": "0.00", "modalidadeAlteracao": 1}}
    created = await _ok(await api.client.post("/cob", json=body, headers=auth), 201)
    paid = await api.client.post(
        "/sandbox/payments", json={"pixCopiaECola": created["pixCopiaECola"], "amount": 25}, headers=auth
    )
    e2e = (await _ok(paid, 201))["endToEndId"]
    received = await _ok(await api.client.get(f"/pix/{e2e}", headers=auth))
    validator("Pix").validate(received)
    assert (received["valor"], received["componentesValor"]) == ("25.00", {"original": {"valor": "25.00"}})
    charge = await _ok(await api.client.get(f"/cob/{created['txid']}", headers=auth))
    assert charge["pix"] == [received]

    key = client.opened.keys[0].value
    static = brcode.encode(
        brcode.BrCode(merchant_name="HOLDER", merchant_city="SAO PAULO", key=key, amount=750)
    )
    by_key = await _pay(api, auth, static)
    received = await _ok(await api.client.get(f"/pix/{by_key}", headers=auth))
    assert "txid" not in received
    assert received["componentesValor"] == {"original": {"valor": "7.50"}}
    listed = await _ok(await api.client.get("/pix", params=_window(api), headers=auth))
    assert {p["endToEndId"]: p["componentesValor"] for p in listed["pix"]}[by_key] == received[
        "componentesValor"
    ]


def _sum(components: dict[str, Any]) -> Decimal:
    """``valor`` as the standard adds up ``componentesValor``."""
    value = {name: Decimal(part["valor"]) for name, part in components.items()}
    added = value["original"] + value.get("multa", 0) + value.get("juros", 0)
    return added - value.get("abatimento", 0) - value.get("desconto", 0)


async def test_a_cobv_payment_keeps_the_parts_of_its_amount_on_the_day_it_was_paid(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    due = _due(api)
    body = cobv(due, "200.00")
    body["valor"] |= {
        "multa": {"modalidade": 2, "valorPerc": "2.00"},
        "juros": {"modalidade": 2, "valorPerc": "1.00"},
        "abatimento": {"modalidade": 1, "valorPerc": "10.00"},
    }
    created = await _create(api, auth, body)
    auth = await _move_to(api, client, due + timedelta(days=2))
    day = (due + timedelta(days=2)).isoformat()
    shown = (await _claims(api, created, f"?DPP={day}"))["valor"]
    assert {"multa", "juros", "abatimento"} <= set(shown)  # late, with a rebate: every part there

    e2e = await _pay(api, auth, created["pixCopiaECola"])
    received = await _ok(await api.client.get(f"/pix/{e2e}", headers=auth))
    validator("Pix").validate(received)
    components = received["componentesValor"]
    assert components == {
        "original": {"valor": "200.00"},
        "multa": {"valor": shown["multa"]},
        "juros": {"valor": shown["juros"]},
        "abatimento": {"valor": shown["abatimento"]},
    }
    assert received["valor"] == shown["final"]
    assert _sum(components) == Decimal(received["valor"])
    charge = await _ok(await api.client.get(f"/cobv/{created['txid']}", headers=auth))
    _cobv_validator("CobVCompleta").validate(charge)
    assert charge["pix"] == [received]

    # Days later the interest would be more: what was paid stays what it was made of.
    auth = await _move_to(api, client, due + timedelta(days=6))
    later = await _ok(await api.client.get(f"/pix/{e2e}", headers=auth))
    assert later["componentesValor"] == components
    listed = await _ok(
        await api.client.get("/pix", params=_window(api) | {"txid": created["txid"]}, headers=auth)
    )
    assert [p["componentesValor"] for p in listed["pix"]] == []  # paid days ago: outside the window
    since = {"inicio": (api.clock.now() - timedelta(days=5)).isoformat(), "fim": api.clock.now().isoformat()}
    listed = await _ok(await api.client.get("/pix", params=since | {"txid": created["txid"]}, headers=auth))
    assert [p["componentesValor"] for p in listed["pix"]] == [components]


async def test_a_cobv_paid_early_shows_its_discount(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    due = _due(api)
    body = cobv(due, "80.00")
    body["valor"]["desconto"] = {
        "modalidade": 1,
        "descontoDataFixa": [{"data": due.isoformat(), "valorPerc": "8.00"}],
    }
    created = await _create(api, auth, body)
    shown = (await _claims(api, created))["valor"]
    e2e = await _pay(api, auth, created["pixCopiaECola"])
    received = await _ok(await api.client.get(f"/pix/{e2e}", headers=auth))
    assert received["componentesValor"] == {
        "original": {"valor": "80.00"},
        "desconto": {"valor": shown["desconto"]},
    }
    assert _sum(received["componentesValor"]) == Decimal(received["valor"]) == Decimal(shown["final"])
