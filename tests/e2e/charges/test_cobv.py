"""Due-date charges (``/cobv``) end to end: create, read, list, revise, cancel, the signed payload
with ``DPP``, payment by the sandbox payer of the amount due on its day (on, before and after the
due date, and refused after the last day), and every hostile body answered with a 4xx in the
standard's problem+json. Responses are checked against the standard's schemas (``CobVCompleta``,
``CobVPayload``), with the differences named in :func:`_cobv_validator`.
"""

from __future__ import annotations

import asyncio
import copy
import secrets
import string
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import jsonschema
import jwt
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from pixcore import brcode
from pixcore.business_days import next_business_day
from pixcore.charges.cobv import PAYER_ZONE, payer_day
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_charge_schemas import URI, _document
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.support import Client, bearer, new_client, random_cpf

PROBLEM = "application/problem+json"
COBV_TYPE = "https://pix.bcb.gov.br/api/v2/error/"


def _cobv_validator(name: str) -> jsonschema.Draft4Validator:
    """The standard's schema ``name``, with the differences of this service: those of
    test_charge_schemas (the BR Code in ``location``, the CPF pattern); and one defect of the
    document lifted, the ``required`` by which ``DadosRecebedor`` asks the receiver's address at
    the charge's top level (its ``recebedor`` still requires the four parts)."""
    document = copy.deepcopy(_document())
    schemas = document["components"]["schemas"]
    schemas["DadosRecebedor"].pop("required", None)
    for part in schemas["CobVGerada"]["allOf"]:
        location = part.get("properties", {}).get("loc")
        if location is not None:
            for inner in location.get("allOf", []):
                inner.get("properties", {}).get("location", {}).pop("maxLength", None)
    schemas["PayloadLocation"]["properties"]["location"]["maxLength"] = 512
    resource = Resource.from_contents(document, default_specification=DRAFT4)
    registry: Registry[Any] = Registry().with_resource(URI, resource)
    return jsonschema.Draft4Validator({"$ref": f"{URI}#/components/schemas/{name}"}, registry=registry)


def _txid() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))


def _today(api: Api) -> date:
    return payer_day(api.clock.now())


def _due(api: Api, days: int = 5) -> date:
    """A business day ``days`` or more ahead (so that it is its own effective due date)."""
    return next_business_day(_today(api) + timedelta(days=days))


async def _move_to(api: Api, client: Client, day: date) -> dict[str, str]:
    """Moves the service clock to noon of ``day``, Brasília's; a token valid then."""
    target = datetime.combine(day, time(12), tzinfo=PAYER_ZONE)
    seconds = (target - api.clock.now()).total_seconds()
    assert seconds > 0
    api.clock.advance(seconds)
    return await bearer(api.client, client)


