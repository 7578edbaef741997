"""The central bank's standard Pix API, first slice: ``POST /cob``, ``GET /cob``, ``PATCH /cob/{txid}``
revisions, ``GET /pix`` and ``GET /pix/{e2eid}``, and the standard's ``application/problem+json`` errors on
the new endpoints (the old ones keep ours unless ``Accept`` asks for it)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
import pytest

from pixcore import brcode
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_charge_schemas import validator
from tests.e2e.conftest import Api
from tests.support import Client, bearer, new_client, random_cpf

PROBLEM = "application/problem+json"
TXID = re.compile(r"[a-zA-Z0-9]{26,35}")


def cob(original: str = "10.00", **extra: Any) -> dict[str, Any]:
    return {"calendario": {"expiracao": 3600}, "valor": {"original": original}} | extra


def window(api: Api, **extra: Any) -> dict[str, Any]:
    now = api.clock.now()
    start = (now - timedelta(hours=1)).isoformat()
    end = (now + timedelta(hours=1)).isoformat()
    return {"inicio": start, "fim": end} | extra


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


@pytest.fixture
async def stranger(pg_uow: UnitOfWorkFactory, api: Api) -> dict[str, str]:
    return await bearer(api.client, await new_client(pg_uow))


async def _post(api: Api, auth: dict[str, str], body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await api.client.post("/cob", json=body or cob(), headers=auth)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _pay(api: Api, auth: dict[str, str], code: str, document: str = "11144477735") -> str:
    response = await api.client.post(
        "/sandbox/payments",
        json={"pixCopiaECola": code, "payer": {"name": "Payer", "document": document}},
        headers=auth,
    )
    assert response.status_code in {200, 201}, response.text
    e2e: str = response.json()["endToEndId"]
    return e2e


def _problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["type"] == f"https://pix.bcb.gov.br/api/v2/error/{kind}"
    assert body["status"] == status
    assert body["title"]
    assert body["detail"]
    return body


# POST /cob


async def test_post_cob_creates_a_charge_under_a_txid_the_service_chose(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    created = await _post(api, auth, cob("12.34", solicitacaoPagador="Order 1"))
    assert TXID.fullmatch(created["txid"])
    assert created["status"] == "ATIVA"
    assert created["revisao"] == 0
    assert created["valor"]["original"] == "12.34"
    assert created["chave"] == client.opened.keys[0].value
    validator("CobGerada").validate(created)
    again = await api.client.get(f"/cob/{created['txid']}", headers=auth)
    assert again.json()["txid"] == created["txid"]
    other = await _post(api, auth)
    assert other["txid"] != created["txid"]


async def test_post_cob_reports_every_broken_rule_as_the_standard_problem(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    body = {
        "calendario": {"expiracao": 0},
        "valor": {"original": "1.234"},
        "devedor": {"nome": "Sem documento"},
    }
    problem = _problem(await api.client.post("/cob", json=body, headers=auth), 400, "CobOperacaoInvalida")
    properties = {v["propriedade"] for v in problem["violacoes"]}
    assert {"calendario.expiracao", "valor.original", "devedor.nome"} <= properties
    assert all(v["razao"] for v in problem["violacoes"])
    validator("Problema").validate(problem)


@pytest.mark.parametrize(
    "body",
    [
        {"calendario": {}, "valor": {"original": "1.00"}, "solicitacaoPagador": "a\x00b"},
        {"calendario": {}, "valor": {"original": "9" * 5000 + ".00"}},
        {"calendario": {"expiracao": 10**30}, "valor": {"original": "1.00"}},
        {"calendario": [], "valor": "x"},
    ],
    ids=["nul", "huge-amount", "huge-expiry", "wrong-types"],
)
async def test_post_cob_refuses_hostile_bodies_with_a_problem(
    api: Api, owner: tuple[Client, dict[str, str]], body: dict[str, Any]
) -> None:
    _, auth = owner
    response = await api.client.post("/cob", json=body, headers=auth)
    _problem(response, 400, "CobOperacaoInvalida")


async def test_post_cob_refuses_deep_nesting_and_bad_json_with_a_problem(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    headers = auth | {"Content-Type": "application/json"}
    deep = '{"calendario": {}, "valor": ' + "[" * 10_000 + "]" * 10_000 + "}"
    for content in (deep, '{"calendario": {', b'{"valor": "\xff"}'):
        response = await api.client.post("/cob", content=content, headers=headers)
        _problem(response, 400, "CobOperacaoInvalida")


async def test_post_cob_without_a_token_is_a_problem_too(api: Api) -> None:
    response = await api.client.post("/cob", json=cob())
    _problem(response, 401, "AcessoNegado")


# GET /cob


async def test_get_cob_lists_the_accounts_charges_in_the_window_with_its_pages(
    api: Api, owner: tuple[Client, dict[str, str]], stranger: dict[str, str]
) -> None:
    _, auth = owner
    made = [await _post(api, auth, cob(f"{n}.00")) for n in range(1, 6)]
    await _post(api, stranger)  # another account's: never listed
    response = await api.client.get("/cob", params=window(api), headers=auth)
    assert response.status_code == 200, response.text
    listed = response.json()
    # The standard's CobsConsultadas requires an ``idCob`` in each item, a field it defines nowhere
    # (a defect of its file): the list is checked without its items, each item as CobCompleta.
    validator("CobsConsultadas").validate(listed | {"cobs": []})
    for item in listed["cobs"]:
        validator("CobCompleta").validate(item)
    assert [c["txid"] for c in listed["cobs"]] == [c["txid"] for c in made]
    assert listed["parametros"]["paginacao"] == {
        "paginaAtual": 0,
        "itensPorPagina": 100,
        "quantidadeDePaginas": 1,
        "quantidadeTotalDeItens": 5,
    }
    pages: list[str] = []
    for number in range(3):
        params = window(api) | {"paginacao.paginaAtual": number, "paginacao.itensPorPagina": 2}
        page = (await api.client.get("/cob", params=params, headers=auth)).json()
        assert page["parametros"]["paginacao"]["quantidadeDePaginas"] == 3
        assert page["parametros"]["paginacao"]["quantidadeTotalDeItens"] == 5
        pages.extend(c["txid"] for c in page["cobs"])
    assert pages == [c["txid"] for c in made]
    beyond = window(api) | {"paginacao.paginaAtual": 9, "paginacao.itensPorPagina": 2}
    assert (await api.client.get("/cob", params=beyond, headers=auth)).json()["cobs"] == []
    earlier = {"inicio": "2020-01-01T00:00:00Z", "fim": "2020-01-02T00:00:00-03:00"}
    assert (await api.client.get("/cob", params=earlier, headers=auth)).json()["cobs"] == []


async def test_get_cob_filters_by_debtor_status_and_location(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    cpf = random_cpf()
    with_debtor = await _post(api, auth, cob(devedor={"cpf": cpf, "nome": "Fulano"}))
    cancelled = await _post(api, auth)
    response = await api.client.patch(
        f"/cob/{cancelled['txid']}", json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth
    )
    assert response.status_code == 200
    paid = await _post(api, auth)
    await _pay(api, auth, paid["pixCopiaECola"])

    async def txids(**extra: Any) -> list[str]:
        response = await api.client.get("/cob", params=window(api, **extra), headers=auth)
        assert response.status_code == 200, response.text
        return [c["txid"] for c in response.json()["cobs"]]

    assert await txids(cpf=cpf) == [with_debtor["txid"]]
    assert await txids(cpf=random_cpf()) == []
    assert await txids(status="REMOVIDA_PELO_USUARIO_RECEBEDOR") == [cancelled["txid"]]
    assert await txids(status="CONCLUIDA") == [paid["txid"]]
    assert await txids(status="ATIVA") == [with_debtor["txid"]]
    assert await txids(locationPresente="false") == []
    assert len(await txids(locationPresente="true")) == 3
    # An expired charge reads REMOVIDA_PELO_PSP before the sweep writes it.
    api.clock.advance(7200)
    auth = await bearer(api.client, client)  # the first token expired meanwhile
    later = {"inicio": "2020-01-01T00:00:00Z", "fim": "2099-01-01T00:00:00Z"}
    assert await txids(**later, status="ATIVA") == []
    assert await txids(**later, status="REMOVIDA_PELO_PSP") == [with_debtor["txid"]]


@pytest.mark.parametrize(
    ("params", "properties"),
    [
        ({}, {"inicio", "fim"}),
        ({"inicio": "2020-01-02T00:00:00Z", "fim": "2020-01-01T00:00:00Z"}, {"fim"}),
        ({"inicio": "yesterday", "fim": "2020-01-01T00:00:00"}, {"inicio", "fim"}),
        ({"inicio": "0001-01-01T00:00:00+01:00", "fim": "9999-12-31T23:59:59-01:00"}, {"inicio", "fim"}),
        ({"cpf": "123", "cnpj": "x" * 14}, {"cpf", "cnpj", "cpf, cnpj"}),
        (
            {"paginacao.paginaAtual": "-1", "paginacao.itensPorPagina": "0"},
            {"paginacao.paginaAtual", "paginacao.itensPorPagina"},
        ),
        (
            {"paginacao.paginaAtual": "9" * 40, "paginacao.itensPorPagina": "1001"},
            {"paginacao.paginaAtual", "paginacao.itensPorPagina"},
        ),
        ({"status": "PAGA", "locationPresente": "maybe"}, {"status", "locationPresente"}),
    ],
    ids=["missing", "reversed", "not-dates", "overflow", "documents", "negative", "huge", "enums"],
)
async def test_get_cob_refuses_hostile_queries_with_every_violation(
    api: Api, owner: tuple[Client, dict[str, str]], params: dict[str, str], properties: set[str]
) -> None:
    _, auth = owner
    base = {"inicio": "2020-01-01T00:00:00Z", "fim": "2020-01-02T00:00:00Z"}
    response = await api.client.get("/cob", params=base | params if params else {}, headers=auth)
    problem = _problem(response, 400, "CobConsultaInvalida")
    assert {v["propriedade"] for v in problem["violacoes"]} >= properties


@pytest.mark.parametrize(
    ("path", "problem_type"),
    [
        ("/cob", "CobConsultaInvalida"),
        ("/cobv", "CobVConsultaInvalida"),
        ("/pix", "PixConsultaInvalida"),
        ("/webhook", "WebhookConsultaInvalida"),
    ],
)
async def test_a_list_parameter_given_twice_is_refused_not_guessed(
    api: Api, owner: tuple[Client, dict[str, str]], path: str, problem_type: str
) -> None:
    _, auth = owner
    query = (
        "inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z"
        "&paginacao.paginaAtual=false&paginacao.paginaAtual=&unknown=1&unknown=2"
    )
    response = await api.client.get(f"{path}?{query}", headers=auth)
    problem = _problem(response, 400, problem_type)
    # Only the list's own parameter: an unknown one is ignored, repeated or not.
    assert {v["propriedade"] for v in problem["violacoes"]} == {"paginacao.paginaAtual"}
    assert "more than once" in problem["detail"]


async def test_get_cob_refuses_nul_bytes_and_huge_values(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    nul = await api.client.get("/cob?inicio=2020-01-01T00:00:00Z%00&fim=2020-01-02T00:00:00Z", headers=auth)
    _problem(nul, 400, "CobConsultaInvalida")
    huge = await api.client.get("/cob", params={"inicio": "2" * 6000, "fim": "x"}, headers=auth)
    assert huge.status_code in {400, 414, 431}
    if huge.status_code == 400:
        _problem(huge, 400, "CobConsultaInvalida")


# PATCH /cob/{txid}


async def test_patch_revises_every_field_the_standard_allows_and_the_payload_shows_it(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    created = await _post(api, auth, cob("10.00", solicitacaoPagador="first"))
    path = f"/cob/{created['txid']}"
    cpf = random_cpf()
    change = {
        "calendario": {"expiracao": 7200},
        "valor": {"original": "25.50", "modalidadeAlteracao": 1},
        "devedor": {"cpf": cpf, "nome": "Beltrano"},
        "chave": client.opened.keys[0].value,
        "solicitacaoPagador": "second",
        "infoAdicionais": [{"nome": "Pedido", "valor": "7"}],
    }
    response = await api.client.patch(path, json=change, headers=auth)
    assert response.status_code == 200, response.text
    revised = response.json()
    assert revised["revisao"] == 1
    assert revised["calendario"]["expiracao"] == 7200
    assert revised["valor"] == {"original": "25.50", "modalidadeAlteracao": 1}
    assert revised["devedor"] == {"cpf": cpf, "nome": "Beltrano"}
    assert revised["solicitacaoPagador"] == "second"
    assert revised["infoAdicionais"] == [{"nome": "Pedido", "valor": "7"}]
    assert revised["loc"]["id"] == created["loc"]["id"]
    code = brcode.decode(revised["pixCopiaECola"])
    assert code.amount == 2550
    assert code.location == brcode.decode(created["pixCopiaECola"]).location
    # A part left out is kept; the revision grows again.
    second = (await api.client.patch(path, json={"valor": {"original": "30.00"}}, headers=auth)).json()
    assert second["revisao"] == 2
    assert second["valor"] == {"original": "30.00", "modalidadeAlteracao": 1}
    assert second["solicitacaoPagador"] == "second"
    assert (await api.client.get(path, headers=auth)).json() == second
    # The payload at the location shows the revision.
    location_id = code.location.rsplit("/", 1)[1] if code.location else ""
    payload = await api.client.get(f"/qr/v2/{location_id}")
    assert payload.status_code == 200
    claims = jwt.decode(payload.text, options={"verify_signature": False})
    assert claims["revisao"] == 2
    assert claims["valor"]["original"] == "30.00"
    assert claims["solicitacaoPagador"] == "second"
    # Paying pays the revised amount's charge.
    await _pay(api, auth, second["pixCopiaECola"])
    assert (await api.client.get(path, headers=auth)).json()["status"] == "CONCLUIDA"


async def test_patch_refuses_bad_revisions_in_our_shape_and_keeps_the_charge(
    api: Api, owner: tuple[Client, dict[str, str]], stranger: dict[str, str]
) -> None:
    _, auth = owner
    created = await _post(api, auth)
    path = f"/cob/{created['txid']}"
    for body in (
        {},
        {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR", "valor": {"original": "2.00"}},
        {"valor": {"original": "0.00"}},
        {"calendario": {"expiracao": -1}, "chave": "not a key"},
        {"solicitacaoPagador": "x\x00y"},
    ):
        refused = await api.client.patch(path, json=body, headers=auth)
        assert refused.status_code == 400, (body, refused.text)
        assert refused.headers["content-type"].startswith("application/json")
        assert refused.json()["statusCode"] == 400
    assert (
        await api.client.patch(path, json={"valor": {"original": "2.00"}}, headers=stranger)
    ).status_code == 404
    assert (await api.client.get(path, headers=auth)).json() == created
    paid = await _post(api, auth)
    await _pay(api, auth, paid["pixCopiaECola"])
    late = await api.client.patch(f"/cob/{paid['txid']}", json={"valor": {"original": "2.00"}}, headers=auth)
    assert late.status_code == 422


async def test_old_endpoints_answer_the_problem_shape_when_accept_asks(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    missing = "/cob/" + "a" * 30
    ours = await api.client.get(missing, headers=auth)
    assert ours.status_code == 404
    assert ours.json()["statusCode"] == 404
    theirs = await api.client.get(missing, headers=auth | {"Accept": PROBLEM})
    problem = _problem(theirs, 404, "NaoEncontrado")
    validator("Problema").validate(problem)
    invalid = await api.client.patch(missing, json={"status": "PAGA"}, headers=auth | {"Accept": PROBLEM})
    assert {v["propriedade"] for v in _problem(invalid, 400, "RequisicaoInvalida")["violacoes"]} == {"status"}


# GET /pix and GET /pix/{e2eid}


async def test_received_pix_are_listed_filtered_and_read_with_their_refunds(
    api: Api, owner: tuple[Client, dict[str, str]], stranger: dict[str, str]
) -> None:
    client, auth = owner
    payer = random_cpf()
    charge = await _post(api, auth, cob("20.00"))
    by_charge = await _pay(api, auth, charge["pixCopiaECola"], document=payer)
    response = await api.client.post(
        "/sandbox/payments", json={"pixKey": client.opened.keys[0].value, "amount": 5}, headers=auth
    )
    assert response.status_code in {200, 201}, response.text
    by_key = response.json()["endToEndId"]
    refund = await api.client.put(f"/pix/{by_charge}/devolucao/r1", json={"valor": "3.00"}, headers=auth)
    assert refund.status_code == 201, refund.text

    listed = await api.client.get("/pix", params=window(api), headers=auth)
    assert listed.status_code == 200, listed.text
    body = listed.json()
    # The standard's PixConsultados requires ``cobs`` where it means ``pix`` (a defect of its
    # file): its parts are checked instead.
    validator("ParametrosConsultaPix").validate(body["parametros"])
    for item in body["pix"]:
        validator("Pix").validate(item)
    assert [p["endToEndId"] for p in body["pix"]] == [by_charge, by_key]
    first, second = body["pix"]
    assert first["txid"] == charge["txid"]
    assert first["valor"] == "20.00"
    assert [d["id"] for d in first["devolucoes"]] == ["r1"]
    assert "txid" not in second
    assert second["devolucoes"] == []
    assert second["chave"] == client.opened.keys[0].value
    assert body["parametros"]["paginacao"]["quantidadeTotalDeItens"] == 2

    async def e2es(**extra: Any) -> list[str]:
        response = await api.client.get("/pix", params=window(api, **extra), headers=auth)
        assert response.status_code == 200, response.text
        return [p["endToEndId"] for p in response.json()["pix"]]

    assert await e2es(txid=charge["txid"]) == [by_charge]
    assert await e2es(txIdPresente="true") == [by_charge]
    assert await e2es(txIdPresente="false") == [by_key]
    assert await e2es(devolucaoPresente="true") == [by_charge]
    assert await e2es(devolucaoPresente="false") == [by_key]
    assert await e2es(cpf=payer) == [by_charge]
    assert await e2es(**{"paginacao.itensPorPagina": "1", "paginacao.paginaAtual": "1"}) == [by_key]
    assert await api.client.get("/pix", params=window(api), headers=stranger) is not None
    assert (await api.client.get("/pix", params=window(api), headers=stranger)).json()["pix"] == []

    read = await api.client.get(f"/pix/{by_charge}", headers=auth)
    assert read.status_code == 200, read.text
    validator("Pix").validate(read.json())
    assert read.json() == first
    # The paid charge lists the same PIX.
    paid = (await api.client.get(f"/cob/{charge['txid']}", headers=auth)).json()
    assert paid["pix"][0]["endToEndId"] == by_charge
    assert [d["id"] for d in paid["pix"][0]["devolucoes"]] == ["r1"]
    # Another account's PIX is not found, in the standard's shape.
    _problem(await api.client.get(f"/pix/{by_charge}", headers=stranger), 404, "PixNaoEncontrado")
    _problem(await api.client.get("/pix/" + "E" * 32, headers=auth), 404, "PixNaoEncontrado")
    _problem(await api.client.get("/pix/short", headers=auth), 400, "RequisicaoInvalida")
    _problem(await api.client.get("/pix/" + "E" * 31 + "%00", headers=auth), 400, "RequisicaoInvalida")


@pytest.mark.parametrize(
    ("params", "properties"),
    [
        ({"inicio": None}, {"inicio"}),
        (
            {"txid": "not valid!", "txIdPresente": "yes", "devolucaoPresente": "1"},
            {"txid", "txIdPresente", "devolucaoPresente"},
        ),
        ({"cpf": "11144477735", "cnpj": "11222333000181"}, {"cpf, cnpj"}),
        ({"paginacao.itensPorPagina": "1" * 50}, {"paginacao.itensPorPagina"}),
        ({"fim": "2019-01-01T00:00:00Z"}, {"fim"}),
    ],
    ids=["missing", "filters", "both-documents", "huge", "reversed"],
)
async def test_get_pix_refuses_hostile_queries(
    api: Api, owner: tuple[Client, dict[str, str]], params: dict[str, str | None], properties: set[str]
) -> None:
    _, auth = owner
    base: dict[str, str | None] = {"inicio": "2020-01-01T00:00:00Z", "fim": "2020-01-02T00:00:00Z"}
    query = {k: v for k, v in (base | params).items() if v is not None}
    problem = _problem(await api.client.get("/pix", params=query, headers=auth), 400, "PixConsultaInvalida")
    assert {v["propriedade"] for v in problem["violacoes"]} >= properties


async def test_get_pix_window_compares_the_moment_the_money_arrived(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    charge = await _post(api, auth)
    api.clock.advance(1800)
    auth = await bearer(api.client, client)  # the first token expired meanwhile
    e2e = await _pay(api, auth, charge["pixCopiaECola"])
    paid_at = api.clock.now()
    before = {
        "inicio": (paid_at - timedelta(hours=1)).isoformat(),
        "fim": (paid_at - timedelta(minutes=1)).isoformat(),
    }
    after = {
        "inicio": (paid_at - timedelta(minutes=1)).astimezone(UTC).isoformat(),
        "fim": datetime(2099, 1, 1, tzinfo=UTC).isoformat(),
    }
    assert (await api.client.get("/pix", params=before, headers=auth)).json()["pix"] == []
    assert [
        p["endToEndId"] for p in (await api.client.get("/pix", params=after, headers=auth)).json()["pix"]
    ] == [e2e]
