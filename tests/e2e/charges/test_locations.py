"""Payload locations (``/loc``) end to end: create, read, list, link a charge to one (``loc.id`` in
``PUT``/``POST /cob``, ``PUT /cobv`` and the ``PATCH``es), unlink it (the charge then has no
location: no BR Code, no payload, listed by ``locationPresente=false``), the BR Code and QR image
of a location, and the refusals in the standard's problem+json. Bodies are checked against the
standard's own schemas (``PayloadLocation``, ``PayloadLocationCompleta``,
``PayloadLocationConsultadas``), unchanged: a location's ``location`` is the 77-character URL.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import io
import secrets
import string
from datetime import timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
import zxingcpp
from PIL import Image
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from pixcore import brcode
from pixcore.clock import format_timestamp
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_charge_schemas import validator as cob_validator
from tests.e2e.charges.test_cobv import _due, cobv
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import sign_in
from tests.support import Client, bearer, new_client

REFERENCE = Path(__file__).parents[2] / "data" / "bcb-pix-api-openapi.yaml"
URI = "urn:bcb-pix-api-loc"
PROBLEM = "application/problem+json"
ERROR = "https://pix.bcb.gov.br/api/v2/error/"


@functools.cache
def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(REFERENCE.read_text(encoding="utf-8"))
    return loaded


def validator(name: str) -> jsonschema.Draft4Validator:
    resource = Resource.from_contents(_document(), default_specification=DRAFT4)
    registry: Registry[Any] = Registry().with_resource(URI, resource)
    return jsonschema.Draft4Validator({"$ref": f"{URI}#/components/schemas/{name}"}, registry=registry)


def _txid() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))


def _cob(**extra: Any) -> dict[str, Any]:
    return {"calendario": {"expiracao": 3600}, "valor": {"original": "12.34"}} | extra


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def _location(api: Api, auth: dict[str, str], kind: str = "cob") -> dict[str, Any]:
    response = await api.client.post("/loc", json={"tipoCob": kind}, headers=auth)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    validator("PayloadLocation").validate(created)
    return created


async def _pay(api: Api, auth: dict[str, str], code: str) -> Any:
    return await api.client.post("/sandbox/payments", json={"pixCopiaECola": code}, headers=auth)


def _window(api: Api) -> str:
    now = api.clock.now()
    start = format_timestamp(now - timedelta(hours=1)).replace("+", "%2B")
    end = format_timestamp(now + timedelta(hours=1)).replace("+", "%2B")
    return f"inicio={start}&fim={end}"


def test_the_schemas_catch_a_broken_location() -> None:
    assert list(validator("PayloadLocation").iter_errors({"id": "1", "tipoCob": "pix"}))
    assert list(validator("PayloadLocationCompleta").iter_errors({"id": 1, "location": "x" * 78}))


async def test_create_read_and_the_standard_schema(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    created = await _location(api, auth)
    assert created["tipoCob"] == "cob"
    assert "txid" not in created
    assert created["location"].startswith(api.settings.location_prefix)
    assert "/cobv/" not in created["location"]
    due = await _location(api, auth, "cobv")
    assert due["location"].startswith(api.settings.location_prefix + "cobv/")
    assert due["id"] != created["id"]

    read = await api.client.get(f"/loc/{created['id']}", headers=auth)
    assert read.status_code == 200
    assert read.json() == created
    validator("PayloadLocationCompleta").validate(read.json())


async def test_a_charge_at_a_location_made_before_it_is_paid_there(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    location = await _location(api, auth)
    txid = _txid()
    response = await api.client.put(f"/cob/{txid}", json=_cob(loc={"id": location["id"]}), headers=auth)
    assert response.status_code == 201, response.text
    charge = response.json()
    cob_validator("CobCompleta").validate(charge)
    assert charge["loc"]["id"] == location["id"]
    assert charge["loc"]["criacao"] == location["criacao"]
    assert brcode.decode(charge["pixCopiaECola"]).location == location["location"]

    read = (await api.client.get(f"/loc/{location['id']}", headers=auth)).json()
    assert read == location | {"txid": txid}
    validator("PayloadLocationCompleta").validate(read)

    paid = await _pay(api, auth, charge["pixCopiaECola"])
    assert paid.status_code in {200, 201}, paid.text
    assert (await api.client.get(f"/cob/{txid}", headers=auth)).json()["status"] == "CONCLUIDA"


async def test_post_cob_and_put_cobv_take_a_location(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    location = await _location(api, auth)
    response = await api.client.post("/cob", json=_cob(loc={"id": location["id"]}), headers=auth)
    assert response.status_code == 201, response.text
    assert response.json()["loc"]["id"] == location["id"]

    due_location = await _location(api, auth, "cobv")
    body = cobv(_due(api)) | {"loc": {"id": due_location["id"]}}
    response = await api.client.put(f"/cobv/{_txid()}", json=body, headers=auth)
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["loc"] == {
        "id": due_location["id"],
        "location": created["pixCopiaECola"],
        "tipoCob": "cobv",
        "criacao": due_location["criacao"],
        "txid": created["txid"],
    }
    payload_id = due_location["location"].rsplit("/", 1)[1]
    assert (await api.client.get(f"/qr/v2/cobv/{payload_id}")).status_code == 200


async def test_a_location_that_cannot_serve_the_charge_is_refused(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    other = await bearer(api.client, await new_client(pg_uow))
    foreign = await _location(api, other)
    due_location = await _location(api, auth, "cobv")
    taken = await _location(api, auth)
    assert (
        await api.client.put(f"/cob/{_txid()}", json=_cob(loc={"id": taken["id"]}), headers=auth)
    ).status_code == 201
    for loc, why in [
        ({"id": foreign["id"]}, "no location of your account"),
        ({"id": 2**62}, "no location of your account"),
        ({"id": due_location["id"]}, "tipoCob cobv, not cob"),
        ({"id": taken["id"]}, "serves the charge"),
        ({"id": "1"}, "must be an integer"),
        ({"id": 0}, "must be an integer"),
        ({"id": 2**63}, "must be an integer"),
        ({}, "must be an integer"),
    ]:
        response = await api.client.post("/cob", json=_cob(loc=loc), headers=auth)
        assert response.status_code == 400, (loc, response.text)
        assert response.headers["content-type"].startswith(PROBLEM)
        problem = response.json()
        assert problem["type"] == ERROR + "CobOperacaoInvalida"
        assert [v["propriedade"] for v in problem["violacoes"]] == ["loc.id"], problem
        assert why in problem["violacoes"][0]["razao"]
    # A cobv refuses a cob location as a cob refuses a cobv one.
    cob_location = await _location(api, auth)
    response = await api.client.put(
        f"/cobv/{_txid()}", json=cobv(_due(api)) | {"loc": {"id": cob_location["id"]}}, headers=auth
    )
    assert response.status_code == 400
    assert response.json()["type"] == ERROR + "CobVOperacaoInvalida"
    # Nothing was linked by the refusals.
    assert "txid" not in (await api.client.get(f"/loc/{foreign['id']}", headers=other)).json()
    assert "txid" not in (await api.client.get(f"/loc/{cob_location['id']}", headers=auth)).json()


async def test_unlinking_leaves_the_charge_without_a_location(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    txid = _txid()
    created = (await api.client.put(f"/cob/{txid}", json=_cob(), headers=auth)).json()
    loc_id = created["loc"]["id"]
    code = created["pixCopiaECola"]
    token = brcode.decode(code).location.rsplit("/", 1)[1]  # type: ignore[union-attr]
    assert (await api.client.get(f"/qr/v2/{token}")).status_code == 200

    response = await api.client.delete(f"/loc/{loc_id}/txid", headers=auth)
    assert response.status_code == 200, response.text
    unlinked = response.json()
    validator("PayloadLocation").validate(unlinked)
    assert "txid" not in unlinked
    assert unlinked["id"] == loc_id
    assert (await api.client.get(f"/loc/{loc_id}", headers=auth)).json() == unlinked

    charge = (await api.client.get(f"/cob/{txid}", headers=auth)).json()
    cob_validator("CobCompleta").validate(charge)
    assert charge["status"] == "ATIVA"  # the standard: the status does not change
    assert not {"loc", "location", "pixCopiaECola"} & charge.keys()
    assert (await api.client.get(f"/qr/v2/{token}")).status_code == 404
    refused = await _pay(api, auth, code)
    assert refused.status_code == 404, refused.text
    assert (await api.client.get(f"/cob/{txid}", headers=auth)).json()["status"] == "ATIVA"

    window = _window(api)
    without = (await api.client.get(f"/cob?{window}&locationPresente=false", headers=auth)).json()
    assert [c["txid"] for c in without["cobs"]] == [txid]
    with_location = (await api.client.get(f"/cob?{window}&locationPresente=true", headers=auth)).json()
    assert txid not in [c["txid"] for c in with_location["cobs"]]

    # Unlinking again changes nothing; the same location, or another, may take the charge back.
    again = await api.client.delete(f"/loc/{loc_id}/txid", headers=auth)
    assert again.status_code == 200
    assert again.json() == unlinked
    fresh = await _location(api, auth)
    patched = await api.client.patch(f"/cob/{txid}", json={"loc": {"id": fresh["id"]}}, headers=auth)
    assert patched.status_code == 200, patched.text
    revised = patched.json()
    assert revised["loc"]["id"] == fresh["id"]
    assert revised["revisao"] == 1
    assert brcode.decode(revised["pixCopiaECola"]).location == fresh["location"]
    # The old location now serves another charge.
    other_txid = _txid()
    linked = await api.client.put(f"/cob/{other_txid}", json=_cob(loc={"id": loc_id}), headers=auth)
    assert linked.status_code == 201, linked.text
    assert brcode.decode(linked.json()["pixCopiaECola"]).location == unlinked["location"]
    paid = await _pay(api, auth, revised["pixCopiaECola"])
    assert paid.status_code in {200, 201}, paid.text
    assert (await api.client.get(f"/cob/{txid}", headers=auth)).json()["status"] == "CONCLUIDA"
    assert (await api.client.get(f"/cob/{other_txid}", headers=auth)).json()["status"] == "ATIVA"


async def test_patch_cobv_moves_it_to_another_location(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    txid = _txid()
    created = (await api.client.put(f"/cobv/{txid}", json=cobv(_due(api)), headers=auth)).json()
    fresh = await _location(api, auth, "cobv")
    response = await api.client.patch(f"/cobv/{txid}", json={"loc": {"id": fresh["id"]}}, headers=auth)
    assert response.status_code == 200, response.text
    moved = response.json()
    assert moved["loc"]["id"] == fresh["id"] != created["loc"]["id"]
    assert brcode.decode(moved["pixCopiaECola"]).location == fresh["location"]
    # The revision the move made is kept with the new location's code (read back once it is old).
    later = await api.client.patch(f"/cobv/{txid}", json={"solicitacaoPagador": "later"}, headers=auth)
    assert later.status_code == 200, later.text
    kept = await api.client.get(f"/cobv/{txid}", params={"revisao": "1"}, headers=auth)
    assert kept.json() == moved
    old = (await api.client.get(f"/loc/{created['loc']['id']}", headers=auth)).json()
    assert "txid" not in old
    wrong = await _location(api, auth)
    refused = await api.client.patch(f"/cobv/{txid}", json={"loc": {"id": wrong["id"]}}, headers=auth)
    assert refused.status_code == 400
    assert refused.json()["violacoes"][0]["propriedade"] == "loc.id"


async def test_list_with_filters_and_pages(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    free = await _location(api, auth)
    due = await _location(api, auth, "cobv")
    charge = (await api.client.put(f"/cob/{_txid()}", json=_cob(), headers=auth)).json()
    window = _window(api)

    async def ids(query: str) -> list[int]:
        response = await api.client.get(f"/loc?{window}{query}", headers=auth)
        assert response.status_code == 200, response.text
        body = response.json()
        validator("PayloadLocationConsultadas").validate(body)
        return [item["id"] for item in body["loc"]]

    assert await ids("") == [free["id"], due["id"], charge["loc"]["id"]]
    assert await ids("&tipoCob=cobv") == [due["id"]]
    assert await ids("&txIdPresente=true") == [charge["loc"]["id"]]
    assert await ids("&txIdPresente=false&tipoCob=cob") == [free["id"]]
    assert await ids("&paginacao.itensPorPagina=2&paginacao.paginaAtual=1") == [charge["loc"]["id"]]
    listed = (await api.client.get(f"/loc?{window}&txIdPresente=true", headers=auth)).json()
    assert listed["loc"][0]["txid"] == charge["txid"]
    assert listed["parametros"]["txIdPresente"] is True
    assert listed["parametros"]["paginacao"]["quantidadeTotalDeItens"] == 1


async def test_a_bad_query_lists_every_broken_parameter(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    response = await api.client.get(
        "/loc?inicio=2026-03-02T00:00:00Z&fim=2026-03-01T00:00:00Z&txIdPresente=yes&tipoCob=pix"
        "&paginacao.itensPorPagina=0",
        headers=auth,
    )
    assert response.status_code == 400
    assert response.headers["content-type"].startswith(PROBLEM)
    problem = response.json()
    assert problem["type"] == ERROR + "PayloadLocationConsultaInvalida"
    assert {v["propriedade"] for v in problem["violacoes"]} == {
        "fim",
        "txIdPresente",
        "tipoCob",
        "paginacao.itensPorPagina",
    }
    missing = await api.client.get("/loc", headers=auth)
    assert missing.status_code == 400
    assert {v["propriedade"] for v in missing.json()["violacoes"]} == {"inicio", "fim"}


async def test_the_qr_code_of_a_location(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    charge = (await api.client.put(f"/cob/{_txid()}", json=_cob(), headers=auth)).json()
    response = await api.client.get(f"/loc/{charge['loc']['id']}/qrcode", headers=auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["qrcode"] == charge["pixCopiaECola"]
    prefix = "data:image/png;base64,"
    assert body["imagemQrcode"].startswith(prefix)
    image = Image.open(io.BytesIO(base64.b64decode(body["imagemQrcode"].removeprefix(prefix))))
    assert [found.text for found in zxingcpp.read_barcodes(image)] == [body["qrcode"]]

    free = await _location(api, auth)
    code = (await api.client.get(f"/loc/{free['id']}/qrcode", headers=auth)).json()["qrcode"]
    decoded = brcode.decode(code)
    assert decoded.location == free["location"]
    assert decoded.amount is None
    assert decoded.merchant_name == "Test Holder"
    assert client.opened.account.name == "Test Holder"


async def test_hostile_bodies_and_ids(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    for body in [{}, {"tipoCob": "COB"}, {"tipoCob": None}, {"tipoCob": 1}, {"tipoCob": "cob\x00"}, []]:
        response = await api.client.post("/loc", json=body, headers=auth)
        assert response.status_code == 400, (body, response.text)
        assert response.headers["content-type"].startswith(PROBLEM)
        assert response.json()["type"] == ERROR + "PayloadLocationOperacaoInvalida"
    raw = await api.client.post(
        "/loc", content=b'{"tipoCob": "cob', headers=auth | {"content-type": "application/json"}
    )
    assert raw.status_code == 400
    for text in ["%00"]:  # a NUL: refused at the edge, as in any path
        for method, path in [
            ("GET", f"/loc/{text}"),
            ("GET", f"/loc/{text}/qrcode"),
            ("DELETE", f"/loc/{text}/txid"),
        ]:
            response = await api.client.request(method, path, headers=auth)
            assert response.status_code == 400, (path, response.text)
            assert response.headers["content-type"].startswith(PROBLEM)
    for text in ["0", "-1", "1.5", "abc", "9" * 19, "9" * 40, "1" * 20, "1%20", "x" * 3000]:
        for path in [f"/loc/{text}", f"/loc/{text}/qrcode"]:
            response = await api.client.get(path, headers=auth)
            assert response.status_code == 404, (path, response.text)
            assert response.headers["content-type"].startswith(PROBLEM)
        response = await api.client.delete(f"/loc/{text}/txid", headers=auth)
        assert response.status_code == 404, (text, response.text)
        assert response.json()["type"] == ERROR + "PayloadLocationNaoEncontrado"


async def test_another_accounts_location_is_not_found(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    other = await bearer(api.client, await new_client(pg_uow))
    charge = (await api.client.put(f"/cob/{_txid()}", json=_cob(), headers=auth)).json()
    loc_id = charge["loc"]["id"]
    for method, path in [
        ("GET", f"/loc/{loc_id}"),
        ("GET", f"/loc/{loc_id}/qrcode"),
        ("DELETE", f"/loc/{loc_id}/txid"),
    ]:
        response = await api.client.request(method, path, headers=other)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["type"] == ERROR + "PayloadLocationNaoEncontrado"
    assert (await api.client.get(f"/loc/{loc_id}", headers=auth)).json()["txid"] == charge["txid"]
    window = _window(api)
    assert (await api.client.get(f"/loc?{window}", headers=other)).json()["loc"] == []


async def test_the_console_shows_a_charge_without_a_location(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    txid = _txid()
    created = (await api.client.put(f"/cob/{txid}", json=_cob(), headers=auth)).json()
    await sign_in(api.client, client)
    page = await api.client.get(f"/console/charges/{txid}")
    assert created["pixCopiaECola"] in page.text
    assert f"/console/charges/{txid}/pay" in page.text
    assert (await api.client.get(f"/console/charges/{txid}/qr.png")).status_code == 200

    assert (await api.client.delete(f"/loc/{created['loc']['id']}/txid", headers=auth)).status_code == 200
    page = await api.client.get(f"/console/charges/{txid}")
    assert page.status_code == 200
    assert 'id="no-location"' in page.text
    assert created["pixCopiaECola"] not in page.text
    assert f"/console/charges/{txid}/pay" not in page.text  # nothing to pay it with
    assert (await api.client.get(f"/console/charges/{txid}/qr.png")).status_code == 404


async def test_two_charges_racing_for_one_location_link_one(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    for _ in range(3):
        location = await _location(api, auth)
        body = _cob(loc={"id": location["id"]})
        answers = await asyncio.gather(*(api.client.post("/cob", json=body, headers=auth) for _ in range(4)))
        statuses = sorted(answer.status_code for answer in answers)
        assert statuses == [201, 400, 400, 400], [answer.text for answer in answers]
        (winner,) = [answer.json() for answer in answers if answer.status_code == 201]
        for answer in answers:
            if answer.status_code == 400:
                assert answer.json()["violacoes"][0]["propriedade"] == "loc.id"
        read = (await api.client.get(f"/loc/{location['id']}", headers=auth)).json()
        assert read["txid"] == winner["txid"]
