"""Errors of Pix Automático on the standard's face: its problem+json with each operation's type
and every broken rule a ``violacoes`` item; a body read as the document reads it (a member it
does not define ignored, a ``null`` refused); another account's ids not found; no recurrences on
our own face."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.recurrences.conftest import Receiver, new_receiver, problem, rec_body
from tests.support import bearer, new_client


async def test_every_broken_rule_of_a_recurrence_is_a_violation(receiver: Receiver) -> None:
    body = rec_body(receiver.today())
    body["calendario"] |= {"periodicidade": "DIARIA", "dataInicial": "2020-01-01"}
    body["valor"] = {"valorRec": "35.00", "valorMinimoRecebedor": "10.00"}
    refused = problem(await receiver.call("POST", "/rec", json=body), 400, "RecOperacaoInvalida")
    assert [v["propriedade"] for v in refused["violacoes"]] == ["calendario.periodicidade"]
    body["calendario"]["periodicidade"] = "MENSAL"
    refused = problem(await receiver.call("POST", "/rec", json=body), 400, "RecOperacaoInvalida")
    named = [v["propriedade"] for v in refused["violacoes"]]
    assert "calendario.dataInicial" in named
    assert any(name.startswith("valor.") for name in named)  # valorRec and valorMinimoRecebedor


async def test_unknown_members_are_ignored_and_null_refused(receiver: Receiver) -> None:
    body = rec_body(receiver.today()) | {"novidade": {"x": 1}}
    body["vinculo"] |= {"outro": "campo"}
    created = await receiver.call("POST", "/rec", json=body)
    assert created.status_code == 201, created.text
    with_null = rec_body(receiver.today()) | {"valor": None}
    refused = problem(await receiver.call("POST", "/rec", json=with_null), 400, "RecOperacaoInvalida")
    assert refused["violacoes"][0]["propriedade"] == "valor"


async def test_types_of_each_operation(receiver: Receiver) -> None:
    problem(await receiver.call("GET", "/rec/RN0000000000000000000000000000"), 404, "RecNaoEncontrada")
    problem(
        await receiver.call("GET", "/solicrec/SC0000000000000000000000000000"), 404, "SolicRecNaoEncontrada"
    )
    problem(await receiver.call("GET", "/cobr/abcdefghijklmnopqrstuvwxyz0"), 404, "CobRNaoEncontrado")
    problem(await receiver.call("GET", "/locrec/999999999"), 404, "PayloadLocationRecNaoEncontrado")
    problem(await receiver.call("GET", "/locrec/not-a-number"), 404, "PayloadLocationRecNaoEncontrado")
    problem(await receiver.call("GET", "/rec", params={"inicio": "x"}), 400, "RecConsultaInvalida")
    problem(await receiver.call("GET", "/cobr", params={"inicio": "x"}), 400, "CobRConsultaInvalida")
    problem(
        await receiver.call("GET", "/locrec", params={"inicio": "x"}),
        400,
        "PayloadLocationRecConsultaInvalida",
    )
    rec = await receiver.recurrence()
    not_approved = await receiver.call(
        "POST",
        "/cobr",
        json={
            "idRec": rec["idRec"],
            "calendario": {"dataDeVencimento": str(receiver.today())},
            "valor": {"original": "35.00"},
            "recebedor": {"conta": receiver.client.opened.account.number, "tipoConta": "CORRENTE"},
        },
    )
    body = problem(not_approved, 400, "CobROperacaoInvalida")
    assert body["violacoes"][0]["propriedade"] == "idRec"
    bad_date = await receiver.call("POST", "/cobr/abcdefghijklmnopqrstuvwxyz0/retentativa/tomorrow")
    problem(bad_date, 400, "CobROperacaoInvalida")
    no_cancel = await receiver.call("PATCH", f"/rec/{rec['idRec']}", json={"status": "APROVADA"})
    problem(no_cancel, 400, "RecOperacaoInvalida")


async def test_another_accounts_ids_are_not_found_and_our_face_has_none(receiver: Receiver) -> None:
    rec = await receiver.located_recurrence()
    theirs = await new_receiver(receiver.api, receiver.uow)
    problem(await theirs.call("GET", f"/rec/{rec['idRec']}"), 404, "RecNaoEncontrada")
    problem(await theirs.call("GET", f"/locrec/{rec['loc']['id']}"), 404, "PayloadLocationRecNaoEncontrado")
    code = await receiver.code_of(rec["idRec"])
    stolen = await theirs.http.post(
        "/sandbox/rec/authorize",
        json={
            "pixCopiaECola": code["pixCopiaECola"],
            "payer": {"document": "11144477735", "ispb": "12345678"},
        },
        headers=theirs.auth,
    )
    assert stolen.status_code == 404, stolen.text
    ours = await receiver.http.get(f"/rec/{rec['idRec']}", headers=receiver.auth)
    assert ours.status_code == 404


async def test_a_persons_account_receives_no_recurrence(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    person = await new_client(pg_uow)
    auth = await bearer(api.client, person)
    today = (datetime.now(UTC) - timedelta(hours=3)).date()
    refused = await api.client.post("/bcb/v2/rec", json=rec_body(today), headers=auth)
    body = problem(refused, 400, "RecOperacaoInvalida")
    assert "company" in body["detail"], body
    assert [violation["propriedade"] for violation in body["violacoes"]] == ["recebedor"], body
    now = datetime.now(UTC)
    window = {"inicio": (now - timedelta(days=1)).isoformat(), "fim": (now + timedelta(days=1)).isoformat()}
    listed = await api.client.get("/bcb/v2/rec", params=window, headers=auth)
    assert listed.status_code == 200, listed.text
    assert listed.json()["recs"] == []