def cobv(due: date, original: str = "100.00", **extra: Any) -> dict[str, Any]:
    return {
        "calendario": {"dataDeVencimento": due.isoformat(), "validadeAposVencimento": 10},
        "devedor": {"cpf": random_cpf(), "nome": "João Souza"},
        "valor": {"original": original},
        **extra,
    }


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def _create(api: Api, auth: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    response = await api.client.put(f"/cobv/{_txid()}", json=body, headers=auth)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _balance(api: Api, auth: dict[str, str]) -> Decimal:
    response = await api.client.get("/accounts/balances", headers=auth)
    return Decimal(str(response.json()["data"][0]["balanceAmount"]["available"]))


async def _pay(api: Api, auth: dict[str, str], code: str, amount: str | None = None) -> Any:
    body: dict[str, Any] = {"pixCopiaECola": code}
    if amount is not None:
        body["amount"] = amount
    return await api.client.post("/sandbox/payments", json=body, headers=auth)


async def _payload(api: Api, created: dict[str, Any], query: str = "") -> Any:
    location = brcode.decode(created["pixCopiaECola"]).location
    assert location is not None
    assert "/qr/v2/cobv/" in location
    return await api.client.get(f"/qr/v2/cobv/{location.rsplit('/', 1)[1]}{query}")


async def _claims(api: Api, created: dict[str, Any], query: str = "") -> dict[str, Any]:
    response = await _payload(api, created, query)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/jose")
    token = response.text
    header = jwt.get_unverified_header(token)
    jwks = (await api.client.get("/.well-known/jwks.json")).json()
    key = next(k for k in jwks["keys"] if k["kid"] == header["kid"])
    claims: dict[str, Any] = jwt.decode(token, jwt.PyJWK(key).key, algorithms=["ES256"])
    _cobv_validator("CobVPayload").validate(claims)
    return claims


def test_the_schemas_catch_a_broken_cobv() -> None:
    broken = {"txid": "x", "calendario": {}, "revisao": 0, "status": "PAGA", "valor": {}, "chave": "k"}
    assert list(_cobv_validator("CobVCompleta").iter_errors(broken))
    assert list(_cobv_validator("CobVPayload").iter_errors(broken | {"valor": {"original": "1.00"}}))


async def test_create_read_and_the_standard_schema(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    due = _due(api)
    body = cobv(
        due,
        "123.45",
        solicitacaoPagador="Invoice 117",
        infoAdicionais=[{"nome": "Pedido", "valor": "117"}],
    )
    body["valor"] |= {
        "multa": {"modalidade": 2, "valorPerc": "2.00"},
        "juros": {"modalidade": 2, "valorPerc": "0.10"},
        "desconto": {"modalidade": 1, "descontoDataFixa": [{"data": due.isoformat(), "valorPerc": "3.00"}]},
    }
    created = await _create(api, auth, body)
    _cobv_validator("CobVCompleta").validate(created)
    assert created["status"] == "ATIVA"
    assert created["revisao"] == 0
    assert created["loc"]["tipoCob"] == "cobv"
    assert created["calendario"]["dataDeVencimento"] == due.isoformat()
    assert created["calendario"]["validadeAposVencimento"] == 10
    assert created["valor"] == body["valor"]
    assert created["devedor"] == {"nome": "João Souza", "cpf": body["devedor"]["cpf"]}
    assert created["recebedor"]["nome"] == "Test Holder"
    assert created["recebedor"]["cpf"] == client.opened.account.document
    assert created["chave"] == client.opened.keys[0].value
    code = brcode.decode(created["pixCopiaECola"])
    assert code.amount is None  # the payload says the amount of the day

    read = await api.client.get(f"/cobv/{created['txid']}", headers=auth)
    assert read.status_code == 200
    assert read.json() == created
    _cobv_validator("CobVCompleta").validate(read.json())


async def test_cob_and_cobv_share_txids_but_not_routes(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    created = await _create(api, auth, cobv(_due(api)))
    txid = created["txid"]
    as_cob = await api.client.get(f"/cob/{txid}", headers=auth)
    assert as_cob.status_code == 404
    taken = await api.client.put(
        f"/cob/{txid}", json={"calendario": {}, "valor": {"original": "1.00"}}, headers=auth
    )
    assert taken.status_code == 409
    cob_txid = _txid()
    made = await api.client.put(
        f"/cob/{cob_txid}", json={"calendario": {}, "valor": {"original": "1.00"}}, headers=auth
    )
    assert made.status_code == 201
    as_cobv = await api.client.get(f"/cobv/{cob_txid}", headers=auth)
    assert as_cobv.status_code == 404
    assert as_cobv.headers["content-type"].startswith(PROBLEM)
    assert as_cobv.json()["type"] == COBV_TYPE + "CobVNaoEncontrada"
    again = await api.client.put(f"/cobv/{cob_txid}", json=cobv(_due(api)), headers=auth)
    assert again.status_code == 409
    assert again.json()["type"] == COBV_TYPE + "CobVOperacaoInvalida"
    # a cob's payload location is no cobv's, and the other way round
    location = brcode.decode(made.json()["pixCopiaECola"]).location
    assert location is not None
    assert (await api.client.get(f"/qr/v2/cobv/{location.rsplit('/', 1)[1]}")).status_code == 404
    cobv_location = brcode.decode(created["pixCopiaECola"]).location
    assert cobv_location is not None
    assert (await api.client.get(f"/qr/v2/{cobv_location.rsplit('/', 1)[1]}")).status_code == 404


async def test_another_accounts_cobv_is_not_found(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    created = await _create(api, auth, cobv(_due(api)))
    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    txid = created["txid"]
    for response in (
        await api.client.get(f"/cobv/{txid}", headers=other_auth),
        await api.client.patch(f"/cobv/{txid}", json={"solicitacaoPagador": "mine"}, headers=other_auth),
    ):
        assert response.status_code == 404
        assert response.json()["type"] == COBV_TYPE + "CobVNaoEncontrada"
    paid = await _pay(api, other_auth, created["pixCopiaECola"])
    assert paid.status_code == 404
    assert (await api.client.get(f"/cobv/{txid}", headers=auth)).json()["status"] == "ATIVA"


async def test_list_with_filters(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    start = api.clock.now() - timedelta(minutes=1)
    first = await _create(api, auth, cobv(_due(api)))
    second = await _create(api, auth, cobv(_due(api)))
    await api.client.put(
        f"/cob/{_txid()}", json={"calendario": {}, "valor": {"original": "1.00"}}, headers=auth
    )
    cancelled = await api.client.patch(
        f"/cobv/{second['txid']}", json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth
    )
    assert cancelled.status_code == 200
    window = {"inicio": start.isoformat(), "fim": (api.clock.now() + timedelta(minutes=1)).isoformat()}

    listed = await api.client.get("/cobv", params=window, headers=auth)
    assert listed.status_code == 200, listed.text
    page = listed.json()
    assert [c["txid"] for c in page["cobs"]] == [first["txid"], second["txid"]]  # no cob
    assert page["parametros"]["paginacao"]["quantidadeTotalDeItens"] == 2
    for item in page["cobs"]:
        _cobv_validator("CobVCompleta").validate(item)

    active = (await api.client.get("/cobv", params=window | {"status": "ATIVA"}, headers=auth)).json()
    assert [c["txid"] for c in active["cobs"]] == [first["txid"]]
    by_debtor = await api.client.get("/cobv", params=window | {"cpf": second["devedor"]["cpf"]}, headers=auth)
    assert [c["txid"] for c in by_debtor.json()["cobs"]] == [second["txid"]]
    paged = await api.client.get(
        "/cobv", params=window | {"paginacao.paginaAtual": "1", "paginacao.itensPorPagina": "1"}, headers=auth
    )
    assert [c["txid"] for c in paged.json()["cobs"]] == [second["txid"]]
    no_location = await api.client.get("/cobv", params=window | {"locationPresente": "false"}, headers=auth)
    assert no_location.json()["cobs"] == []

    bad = await api.client.get("/cobv", params={"inicio": "yesterday", "status": "PAGA"}, headers=auth)
    assert bad.status_code == 400
    assert bad.headers["content-type"].startswith(PROBLEM)
    problem = bad.json()
    assert problem["type"] == COBV_TYPE + "CobVConsultaInvalida"
    assert {v["propriedade"] for v in problem["violacoes"]} >= {"inicio", "fim", "status"}


async def test_revise_and_cancel(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    due = _due(api)
    created = await _create(api, auth, cobv(due, "50.00"))
    txid = created["txid"]
    later = next_business_day(due + timedelta(days=3))
    revised = await api.client.patch(
        f"/cobv/{txid}",
        json={
            "calendario": {"dataDeVencimento": later.isoformat()},
            "valor": {"original": "60.00", "multa": {"modalidade": 1, "valorPerc": "5.00"}},
            "solicitacaoPagador": "Now sixty",
        },
        headers=auth,
    )
    assert revised.status_code == 200, revised.text
    body = revised.json()
    _cobv_validator("CobVCompleta").validate(body)
    assert body["revisao"] == 1
    assert body["calendario"] == created["calendario"] | {"dataDeVencimento": later.isoformat()}
    assert body["valor"] == {"original": "60.00", "multa": {"modalidade": 1, "valorPerc": "5.00"}}
    assert body["devedor"] == created["devedor"]
    assert body["solicitacaoPagador"] == "Now sixty"
    claims = await _claims(api, body)
    assert claims["revisao"] == 1
    assert claims["valor"]["final"] == "60.00"

    past = await api.client.patch(
        f"/cobv/{txid}", json={"calendario": {"dataDeVencimento": "2020-01-01"}}, headers=auth
    )
    assert past.status_code == 400
    assert past.json()["type"] == COBV_TYPE + "CobVOperacaoInvalida"
    assert [v["propriedade"] for v in past.json()["violacoes"]] == ["calendario.dataDeVencimento"]

    cancelled = await api.client.patch(
        f"/cobv/{txid}", json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth
    )
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "REMOVIDA_PELO_USUARIO_RECEBEDOR"
    assert cancelled.json()["revisao"] == 2
    again = await api.client.patch(f"/cobv/{txid}", json={"solicitacaoPagador": "x"}, headers=auth)
    assert again.status_code == 422
    assert again.json()["type"] == COBV_TYPE + "CobVOperacaoInvalida"
    refused = await _pay(api, auth, body["pixCopiaECola"])
    assert refused.status_code == 422


async def test_the_payload_shows_the_amount_due_on_dpp(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    today = _today(api)
    due = _due(api, 7)
    early = today + timedelta(days=1)
    body = cobv(due, "100.00")
    body["valor"] |= {
        "multa": {"modalidade": 1, "valorPerc": "2.00"},
        "juros": {"modalidade": 1, "valorPerc": "0.50"},
        "desconto": {"modalidade": 1, "descontoDataFixa": [{"data": early.isoformat(), "valorPerc": "5.00"}]},
    }
    created = await _create(api, auth, body)

    now = await _claims(api, created)
    assert now["valor"] == {"original": "100.00", "desconto": "5.00", "final": "95.00"}
    assert now["calendario"]["dataDeVencimento"] == due.isoformat()
    assert now["devedor"] == created["devedor"]
    assert now["recebedor"] == created["recebedor"]
    on_due = await _claims(api, created, f"?DPP={due.isoformat()}&codMun=3550308")
    assert on_due["valor"] == {"original": "100.00", "final": "100.00"}
    three_late = due + timedelta(days=3)
    late = await _claims(api, created, f"?DPP={three_late.isoformat()}")
    assert late["valor"] == {"original": "100.00", "multa": "2.00", "juros": "1.50", "final": "103.50"}

    for query, name in (
        ("?DPP=2020-01-01", "DPP"),
        ("?DPP=tomorrow", "DPP"),
        ("?codMun=12", "codMun"),
        (f"?DPP={(due + timedelta(days=400)).isoformat()}", "DPP"),
    ):
        refused = await _payload(api, created, query)
        assert refused.status_code == 400, query
        assert refused.headers["content-type"].startswith(PROBLEM)
        assert [v["propriedade"] for v in refused.json()["violacoes"]] == [name]
    assert (await api.client.get(f"/qr/v2/cobv/{'0' * 32}")).status_code == 404


async def test_paid_with_the_discount_before_the_due_date(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    due = _due(api)
    body = cobv(due, "80.00")
    body["valor"]["desconto"] = {
        "modalidade": 1,
        "descontoDataFixa": [{"data": due.isoformat(), "valorPerc": "10.00"}],
    }
    created = await _create(api, auth, body)
    before = await _balance(api, auth)
    wrong = await _pay(api, auth, created["pixCopiaECola"], "80.00")
    assert wrong.status_code == 422  # today it is 70.00
    paid = await _pay(api, auth, created["pixCopiaECola"])
    assert paid.status_code == 201, paid.text
    assert await _balance(api, auth) == before + Decimal("70.00")
    e2e = paid.json()["endToEndId"]
    read = (await api.client.get(f"/cobv/{created['txid']}", headers=auth)).json()
    _cobv_validator("CobVCompleta").validate(read)
    assert read["status"] == "CONCLUIDA"
    assert [(p["endToEndId"], p["valor"], p["txid"]) for p in read["pix"]] == [
        (e2e, "70.00", created["txid"])
    ]
    received = (await api.client.get(f"/pix/{e2e}", headers=auth)).json()
    assert (received["txid"], received["valor"]) == (created["txid"], "70.00")
    window = {
        "inicio": (api.clock.now() - timedelta(hours=1)).isoformat(),
        "fim": (api.clock.now() + timedelta(hours=1)).isoformat(),
    }
    listed = (await api.client.get("/pix", params=window | {"txid": created["txid"]}, headers=auth)).json()
    assert [p["endToEndId"] for p in listed["pix"]] == [e2e]
    twice = await _pay(api, auth, created["pixCopiaECola"])
    assert twice.status_code == 422
    assert await _balance(api, auth) == before + Decimal("70.00")


async def test_paid_on_the_due_date_then_after_with_fine_and_interest(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    due = _due(api)
    body = cobv(due, "200.00")
    body["valor"] |= {
        "multa": {"modalidade": 2, "valorPerc": "2.00"},
        "juros": {"modalidade": 2, "valorPerc": "1.00"},
    }
    on_time = await _create(api, auth, body)
    late = await _create(api, auth, copy.deepcopy(body) | {"devedor": {"cpf": random_cpf(), "nome": "Ana"}})
    before = await _balance(api, auth)

    auth = await _move_to(api, client, due)
    paid = await _pay(api, auth, on_time["pixCopiaECola"])
    assert paid.status_code == 201, paid.text
    assert await _balance(api, auth) == before + Decimal("200.00")

    auth = await _move_to(api, client, due + timedelta(days=2))
    # 2 % fine (4.00) and 1 % a day for 2 days (4.00)
    paid_late = await _pay(api, auth, late["pixCopiaECola"], "208.00")
    assert paid_late.status_code == 201, paid_late.text
    assert await _balance(api, auth) == before + Decimal("408.00")


async def test_the_rebate_comes_first_and_the_percentages_are_of_what_it_leaves(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    today = _today(api)
    due = _due(api, 7)
    body = cobv(due, "200.00")
    body["valor"] |= {
        "abatimento": {"modalidade": 2, "valorPerc": "10.00"},  # 20.00 off the original: 180.00 left
        "desconto": {"modalidade": 5, "valorPerc": "0.50"},  # 0.90 a calendar day early
        "multa": {"modalidade": 2, "valorPerc": "2.00"},  # 3.60
        "juros": {"modalidade": 2, "valorPerc": "1.00"},  # 1.80 a day late
    }
    created = await _create(api, auth, body)

    early = (due - today).days
    now = await _claims(api, created)
    discount = Decimal("0.90") * early
    assert now["valor"] == {
        "original": "200.00",
        "abatimento": "20.00",
        "desconto": f"{discount:.2f}",
        "final": f"{Decimal('180.00') - discount:.2f}",
    }
    on_due = await _claims(api, created, f"?DPP={due.isoformat()}")
    assert on_due["valor"] == {"original": "200.00", "abatimento": "20.00", "final": "180.00"}
    late = await _claims(api, created, f"?DPP={(due + timedelta(days=3)).isoformat()}")
    assert late["valor"] == {
        "original": "200.00",
        "multa": "3.60",
        "juros": "5.40",
        "abatimento": "20.00",
        "final": "189.00",
    }

    before = await _balance(api, auth)
    auth = await _move_to(api, client, due + timedelta(days=2))
    paid = await _pay(api, auth, created["pixCopiaECola"], "187.20")  # 180.00 + 3.60 + 2 x 1.80
    assert paid.status_code == 201, paid.text
    assert await _balance(api, auth) == before + Decimal("187.20")


async def test_after_the_last_day_it_cannot_be_paid(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    due = _due(api)
    created = await _create(
        api,
        auth,
        cobv(due) | {"calendario": {"dataDeVencimento": due.isoformat(), "validadeAposVencimento": 0}},
    )
    before = await _balance(api, auth)
    auth = await _move_to(api, client, next_business_day(due + timedelta(days=1)))
    refused = await _pay(api, auth, created["pixCopiaECola"])
    assert refused.status_code == 422
    assert await _balance(api, auth) == before
    read = (await api.client.get(f"/cobv/{created['txid']}", headers=auth)).json()
    assert read["status"] == "REMOVIDA_PELO_PSP"
    claims = await _claims(api, created)
    assert claims["status"] == "REMOVIDA_PELO_PSP"


HOSTILE: list[tuple[Any, set[str]]] = [
    ({}, {"calendario", "valor", "devedor"}),
    (
        {
            "calendario": {"dataDeVencimento": "2020-01-01"},
            "valor": {"original": "0.00"},
            "devedor": {"nome": "X"},
        },
        {"calendario.dataDeVencimento", "valor.original", "devedor.nome"},
    ),
    (
        {
            "calendario": {"dataDeVencimento": "2099-02-30", "validadeAposVencimento": -1},
            "valor": {"original": 10, "multa": {"modalidade": 9, "valorPerc": "1.00"}},
            "devedor": {"cpf": "12345678900", "nome": "X"},
        },
        {
            "calendario.dataDeVencimento",
            "calendario.validadeAposVencimento",
            "valor.original",
            "valor.multa.modalidade",
            "devedor.cpf",
        },
    ),
    (
        {
            "calendario": {"dataDeVencimento": "2099-01-01\u0000"},
            "valor": {"original": "1" * 5000},
            "devedor": {"cpf": "52998224725", "cnpj": "11222333000181", "nome": "X"},
        },
        set(),
    ),
    (
        {
            "calendario": {"dataDeVencimento": "2099-01-05", "validadeAposVencimento": 2_147_483_647},
            "valor": {"original": "9999999999.99", "juros": {"modalidade": 2, "valorPerc": "100.00"}},
            "devedor": {"cpf": "52998224725", "nome": "X"},
        },
        set(),
    ),
    ([1, 2, 3], set()),
    ("not an object", set()),
]


@pytest.mark.parametrize(("body", "named"), HOSTILE)
async def test_hostile_bodies_are_4xx_problems(
    api: Api, owner: tuple[Client, dict[str, str]], body: Any, named: set[str]
) -> None:
    _, auth = owner
    response = await api.client.put(f"/cobv/{_txid()}", json=body, headers=auth)
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    problem = response.json()
    assert problem["type"] in {COBV_TYPE + "CobVOperacaoInvalida", COBV_TYPE + "RequisicaoInvalida"}
    assert problem["status"] == response.status_code
    named_now = {v.get("propriedade") for v in problem.get("violacoes", [])}
    assert named <= named_now, named_now


async def test_hostile_txids_and_patches(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    for txid in ("short", "a" * 36, "abc%00" + "a" * 30):
        response = await api.client.put(f"/cobv/{txid}", json=cobv(_due(api)), headers=auth)
        assert response.status_code in {400, 404}, txid
        assert response.headers["content-type"].startswith(PROBLEM)
    created = await _create(api, auth, cobv(_due(api)))
    path = f"/cobv/{created['txid']}"
    for patch_body in (
        {},
        {"status": "CONCLUIDA"},
        {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR", "solicitacaoPagador": "x"},
        {"unknown": 1},
        {"valor": {"original": "-1.00"}},
        {"devedor": {"cpf": "1"}},
    ):
        response = await api.client.patch(path, json=patch_body, headers=auth)
        assert response.status_code == 400, (patch_body, response.text)
        assert response.headers["content-type"].startswith(PROBLEM)
    assert (await api.client.get(path, headers=auth)).json()["revisao"] == 0


async def test_two_payments_at_once_credit_once(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    created = await _create(api, auth, cobv(_due(api), "33.33"))
    before = await _balance(api, auth)
    answers = await asyncio.gather(*(_pay(api, auth, created["pixCopiaECola"]) for _ in range(4)))
    assert sorted(a.status_code for a in answers) == [201, 422, 422, 422]
    assert await _balance(api, auth) == before + Decimal("33.33")


async def test_the_console_shows_and_pays_a_cobv(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    due = _due(api)
    body = cobv(due, "50.00")
    body["valor"]["desconto"] = {
        "modalidade": 1,
        "descontoDataFixa": [{"data": due.isoformat(), "valorPerc": "5.00"}],
    }
    created = await _create(api, auth, body)
    before = await _balance(api, auth)
    await sign_in(api.client, client)
    path = f"/console/charges/{created['txid']}"
    assert f'href="{path}"' in (await api.client.get("/console/charges")).text
    page = await api.client.get(path)
    assert page.status_code == 200
    assert 'id="charge-status">Open<' in page.text  # ATIVA, in the console's word
    paid = await api.client.post(path + "/pay", data={"csrf": csrf_of(page)})
    assert paid.status_code in {200, 303}, paid.text
    assert 'id="charge-status">Paid<' in (await api.client.get(path)).text  # CONCLUIDA
    assert await _balance(api, auth) == before + Decimal("45.00")  # the amount due today
