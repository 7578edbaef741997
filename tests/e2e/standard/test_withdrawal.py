"""Pix Saque and Pix Troco (a ``cob``'s ``valor.retirada``) on the standard's face, end to end:
accepted with the document's rules, refused as the standard refuses, kept and shown (``GET``, a
revision, the payload the payer's PSP reads), and paid for ``original`` plus the cash."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
import pytest

from pixcore import brcode
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.standard.test_standard_face import STD, key_of, problem
from tests.support import Client, bearer, new_client

SAQUE = {"valor": "5.00", "modalidadeAgente": "AGPSS", "prestadorDoServicoDeSaque": "12345678"}
TROCO = {"valor": "5.00", "modalidadeAgente": "AGTEC", "prestadorDoServicoDeSaque": "12345678"}


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


def cob(client: Client, valor: dict[str, Any]) -> dict[str, Any]:
    return {"calendario": {"expiracao": 3600}, "valor": valor, "chave": key_of(client)}


async def _payload(api: Api, charge: dict[str, Any]) -> dict[str, Any]:
    token = charge["location"].rsplit("/", 1)[1]
    response = await api.client.get(f"/qr/v2/{token}")
    assert response.status_code == 200, response.text
    claims: dict[str, Any] = jwt.decode(response.text, options={"verify_signature": False})
    return claims


async def _pay(api: Api, auth: dict[str, str], charge: dict[str, Any], amount: float | None) -> Any:
    body: dict[str, Any] = {"pixCopiaECola": charge["pixCopiaECola"]}
    if amount is not None:
        body["amount"] = amount
    return await api.client.post("/sandbox/payments", json=body, headers=auth)


async def test_a_saque_is_kept_shown_in_the_payload_and_paid_for_its_cash(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    valor = {"original": "0.00", "retirada": {"saque": SAQUE}}
    created = await api.client.post(f"{STD}/cob", json=cob(client, valor), headers=auth)
    assert created.status_code == 201, created.text
    charge = created.json()
    shown = {
        "original": "0.00",
        "modalidadeAlteracao": 0,
        "retirada": {"saque": SAQUE | {"modalidadeAlteracao": 0}},
    }
    assert charge["valor"] == shown
    read = await api.client.get(f"{STD}/cob/{charge['txid']}", headers=auth)
    assert read.json()["valor"] == shown
    assert (await _payload(api, charge))["valor"] == {"original": "0.00", "retirada": shown["retirada"]}
    # Our face shows it too (the same charge).
    assert (await api.client.get(f"/cob/{charge['txid']}", headers=auth)).json()["valor"] == shown

    wrong = await _pay(api, auth, charge, 4.99)
    assert wrong.status_code == 422, wrong.text
    paid = await _pay(api, auth, charge, None)
    assert paid.status_code == 201, paid.text
    received = await api.client.get(f"{STD}/pix/{paid.json()['endToEndId']}", headers=auth)
    assert received.json()["valor"] == "5.00"
    assert received.json()["componentesValor"] == {"original": {"valor": "0.00"}, "saque": SAQUE}
    concluded = (await api.client.get(f"{STD}/cob/{charge['txid']}", headers=auth)).json()
    assert concluded["status"] == "CONCLUIDA"
    assert [pix["componentesValor"] for pix in concluded["pix"]] == [received.json()["componentesValor"]]
    listed = await api.client.get(f"{STD}/pix", params=_today(), headers=auth)
    assert [pix["componentesValor"] for pix in listed.json()["pix"]] == [received.json()["componentesValor"]]


async def test_a_troco_is_paid_for_original_and_the_cash(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    txid = "trocopaid000000000000000001"
    valor = {"original": "10.00", "retirada": {"troco": TROCO}}
    made = await api.client.put(f"{STD}/cob/{txid}", json=cob(client, valor), headers=auth)
    assert made.status_code == 201, made.text
    charge = made.json()
    assert charge["valor"]["retirada"] == {"troco": TROCO | {"modalidadeAlteracao": 0}}
    code = brcode.decode(charge["pixCopiaECola"])
    assert (code.location, code.fss, code.amount) == (charge["location"], "12345678", 1000)
    assert (await _pay(api, auth, charge, 10.00)).status_code == 422
    paid = await _pay(api, auth, charge, 15.00)
    assert paid.status_code == 201, paid.text
    received = await api.client.get(f"{STD}/pix/{paid.json()['endToEndId']}", headers=auth)
    assert received.json()["valor"] == "15.00"
    assert received.json()["componentesValor"] == {"original": {"valor": "10.00"}, "troco": TROCO}


async def test_an_alterable_troco_takes_any_cash_above_the_original(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    troco = TROCO | {"valor": "0.00", "modalidadeAlteracao": 1}
    valor = {"original": "10.00", "retirada": {"troco": troco}}
    created = await api.client.post(f"{STD}/cob", json=cob(client, valor), headers=auth)
    assert created.status_code == 201, created.text
    charge = created.json()
    assert (await _pay(api, auth, charge, 9.99)).status_code == 422
    paid = await _pay(api, auth, charge, 32.50)
    assert paid.status_code == 201, paid.text
    received = await api.client.get(f"{STD}/pix/{paid.json()['endToEndId']}", headers=auth)
    assert received.json()["valor"] == "32.50"
    cash = TROCO | {"valor": "22.50"}  # the payer changed the cash, never the purchase
    assert received.json()["componentesValor"] == {"original": {"valor": "10.00"}, "troco": cash}


@pytest.mark.parametrize(
    ("valor", "where"),
    [
        (
            {"original": "0.00", "retirada": {"saque": {"valor": "5.00"}}},
            {
                "valor.retirada.saque.modalidadeAgente",
                "valor.retirada.saque.prestadorDoServicoDeSaque",
            },
        ),
        ({"original": "100.00", "retirada": {"saque": SAQUE, "troco": TROCO}}, {"valor.retirada"}),
        ({"original": "0.00", "retirada": {}}, {"valor.retirada"}),
        ({"original": "10.00", "retirada": {"saque": SAQUE}}, {"valor.original"}),
        ({"original": "0.00", "retirada": {"troco": TROCO}}, {"valor.original"}),
        (
            {
                "original": "0.00",
                "modalidadeAlteracao": 1,
                "retirada": {"saque": SAQUE | {"modalidadeAlteracao": 1}},
            },
            {"valor.modalidadeAlteracao"},
        ),
        (
            {
                "original": "0.01",
                "modalidadeAlteracao": 1,
                "retirada": {"troco": TROCO | {"modalidadeAlteracao": 1}},
            },
            {"valor.modalidadeAlteracao"},
        ),
        (
            {"original": "10.00", "retirada": {"troco": TROCO | {"modalidadeAgente": "AGPSS"}}},
            {"valor.retirada.troco.modalidadeAgente"},
        ),
        (
            {"original": "0.00", "retirada": {"saque": SAQUE | {"prestadorDoServicoDeSaque": "1234567"}}},
            {"valor.retirada.saque.prestadorDoServicoDeSaque"},
        ),
        (
            {"original": "0.00", "retirada": {"saque": SAQUE | {"valor": "0.00"}}},
            {"valor.retirada.saque.valor"},
        ),
        ({"original": "0.00", "retirada": {"saque": SAQUE | {"valor": 5}}}, {"valor.retirada.saque.valor"}),
        (
            {"original": "0.00", "retirada": {"saque": SAQUE | {"modalidadeAlteracao": 2}}},
            {"valor.retirada.saque.modalidadeAlteracao"},
        ),
    ],
    ids=[
        "no-agent-nor-facilitator",
        "saque-and-troco",
        "neither",
        "saque-with-original",
        "troco-without-original",
        "saque-original-alterable",
        "troco-original-alterable",
        "troco-by-a-facilitator",
        "short-ispb",
        "fixed-saque-of-zero",
        "amount-not-text",
        "modality-2",
    ],
)
async def test_what_the_document_forbids_is_its_400(
    api: Api, owner: tuple[Client, dict[str, str]], valor: dict[str, Any], where: set[str]
) -> None:
    client, auth = owner
    refused = problem(
        await api.client.post(f"{STD}/cob", json=cob(client, valor), headers=auth), 400, "CobOperacaoInvalida"
    )
    assert {v["propriedade"] for v in refused["violacoes"]} == where


async def test_a_revision_keeps_the_withdrawal_and_is_judged_with_it(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    txid = "trocorevised000000000000001"
    valor = {"original": "10.00", "retirada": {"troco": TROCO}}
    assert (
        await api.client.put(f"{STD}/cob/{txid}", json=cob(client, valor), headers=auth)
    ).status_code == 201
    revised = await api.client.patch(f"{STD}/cob/{txid}", json={"valor": {"original": "12.00"}}, headers=auth)
    assert revised.status_code == 200, revised.text
    assert revised.json()["valor"]["retirada"] == {"troco": TROCO | {"modalidadeAlteracao": 0}}
    to_zero = await api.client.patch(f"{STD}/cob/{txid}", json={"valor": {"original": "0.00"}}, headers=auth)
    assert {v["propriedade"] for v in problem(to_zero, 400, "CobOperacaoInvalida")["violacoes"]} == {
        "valor.original"
    }
    more = {"valor": {"retirada": {"troco": TROCO | {"valor": "20.00"}}}}
    revised = await api.client.patch(f"{STD}/cob/{txid}", json=more, headers=auth)
    assert revised.status_code == 200, revised.text
    assert revised.json()["valor"]["retirada"]["troco"]["valor"] == "20.00"
    kept = await api.client.get(f"{STD}/cob/{txid}", params={"revisao": 0}, headers=auth)
    assert kept.json()["valor"]["retirada"]["troco"]["valor"] == "5.00"
    assert kept.json()["valor"]["original"] == "10.00"


async def test_beside_a_whole_saque_a_troco_that_is_none_is_a_member_its_branch_does_not_define(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    for other in (None, False, {"valor": "1.00"}):
        valor = {"original": "0.00", "retirada": {"saque": SAQUE, "troco": other}}
        created = await api.client.post(f"{STD}/cob", json=cob(client, valor), headers=auth)
        assert created.status_code == 201, created.text
        assert created.json()["valor"]["retirada"] == {"saque": SAQUE | {"modalidadeAlteracao": 0}}


def _today() -> dict[str, str]:
    now = datetime.now(UTC)
    return {"inicio": (now - timedelta(days=1)).isoformat(), "fim": (now + timedelta(days=1)).isoformat()}


async def _refund(api: Api, auth: dict[str, str], e2e: str, refund_id: str, body: dict[str, str]) -> Any:
    return await api.client.put(f"{STD}/pix/{e2e}/devolucao/{refund_id}", json=body, headers=auth)


def _seed_problem(response: Any, text: str) -> None:
    """Our face's error shape, the broken rule (naming ``natureza``) its one detail."""
    assert response.status_code == 400, response.text
    assert response.json() == {
        "statusCode": 400,
        "error": "Bad Request",
        "message": f"Invalid refund: {text}",
        "details": [text],
    }


