"""Recurring charges over HTTP, debited by the sandbox's payer's bank on their dates in the
sandbox clock's time: paid, short of funds, retried within the window, failed after it."""

from __future__ import annotations

from typing import Any

from tests.e2e.recurrences.conftest import Receiver, available, later, problem


async def _approved(receiver: Receiver, policy: str = "NAO_PERMITE") -> dict[str, Any]:
    rec = await receiver.located_recurrence(politicaRetentativa=policy)
    answered = await receiver.authorize(rec["idRec"])
    assert answered.status_code == 200, answered.text
    return rec


async def _charge(receiver: Receiver, txid: str) -> dict[str, Any]:
    response = await receiver.call("GET", f"/cobr/{txid}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_charge_is_debited_on_its_due_date(receiver: Receiver) -> None:
    rec = await _approved(receiver)
    await receiver.set_balance(100.0)
    created = await receiver.charge(rec["idRec"], later(receiver.today(), 3))
    assert created["status"] == "CRIADA"
    assert [a["status"] for a in created["tentativas"]] == ["SOLICITADA"]
    before = await available(receiver)
    await receiver.bank_day()
    scheduled = await _charge(receiver, created["txid"])
    assert scheduled["status"] == "ATIVA"
    assert scheduled["tentativas"][0]["status"] == "AGENDADA"
    await receiver.bank_day(2)  # the day before: nothing is debited yet
    assert (await _charge(receiver, created["txid"]))["status"] == "ATIVA"
    assert await available(receiver) == before
    await receiver.bank_day(1)
    paid = await _charge(receiver, created["txid"])
    assert paid["status"] == "CONCLUIDA"
    assert paid["tentativas"][0]["status"] == "PAGA"
    (pix,) = paid["pix"]
    assert pix == {
        "endToEndId": paid["tentativas"][0]["endToEndId"],
        "txid": created["txid"],
        "valor": "35.00",
        "horario": pix["horario"],
    }
    assert await available(receiver) == before + 3500
    balance = await receiver.http.get(
        f"/sandbox/payers/{receiver.payer['ispb']}/{receiver.payer['document']}", headers=receiver.auth
    )
    assert balance.json()["balance"] == 65.0


async def test_short_of_funds_without_retries_the_charge_expires(receiver: Receiver) -> None:
    rec = await _approved(receiver)
    await receiver.set_balance(10.0)
    created = await receiver.charge(rec["idRec"], later(receiver.today(), 1))
    before = await available(receiver)
    await receiver.bank_day()
    await receiver.bank_day(1)
    expired = await _charge(receiver, created["txid"])
    assert expired["status"] == "EXPIRADA"
    assert expired["tentativas"][0]["status"] == "EXPIRADA"
    assert "pix" not in expired
    assert await available(receiver) == before
    refused = await receiver.call("POST", f"/cobr/{created['txid']}/retentativa/{later(receiver.today(), 2)}")
    body = problem(refused, 400, "CobROperacaoInvalida")
    assert "retry" in body["detail"].lower()


async def test_a_retry_within_the_window_is_paid(receiver: Receiver) -> None:
    rec = await _approved(receiver, "PERMITE_3R_7D")
    assert rec["idRec"].startswith("RR")
    await receiver.set_balance(10.0)
    created = await receiver.charge(rec["idRec"], later(receiver.today(), 1))
    await receiver.bank_day()
    await receiver.bank_day(1)
    short = await _charge(receiver, created["txid"])
    assert short["status"] == "ATIVA"  # a retry is still possible
    assert short["tentativas"][0]["status"] == "EXPIRADA"
    retry_on = later(receiver.today(), 2)
    asked = await receiver.call("POST", f"/cobr/{created['txid']}/retentativa/{retry_on}")
    assert asked.status_code == 201, asked.text
    second = asked.json()["tentativas"][1]
    assert (second["tipo"], second["status"], second["dataLiquidacao"]) == (
        "NTAG",
        "SOLICITADA",
        str(retry_on),
    )
    again = await receiver.call("POST", f"/cobr/{created['txid']}/retentativa/{later(receiver.today(), 3)}")
    problem(again, 400, "CobROperacaoInvalida")  # one attempt pending already
    await receiver.set_balance(100.0)
    before = await available(receiver)
    await receiver.bank_day()
    await receiver.bank_day(2)
    paid = await _charge(receiver, created["txid"])
    assert paid["status"] == "CONCLUIDA"
    assert [a["status"] for a in paid["tentativas"]] == ["EXPIRADA", "PAGA"]
    assert await available(receiver) == before + 3500


async def test_no_retry_after_the_window_and_the_charge_expires(receiver: Receiver) -> None:
    rec = await _approved(receiver, "PERMITE_3R_7D")
    await receiver.set_balance(0.0)
    created = await receiver.charge(rec["idRec"], later(receiver.today(), 1))
    await receiver.bank_day()
    await receiver.bank_day(1)
    first_date = created["tentativas"][0]["dataLiquidacao"]
    late = await receiver.call("POST", f"/cobr/{created['txid']}/retentativa/{later(receiver.today(), 8)}")
    body = problem(late, 400, "CobROperacaoInvalida")
    assert first_date in body["detail"]
    await receiver.bank_day(7)  # the window closed without a retry
    expired = await _charge(receiver, created["txid"])
    assert expired["status"] == "EXPIRADA"
    too_late = await receiver.call(
        "POST", f"/cobr/{created['txid']}/retentativa/{later(receiver.today(), 1)}"
    )
    problem(too_late, 400, "CobROperacaoInvalida")


async def test_cancel_before_the_first_attempt_not_on_it(receiver: Receiver) -> None:
    rec = await _approved(receiver)
    kept = await receiver.charge(rec["idRec"], receiver.today())
    late = await receiver.call("PATCH", f"/cobr/{kept['txid']}", json={"status": "CANCELADA"})
    problem(late, 400, "CobROperacaoInvalida")
    txid = "cancelcobr" + str(receiver.client.account_id).rjust(20, "0")
    body = {
        "idRec": rec["idRec"],
        "calendario": {"dataDeVencimento": str(later(receiver.today(), 40))},
        "valor": {"original": "35.00"},
        "recebedor": {"conta": receiver.client.opened.account.number, "tipoConta": "CORRENTE"},
    }
    made = await receiver.call("PUT", f"/cobr/{txid}", json=body)
    assert made.status_code == 201, made.text
    assert made.json()["txid"] == txid
    cancelled = await receiver.call("PATCH", f"/cobr/{txid}", json={"status": "CANCELADA"})
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "CANCELADA"
    assert cancelled.json()["encerramento"]["cancelamento"] == {
        "solicitante": "USUARIO_RECEBEDOR",
        "codigo": "SLCR",
        "descricao": "Cancelamento solicitado pelo usuário recebedor",
    }


async def test_lists_of_recurrences_charges_and_locations(receiver: Receiver) -> None:
    rec = await _approved(receiver)
    charge = await receiver.charge(rec["idRec"], later(receiver.today(), 2))
    now = receiver.api.clock.now()
    window = {"inicio": later(now, -1).isoformat(), "fim": later(now, 1).isoformat()}
    recs = (await receiver.call("GET", "/rec", params=window | {"status": "APROVADA"})).json()
    assert [r["idRec"] for r in recs["recs"]] == [rec["idRec"]]
    assert recs["parametros"]["status"] == "APROVADA"
    cobsr = (await receiver.call("GET", "/cobr", params=window | {"idRec": rec["idRec"]})).json()
    assert [c["txid"] for c in cobsr["cobsr"]] == [charge["txid"]]
    locs = (await receiver.call("GET", "/locrec", params=window | {"idRecPresente": "true"})).json()
    assert [loc["idRec"] for loc in locs["loc"]] == [rec["idRec"]]
    unlinked = await receiver.call("DELETE", f"/locrec/{rec['loc']['id']}/idRec")
    assert unlinked.status_code == 200, unlinked.text
    assert "idRec" not in unlinked.json()
    assert "loc" not in (await receiver.call("GET", f"/rec/{rec['idRec']}")).json()
