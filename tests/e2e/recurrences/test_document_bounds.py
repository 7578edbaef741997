"""What the standard's document allows of Pix Automático is accepted, and what it refuses is
answered with the statuses its operations document: empty texts (its schemas set no minimum), a
cancellation with other changes, a charge's revision without a status, an ``idRec`` that names no
recurrence (``POST /cobr`` has no 404), a charge's ``recebedor`` naming its holder."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.e2e.recurrences.conftest import Receiver, cobr_body, later, problem, rec_body


async def _approved(receiver: Receiver) -> dict[str, Any]:
    rec = await receiver.located_recurrence()
    answered = await receiver.authorize(rec["idRec"])
    assert answered.status_code == 200, answered.text
    return rec


async def test_empty_texts_are_texts(receiver: Receiver) -> None:
    body = rec_body(receiver.today(), debtor=receiver.payer["document"])
    body["vinculo"] |= {"contrato": "", "objeto": ""}
    body["vinculo"]["devedor"]["nome"] = ""
    created = await receiver.call("POST", "/rec", json=body | {"recebedor": {"convenio": ""}})
    assert created.status_code == 201, created.text
    link = created.json()["vinculo"]
    assert (link["contrato"], link["objeto"], link["devedor"]["nome"]) == ("", "", "")
    expires = (receiver.api.clock.now() + timedelta(days=3)).isoformat()
    request = {
        "idRec": created.json()["idRec"],
        "calendario": {"dataExpiracaoSolicitacao": expires},
        "destinatario": {"cpf": receiver.payer["document"], "conta": "", "ispbParticipante": "12345678"},
    }
    asked = await receiver.call("POST", "/solicrec", json=request)
    assert asked.status_code == 201, asked.text
    assert asked.json()["destinatario"]["conta"] == ""

    rec = await _approved(receiver)
    charge = cobr_body(
        rec["idRec"], later(receiver.today(), 3), receiver.client.opened.account.number, "35.00"
    )
    charged = await receiver.call("POST", "/cobr", json=charge | {"infoAdicional": ""})
    assert charged.status_code == 201, charged.text
    assert charged.json()["infoAdicional"] == ""


async def test_a_text_longer_than_the_document_allows_is_refused(receiver: Receiver) -> None:
    body = rec_body(receiver.today())
    body["vinculo"]["contrato"] = "x" * 36
    refused = problem(await receiver.call("POST", "/rec", json=body), 400, "RecOperacaoInvalida")
    assert [v["propriedade"] for v in refused["violacoes"]] == ["vinculo.contrato"]


async def test_a_cancellation_may_come_with_changes(receiver: Receiver) -> None:
    rec = await receiver.recurrence()
    changed = await receiver.call(
        "PATCH",
        f"/rec/{rec['idRec']}",
        json={"status": "CANCELADA", "vinculo": {"devedor": {"nome": "Beltrano"}}},
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["status"] == "CANCELADA"
    assert changed.json()["vinculo"]["devedor"]["nome"] == "Beltrano"
    read = (await receiver.call("GET", f"/rec/{rec['idRec']}")).json()
    assert (read["status"], read["vinculo"]["devedor"]["nome"]) == ("CANCELADA", "Beltrano")


async def test_a_cancellation_with_a_change_it_refuses_cancels_nothing(receiver: Receiver) -> None:
    rec = await receiver.recurrence()
    past = (receiver.today() - timedelta(days=1)).isoformat()
    refused = await receiver.call(
        "PATCH", f"/rec/{rec['idRec']}", json={"status": "CANCELADA", "calendario": {"dataInicial": past}}
    )
    problem(refused, 400, "RecOperacaoInvalida")
    assert (await receiver.call("GET", f"/rec/{rec['idRec']}")).json()["status"] == "CRIADA"


async def test_a_charge_revision_without_status_changes_nothing(receiver: Receiver) -> None:
    rec = await _approved(receiver)
    created = await receiver.charge(rec["idRec"], later(receiver.today(), 3))
    account = receiver.client.opened.account
    assert created["recebedor"] == {
        "conta": account.number,
        "tipoConta": "CORRENTE",
        "nome": account.name,
        "cnpj": account.document,
    }
    unchanged = await receiver.call("PATCH", f"/cobr/{created['txid']}", json={})
    assert unchanged.status_code == 200, unchanged.text
    assert unchanged.json()["status"] == created["status"] == "CRIADA"
    cancelled = await receiver.call("PATCH", f"/cobr/{created['txid']}", json={"status": "CANCELADA"})
    assert cancelled.json()["status"] == "CANCELADA"
    missing = await receiver.call("PATCH", "/cobr/abcdefghijklmnopqrstuvwxyz0", json={})
    problem(missing, 404, "CobRNaoEncontrado")


async def test_a_charge_of_no_recurrence_is_an_invalid_operation(receiver: Receiver) -> None:
    body = cobr_body(
        "RN1234567820240115abcdefghijk", receiver.today(), receiver.client.opened.account.number, "35.00"
    )
    for method, path in (("POST", "/cobr"), ("PUT", "/cobr/abcdefghijklmnopqrstuvwxyz0")):
        refused = problem(await receiver.call(method, path, json=body), 400, "CobROperacaoInvalida")
        assert [v["propriedade"] for v in refused["violacoes"]] == ["idRec"]


async def test_the_largest_amount_the_document_writes_is_an_amount(receiver: Receiver) -> None:
    created = await receiver.recurrence(valor={"valorRec": "9999999999.99"})
    assert created["valor"] == {"valorRec": "9999999999.99"}
    too_large = await receiver.call(
        "POST", "/rec", json=rec_body(receiver.today()) | {"valor": {"valorRec": "99999999999.99"}}
    )
    problem(too_large, 400, "RecOperacaoInvalida")