def _violated(body: dict[str, Any]) -> list[str]:
    return [violation["propriedade"] for violation in body.get("violacoes", [])]


async def test_a_troco_is_refunded_by_nature_each_part_up_to_itself(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    valor = {"original": "10.00", "retirada": {"troco": TROCO}}
    created = await api.client.post(f"{STD}/cob", json=cob(client, valor), headers=auth)
    paid = await _pay(api, auth, created.json(), 15.00)
    e2e = paid.json()["endToEndId"]

    cash_too_much = await _refund(api, auth, e2e, "troco1", {"valor": "5.01", "natureza": "RETIRADA"})
    assert "at most 5.00" in str(problem(cash_too_much, 400, "PixDevolucaoInvalida"))
    purchase_too_much = await _refund(api, auth, e2e, "troco2", {"valor": "10.01"})
    assert "at most 10.00" in str(problem(purchase_too_much, 400, "PixDevolucaoInvalida"))
    cash = await _refund(api, auth, e2e, "troco3", {"valor": "5.00", "natureza": "RETIRADA"})
    assert cash.status_code == 201, cash.text
    more_cash = await _refund(api, auth, e2e, "troco4", {"valor": "0.01", "natureza": "RETIRADA"})
    problem(more_cash, 400, "PixDevolucaoInvalida")
    purchase = await _refund(api, auth, e2e, "troco5", {"valor": "10.00", "natureza": "ORIGINAL"})
    assert purchase.status_code == 201, purchase.text
    received = await api.client.get(f"{STD}/pix/{e2e}", headers=auth)
    refunds = {(r["valor"], r["natureza"]) for r in received.json()["devolucoes"]}
    assert refunds == {("5.00", "RETIRADA"), ("10.00", "ORIGINAL")}


async def test_a_saque_is_refunded_as_retirada_only(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    valor = {"original": "0.00", "retirada": {"saque": SAQUE}}
    created = await api.client.post(f"{STD}/cob", json=cob(client, valor), headers=auth)
    e2e = (await _pay(api, auth, created.json(), None)).json()["endToEndId"]

    as_original = await _refund(api, auth, e2e, "saque1", {"valor": "1.00", "natureza": "ORIGINAL"})
    assert _violated(problem(as_original, 400, "PixDevolucaoInvalida")) == ["natureza"]
    ours = await api.client.put(f"/pix/{e2e}/devolucao/saque1", json={"valor": "1.00"}, headers=auth)
    _seed_problem(
        ours, "natureza: ORIGINAL refunds a purchase; this Pix Saque had none (RETIRADA refunds its cash)"
    )
    as_cash = await _refund(api, auth, e2e, "saque2", {"valor": "5.00", "natureza": "RETIRADA"})
    assert as_cash.status_code == 201, as_cash.text


async def test_a_pix_without_cash_has_no_retirada_to_refund(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    created = await api.client.post(f"{STD}/cob", json=cob(client, {"original": "20.00"}), headers=auth)
    paid = await _pay(api, auth, created.json(), None)
    e2e = paid.json()["endToEndId"]
    received = await api.client.get(f"{STD}/pix/{e2e}", headers=auth)
    assert received.json()["componentesValor"] == {"original": {"valor": "20.00"}}

    as_cash = await _refund(api, auth, e2e, "plain1", {"valor": "1.00", "natureza": "RETIRADA"})
    assert _violated(problem(as_cash, 400, "PixDevolucaoInvalida")) == ["natureza"]
    ours = await api.client.put(
        f"/pix/{e2e}/devolucao/plain1", json={"valor": "1.00", "natureza": "RETIRADA"}, headers=auth
    )
    _seed_problem(ours, "natureza: RETIRADA refunds the cash of a Pix Saque or Troco; this PIX paid out none")
    whole = await _refund(api, auth, e2e, "plain2", {"valor": "20.00"})
    assert whole.status_code == 201, whole.text
