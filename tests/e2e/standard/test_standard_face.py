"""The central bank's standard as a face of its own, under ``PIX_STANDARD_PREFIX`` (``/bcb/v2``):
the same charges as the root's, shown and refused as the standard says."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pixcore import brcode
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, bearer, new_client

STD = "/bcb/v2"
PROBLEM = "application/problem+json"
TYPE = "https://pix.bcb.gov.br/api/v2/error/"


def cob(original: str = "10.00", **extra: Any) -> dict[str, Any]:
    return {"calendario": {"expiracao": 3600}, "valor": {"original": original}} | extra


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


def key_of(client: Client) -> str:
    return client.opened.keys[0].value


def problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["type"] == TYPE + kind, body
    assert body["status"] == status
    return body


async def test_a_charge_made_on_one_face_is_read_on_the_other(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    created = await api.client.post(f"{STD}/cob", json=cob(chave=key_of(client)), headers=auth)
    assert created.status_code == 201, created.text
    standard = created.json()
    ours = (await api.client.get(f"/cob/{standard['txid']}", headers=auth)).json()
    # The standard's location is the payload URL without scheme (at most 77); the code is pixCopiaECola.
    assert standard["location"] == standard["loc"]["location"]
    assert len(standard["location"]) <= 77
    assert "://" not in standard["location"]
    assert standard["location"].endswith("/qr/v2/" + standard["location"].rsplit("/", 1)[1])
    assert brcode.decode(standard["pixCopiaECola"]).location == standard["location"]
    # Ours carries the code itself in location, as our specification says.
    assert ours["location"] == ours["pixCopiaECola"] == standard["pixCopiaECola"]
    again = (await api.client.get(f"{STD}/cob/{standard['txid']}", headers=auth)).json()
    assert again == standard


async def test_no_token_is_the_standards_403(api: Api) -> None:
    response = await api.client.get(f"{STD}/cob/abcdefghijklmnopqrstuvwxyz0")
    problem(response, 403, "AcessoNegado")
    ours = await api.client.get("/cob/abcdefghijklmnopqrstuvwxyz0")
    assert ours.status_code == 401


async def test_errors_are_problems_whatever_accept_asks(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    missing = await api.client.get(
        f"{STD}/cob/abcdefghijklmnopqrstuvwxyz0", headers=auth | {"Accept": "application/json"}
    )
    problem(missing, 404, "CobNaoEncontrado")
    unrouted = await api.client.get(f"{STD}/nothing/here", headers=auth)
    problem(unrouted, 404, "NaoEncontrado")


async def test_put_of_an_active_charge_revises_it(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    txid = "putrevises00000000000000001"
    chave = key_of(client)
    first = await api.client.put(
        f"{STD}/cob/{txid}", json=cob("10.00", solicitacaoPagador="first", chave=chave), headers=auth
    )
    assert first.status_code == 201, first.text
    second = await api.client.put(f"{STD}/cob/{txid}", json=cob("12.34", chave=chave), headers=auth)
    assert second.status_code == 201, second.text
    revised = second.json()
    assert revised["revisao"] == 1
    assert revised["valor"]["original"] == "12.34"
    assert "solicitacaoPagador" not in revised  # a PUT states the whole charge
    assert revised["location"] == first.json()["location"]  # at the same location
    assert brcode.decode(revised["pixCopiaECola"]).amount == 1234
    # Ours keeps the seed's rule: a txid in use is a 409.
    ours = await api.client.put(f"/cob/{txid}", json=cob("1.00"), headers=auth)
    assert ours.status_code == 409


async def test_put_and_patch_of_a_charge_that_is_not_active_are_the_standards_400(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    txid = "putcancelled000000000000001"
    body = cob(chave=key_of(client))
    assert (await api.client.put(f"{STD}/cob/{txid}", json=body, headers=auth)).status_code == 201
    cancel = {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}
    assert (await api.client.patch(f"{STD}/cob/{txid}", json=cancel, headers=auth)).status_code == 200
    problem(await api.client.put(f"{STD}/cob/{txid}", json=body, headers=auth), 400, "CobOperacaoInvalida")
    problem(
        await api.client.patch(f"{STD}/cob/{txid}", json=cancel, headers=auth), 400, "CobOperacaoInvalida"
    )
    ours = await api.client.patch(f"/cob/{txid}", json=cancel, headers=auth)
    assert ours.status_code == 422


async def test_put_of_an_active_cobv_revises_it(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    txid = "putcobvrevises0000000000001"
    due = (api.clock.now().date() + timedelta(days=10)).isoformat()
    body = {
        "calendario": {"dataDeVencimento": due},
        "devedor": {"cpf": "52998224725", "nome": "João Souza"},
        "valor": {"original": "100.00"},
        "chave": key_of(client),
    }
    first = await api.client.put(f"{STD}/cobv/{txid}", json=body, headers=auth)
    assert first.status_code == 201, first.text
    assert "/qr/v2/cobv/" in first.json()["location"]
    body["valor"] = {"original": "90.00", "multa": {"modalidade": 2, "valorPerc": "2.00"}}
    second = await api.client.put(f"{STD}/cobv/{txid}", json=body, headers=auth)
    assert second.status_code == 201, second.text
    assert second.json()["revisao"] == 1
    assert second.json()["valor"] == {"original": "90.00", "multa": {"modalidade": 2, "valorPerc": "2.00"}}
    ours = await api.client.put(f"/cobv/{txid}", json=body, headers=auth)
    assert ours.status_code == 409


async def test_a_body_is_read_as_the_standards_document_reads_it(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    txid = "bodiesread00000000000000001"
    made = await api.client.put(f"{STD}/cob/{txid}", json=cob(chave=key_of(client)), headers=auth)
    assert made.status_code == 201, made.text
    # A member the document does not define is allowed (and ignored), on a revision too.
    extra = {"valor": {"original": "11.00", "moeda": "BRL"}, "outro": {"a": 1}}
    revised = await api.client.patch(f"{STD}/cob/{txid}", json=extra, headers=auth)
    assert revised.status_code == 200, revised.text
    assert revised.json()["valor"] == {"original": "11.00", "modalidadeAlteracao": 0}
    ours = await api.client.patch(f"/cob/{txid}", json=extra, headers=auth)
    assert ours.status_code == 400
    # No null anywhere: the document has no nullable field; each is named.
    nulls = {"solicitacaoPagador": None, "devedor": {"cpf": "52998224725", "nome": None}}
    refused = problem(
        await api.client.patch(f"{STD}/cob/{txid}", json=nulls, headers=auth), 400, "CobOperacaoInvalida"
    )
    assert {v["propriedade"] for v in refused["violacoes"]} == {"solicitacaoPagador", "devedor.nome"}
    # chave is required by the document (ours takes the account's first key).
    keyless = problem(
        await api.client.post(f"{STD}/cob", json=cob(), headers=auth), 400, "CobOperacaoInvalida"
    )
    assert "chave" in keyless["violacoes"][0]["razao"]
    assert (await api.client.post("/cob", json=cob(), headers=auth)).status_code == 201


async def test_the_standards_document_is_served_on_its_face(api: Api) -> None:
    response = await api.client.get(f"{STD}/openapi.json")  # public, as /schema is
    assert response.status_code == 200, response.text
    document = response.json()
    assert document["info"]["version"] == "2.9.0"
    assert document["servers"][0]["url"] == api.settings.public_url + STD
    ours = (await api.client.get("/schema/openapi.json")).json()
    assert not [path for path in ours["paths"] if path.startswith(STD)]


async def test_a_refund_asked_again_and_refusals_are_the_standards(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    paid = await api.client.post(
        "/sandbox/payments",
        json={
            "pixKey": key_of(client),
            "amount": "50.00",
            "payer": {"name": "Payer", "document": "11144477735"},
        },
        headers=auth,
    )
    assert paid.status_code == 201, paid.text
    e2e = paid.json()["endToEndId"]
    path = f"{STD}/pix/{e2e}/devolucao/standardrefund1"
    first = await api.client.put(path, json={"valor": "10.00"}, headers=auth)
    assert first.status_code == 201, first.text
    again = await api.client.put(path, json={"valor": "10.00"}, headers=auth)
    assert again.status_code == 201  # the standard has no 200 here; ours answers 200
    assert again.json() == first.json()
    assert (
        await api.client.put(f"/pix/{e2e}/devolucao/standardrefund1", json={"valor": "10.00"}, headers=auth)
    ).status_code == 200
    other = await api.client.put(path, json={"valor": "11.00"}, headers=auth)
    problem(other, 400, "PixDevolucaoInvalida")  # ours: 409
    too_much = await api.client.put(
        f"{STD}/pix/{e2e}/devolucao/standardrefund2", json={"valor": "45.00"}, headers=auth
    )
    problem(too_much, 400, "PixDevolucaoInvalida")  # ours: 422
    problem(
        await api.client.get(f"{STD}/pix/{e2e}/devolucao/none", headers=auth),
        404,
        "PixDevolucaoNaoEncontrada",
    )


async def test_put_of_a_batch_creates_or_revises_and_answers_no_body(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    due = (api.clock.now().date() + timedelta(days=10)).isoformat()

    def item(txid: str, original: str) -> dict[str, Any]:
        return {
            "txid": txid,
            "calendario": {"dataDeVencimento": due},
            "devedor": {"cpf": "52998224725", "nome": "João Souza"},
            "valor": {"original": original},
            "chave": key_of(client),
        }

    path = f"{STD}/lotecobv/31337"
    first = await api.client.put(
        path, json={"descricao": "lote", "cobsv": [item("lotestd0000000000000000001", "10.00")]}, headers=auth
    )
    assert first.status_code == 202, first.text
    assert first.content == b""
    body = {"descricao": "lote revisto", "cobsv": [item("lotestd0000000000000000001", "12.00")]}
    second = await api.client.put(path, json=body, headers=auth)
    assert second.status_code == 202, second.text
    batch = (await api.client.get(path, headers=auth)).json()
    assert batch["descricao"] == "lote revisto"
    assert [(c["txid"], c["status"]) for c in batch["cobsv"]] == [("lotestd0000000000000000001", "CRIADA")]
    # Once made, a batch gains and loses no charge.
    more = {"descricao": "lote", "cobsv": [*body["cobsv"], item("lotestd0000000000000000002", "20.00")]}
    problem(await api.client.put(path, json=more, headers=auth), 400, "LoteCobVOperacaoInvalida")
    revised = (await api.client.get(f"{STD}/cobv/lotestd0000000000000000001", headers=auth)).json()
    assert (revised["revisao"], revised["valor"]["original"]) == (1, "12.00")
    ours = await api.client.put("/lotecobv/31337", json=body, headers=auth)
    assert ours.status_code == 400


async def test_payload_errors_are_the_standards(api: Api) -> None:
    missing = await api.client.get(f"/qr/v2/{'0' * 32}", headers={"Accept": "application/json"})
    problem(missing, 404, "CobPayloadNaoEncontrado")
    problem(await api.client.get(f"/qr/v2/cobv/{'0' * 32}"), 404, "CobPayloadNaoEncontrado")


async def test_list_parameters_are_read_as_the_standards_document_reads_them(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    now = api.clock.now()
    window = {"inicio": (now - timedelta(hours=1)).isoformat(), "fim": (now + timedelta(hours=1)).isoformat()}
    # Any text is a status there: one no charge has lists nothing, echoed as given.
    listed = await api.client.get(f"{STD}/cob", params=window | {"status": "PAGA"}, headers=auth)
    assert listed.status_code == 200, listed.text
    assert listed.json()["cobs"] == []
    assert listed.json()["parametros"]["status"] == "PAGA"
    assert (await api.client.get("/cob", params=window | {"status": "PAGA"}, headers=auth)).status_code == 400
    # An empty value is the text it is, which no typed parameter takes (ours: no value).
    empty = await api.client.get(
        f"{STD}/cob", params=window | {"cpf": "", "locationPresente": ""}, headers=auth
    )
    refused = problem(empty, 400, "CobConsultaInvalida")
    assert {v["propriedade"] for v in refused["violacoes"]} == {"cpf", "locationPresente"}
    assert (await api.client.get("/cob", params=window | {"cpf": ""}, headers=auth)).status_code == 200


async def test_a_nul_in_the_query_string_is_judged_by_the_parameters_rules(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    now = api.clock.now()
    window = f"inicio={(now - timedelta(hours=1)).isoformat()}&fim={(now + timedelta(hours=1)).isoformat()}"
    window = window.replace("+", "%2B")
    listed = await api.client.get(f"{STD}/cob?{window}&status=A%00", headers=auth)
    assert listed.status_code == 200, listed.text
    assert listed.json()["cobs"] == []
    problem(await api.client.get(f"{STD}/cob?{window}&cpf=1%00", headers=auth), 400, "CobConsultaInvalida")
    ours = await api.client.get(f"/cob?{window}&status=A%00", headers=auth)
    assert ours.status_code == 400


async def test_a_path_text_of_the_wrong_form_names_nothing(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    problem(await api.client.get(f"{STD}/pix/{'a' * 33}", headers=auth), 404, "PixNaoEncontrado")
    problem(await api.client.get(f"{STD}/pix/T", headers=auth), 404, "PixNaoEncontrado")
    problem(await api.client.get(f"{STD}/webhook/{'0' * 78}", headers=auth), 404, "WebhookNaoEncontrado")
    problem(await api.client.delete(f"{STD}/webhook/{'0' * 78}", headers=auth), 404, "WebhookNaoEncontrado")
    e2e = "E" + "0" * 31
    missing = await api.client.get(f"{STD}/pix/{e2e}/devolucao/%C2%84", headers=auth)
    problem(missing, 404, "PixDevolucaoNaoEncontrada")


async def test_unknown_members_are_ignored_whatever_they_hold(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    body = b'{"tipoCob": "cob", "x": {"a": null, "b": "\\u0000", "c": [null, {"d": "\\ud83d\\ude00"}]}}'
    json_type = {"Content-Type": "application/json"}
    created = await api.client.post(f"{STD}/loc", content=body, headers=auth | json_type)
    assert created.status_code == 201, created.text
    refused = await api.client.post(f"{STD}/loc", json={"tipoCob": "cob\u0000"}, headers=auth)
    assert refused.status_code == 400


async def test_a_revision_the_charge_never_had_and_a_missing_charge_are_404s(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    txid = "revisionsnone00000000000001"
    made = await api.client.put(f"{STD}/cob/{txid}", json=cob(chave=key_of(client)), headers=auth)
    assert made.status_code == 201, made.text
    problem(await api.client.get(f"{STD}/cob/{txid}?revisao=-5", headers=auth), 404, "CobNaoEncontrado")
    problem(await api.client.get(f"{STD}/cob/{txid}?revisao=7", headers=auth), 404, "CobNaoEncontrado")
    assert (await api.client.get(f"/cob/{txid}?revisao=7", headers=auth)).status_code == 400  # ours
    # A revision of a charge not there: its 404 comes first, whatever the body; {} changes nothing.
    cancel_and_more = {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR", "solicitacaoPagador": "x"}
    absent = await api.client.patch(
        f"{STD}/cob/nothinghere0000000000000001", json=cancel_and_more, headers=auth
    )
    problem(absent, 404, "CobNaoEncontrado")
    same = await api.client.patch(f"{STD}/cob/{txid}", json={}, headers=auth)
    assert same.status_code == 200, same.text
    assert same.json()["revisao"] == 0
