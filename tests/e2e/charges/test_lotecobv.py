"""Batches of due-date charges (``/lotecobv``) end to end: each charge created or refused on its
own (with the problem ``PUT /cobv/{txid}`` answers), the batch read and listed, its charges listed
by ``GET /cobv?loteCobVId=``, revised by ``PATCH`` each on its own, another account's batch never
seen, whole requests refused, and a batch's charge paid like any. Responses are checked against
the standard's schemas (``LoteCobVConsultado``, ``LotesCobVConsultados``, ``CobVCompleta``).
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from pixcore.charges.batches import MAX_CHARGES
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_cobv import _balance, _cobv_validator, _due, _pay, _txid, cobv
from tests.e2e.conftest import Api
from tests.support import Client, bearer, new_client

PROBLEM = "application/problem+json"
TYPE = "https://pix.bcb.gov.br/api/v2/error/"


def _batch_id() -> int:
    return secrets.randbelow(2**31 - 1) + 1


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


def _window(api: Api) -> dict[str, str]:
    return {
        "inicio": (api.clock.now() - timedelta(minutes=1)).isoformat(),
        "fim": (api.clock.now() + timedelta(minutes=1)).isoformat(),
    }


async def _put(api: Api, auth: dict[str, str], batch_id: int, body: Any) -> Any:
    return await api.client.put(f"/lotecobv/{batch_id}", json=body, headers=auth)


async def _read(api: Api, auth: dict[str, str], batch_id: int) -> dict[str, Any]:
    response = await api.client.get(f"/lotecobv/{batch_id}", headers=auth)
    assert response.status_code == 200, response.text
    batch: dict[str, Any] = response.json()
    _cobv_validator("LoteCobVConsultado").validate(batch)
    return batch


async def _listed(api: Api, auth: dict[str, str], batch_id: int) -> list[str]:
    params = _window(api) | {"loteCobVId": str(batch_id)}
    response = await api.client.get("/cobv", params=params, headers=auth)
    assert response.status_code == 200, response.text
    return sorted(c["txid"] for c in response.json()["cobs"])


def _refused(problem: dict[str, Any], status: int, kind: str) -> set[str]:
    assert problem["type"] == TYPE + kind
    assert problem["status"] == status
    return {v.get("propriedade") for v in problem.get("violacoes", [])}


def test_the_schema_catches_a_broken_batch() -> None:
    broken = {"id": "1", "descricao": 1, "criacao": "x", "cobsv": [{"txid": "x", "status": "PAGA"}]}
    assert len(list(_cobv_validator("LoteCobVConsultado").iter_errors(broken))) >= 3


async def test_each_charge_is_created_or_refused_on_its_own(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    batch_id, due = _batch_id(), _due(api)
    good, other, no_debtor, bad_type = _txid(), _txid(), _txid(), _txid()
    body = {
        "descricao": "Turno vespertino",
        "cobsv": [
            cobv(due, "100.00") | {"txid": good},
            cobv(due, "100.00") | {"txid": no_debtor, "devedor": {"nome": "Sem Documento"}},
            cobv(due, "55.10") | {"txid": other, "solicitacaoPagador": "Matrícula 7"},
            cobv(due) | {"txid": bad_type, "valor": 3},
        ],
    }
    response = await _put(api, auth, batch_id, body)
    assert response.status_code == 202, response.text
    created = response.json()
    _cobv_validator("LoteCobVConsultado").validate(created)
    assert (created["id"], created["descricao"]) == (batch_id, "Turno vespertino")
    items = created["cobsv"]
    assert [(i["txid"], i["status"]) for i in items] == [
        (good, "CRIADA"),
        (no_debtor, "NEGADA"),
        (other, "CRIADA"),
        (bad_type, "NEGADA"),
    ]
    assert "problema" not in items[0]
    assert "criacao" in items[0]
    assert "criacao" not in items[1]
    assert "devedor.nome" in _refused(items[1]["problema"], 400, "CobVOperacaoInvalida")
    assert "valor" in _refused(items[3]["problema"], 400, "CobVOperacaoInvalida")
    assert await _read(api, auth, batch_id) == created

    assert await _listed(api, auth, batch_id) == sorted([good, other])
    charge = (await api.client.get(f"/cobv/{other}", headers=auth)).json()
    _cobv_validator("CobVCompleta").validate(charge)
    assert (charge["valor"]["original"], charge["solicitacaoPagador"]) == ("55.10", "Matrícula 7")
    for refused in (no_debtor, bad_type):
        assert (await api.client.get(f"/cobv/{refused}", headers=auth)).status_code == 404
    assert await _listed(api, auth, batch_id + 1 if batch_id < 2**31 - 1 else 1) == []


async def test_a_txid_taken_is_refused_with_the_conflict_of_put_cobv(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    taken, fresh = _txid(), _txid()
    assert (await api.client.put(f"/cobv/{taken}", json=cobv(_due(api)), headers=auth)).status_code == 201
    batch_id = _batch_id()
    body = {
        "descricao": "Lote",
        "cobsv": [cobv(_due(api)) | {"txid": taken}, cobv(_due(api)) | {"txid": fresh}],
    }
    response = await _put(api, auth, batch_id, body)
    assert response.status_code == 202, response.text
    taken_item, fresh_item = response.json()["cobsv"]
    assert taken_item["status"] == "NEGADA"
    _refused(taken_item["problema"], 409, "CobVOperacaoInvalida")
    assert fresh_item["status"] == "CRIADA"
    assert await _listed(api, auth, batch_id) == [fresh]  # the charge made before stays out

    # A charge of one batch cannot join another.
    again = await _put(
        api, auth, _batch_id(), {"descricao": "Outro", "cobsv": [cobv(_due(api)) | {"txid": fresh}]}
    )
    assert again.json()["cobsv"][0]["status"] == "NEGADA"


async def test_a_batch_id_once_only_and_the_accounts_own(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    batch_id = _batch_id()
    first = await _put(
        api, auth, batch_id, {"descricao": "Primeiro", "cobsv": [cobv(_due(api)) | {"txid": _txid()}]}
    )
    assert first.status_code == 202
    again_txid = _txid()
    again = await _put(
        api, auth, batch_id, {"descricao": "De novo", "cobsv": [cobv(_due(api)) | {"txid": again_txid}]}
    )
    assert again.status_code == 400
    assert again.headers["content-type"].startswith(PROBLEM)
    _refused(again.json(), 400, "LoteCobVOperacaoInvalida")
    assert (await api.client.get(f"/cobv/{again_txid}", headers=auth)).status_code == 404
    assert (await _read(api, auth, batch_id))["descricao"] == "Primeiro"

    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    for call in (
        api.client.get(f"/lotecobv/{batch_id}", headers=other_auth),
        api.client.patch(
            f"/lotecobv/{batch_id}",
            json={"cobsv": [{"txid": first.json()["cobsv"][0]["txid"]}]},
            headers=other_auth,
        ),
    ):
        response = await call
        assert response.status_code == 404
        _refused(response.json(), 404, "LoteCobVNaoEncontrado")
    assert await _listed(api, other_auth, batch_id) == []
    theirs = await _put(
        api, other_auth, batch_id, {"descricao": "Deles", "cobsv": [cobv(_due(api)) | {"txid": _txid()}]}
    )
    assert theirs.status_code == 202
    assert (await _read(api, other_auth, batch_id))["descricao"] == "Deles"
    assert (await _read(api, auth, batch_id))["descricao"] == "Primeiro"


async def test_patch_revises_each_charge_on_its_own(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    batch_id = _batch_id()
    revised, refused, cancelled, never = _txid(), _txid(), _txid(), _txid()
    body = {
        "descricao": "Lote",
        "cobsv": [
            cobv(_due(api)) | {"txid": revised},
            cobv(_due(api)) | {"txid": refused},
            cobv(_due(api)) | {"txid": cancelled},
            cobv(_due(api)) | {"txid": never, "devedor": None},
        ],
    }
    assert (await _put(api, auth, batch_id, body)).status_code == 202
    changes = {
        "descricao": "Lote revisto",
        "cobsv": [
            {"txid": revised, "valor": {"original": "150.00"}},
            {"txid": refused, "valor": {"original": "-1.00"}},
            {"txid": cancelled, "status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"},
            {"txid": never, "valor": {"original": "9.00"}},
        ],
    }
    response = await api.client.patch(f"/lotecobv/{batch_id}", json=changes, headers=auth)
    assert response.status_code == 202, response.text
    batch = response.json()
    _cobv_validator("LoteCobVConsultado").validate(batch)
    assert batch["descricao"] == "Lote revisto"
    items = {i["txid"]: i for i in batch["cobsv"]}
    assert [i["txid"] for i in batch["cobsv"]] == [revised, refused, cancelled, never]
    assert (items[revised]["status"], "problema" in items[revised]) == ("CRIADA", False)
    assert items[refused]["status"] == "CRIADA"
    assert "valor.original" in _refused(items[refused]["problema"], 400, "CobVOperacaoInvalida")
    assert items[never]["status"] == "NEGADA"
    _refused(items[never]["problema"], 404, "CobVNaoEncontrada")
    assert await _read(api, auth, batch_id) == batch

    charges = {
        t: (await api.client.get(f"/cobv/{t}", headers=auth)).json() for t in (revised, refused, cancelled)
    }
    assert (charges[revised]["revisao"], charges[revised]["valor"]["original"]) == (1, "150.00")
    assert (charges[refused]["revisao"], charges[refused]["valor"]["original"]) == (0, "100.00")
    assert charges[cancelled]["status"] == "REMOVIDA_PELO_USUARIO_RECEBEDOR"

    # A later accepted revision clears the charge's problem.
    fixed = {"cobsv": [{"txid": refused, "valor": {"original": "120.00"}}]}
    response = await api.client.patch(f"/lotecobv/{batch_id}", json=fixed, headers=auth)
    assert "problema" not in {i["txid"]: i for i in response.json()["cobsv"]}[refused]

    # A txid that is not the batch's refuses the whole request: nothing changes.
    stranger = {"cobsv": [{"txid": revised, "valor": {"original": "1.00"}}, {"txid": _txid(), "valor": {}}]}
    response = await api.client.patch(f"/lotecobv/{batch_id}", json=stranger, headers=auth)
    assert response.status_code == 400
    assert "cobsv[1].txid" in _refused(response.json(), 400, "LoteCobVOperacaoInvalida")
    assert (await api.client.get(f"/cobv/{revised}", headers=auth)).json()["valor"]["original"] == "150.00"


async def test_the_list_of_batches(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    ids = [_batch_id() for _ in range(3)]
    for batch_id in ids:
        assert (
            await _put(
                api, auth, batch_id, {"descricao": "L", "cobsv": [cobv(_due(api)) | {"txid": _txid()}]}
            )
        ).status_code == 202
        api.clock.advance(1)
    window = _window(api) | {"inicio": (api.clock.now() - timedelta(seconds=10)).isoformat()}
    response = await api.client.get("/lotecobv", params=window, headers=auth)
    assert response.status_code == 200, response.text
    listed = response.json()
    _cobv_validator("LotesCobVConsultados").validate(listed)
    assert [b["id"] for b in listed["lotes"]] == ids
    assert listed["parametros"]["paginacao"]["quantidadeTotalDeItens"] == 3
    page = await api.client.get(
        "/lotecobv",
        params=window | {"paginacao.paginaAtual": "1", "paginacao.itensPorPagina": "2"},
        headers=auth,
    )
    assert [b["id"] for b in page.json()["lotes"]] == ids[2:]
    assert page.json()["parametros"]["paginacao"]["quantidadeDePaginas"] == 2

    bad = await api.client.get(
        "/lotecobv",
        params={"inicio": "yesterday", "fim": window["fim"], "paginacao.itensPorPagina": "0"},
        headers=auth,
    )
    assert bad.status_code == 400
    assert {"inicio", "paginacao.itensPorPagina"} <= _refused(bad.json(), 400, "LoteCobVConsultaInvalida")
    twice = await api.client.get("/lotecobv", params=[*window.items(), ("fim", window["fim"])], headers=auth)
    assert twice.status_code == 400
    assert "fim" in _refused(twice.json(), 400, "LoteCobVConsultaInvalida")


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"cobsv": [{"txid": "a" * 32}]}, {"descricao"}),
        ({"descricao": "x" * 141, "cobsv": [{"txid": "a" * 32}]}, {"descricao"}),
        ({"descricao": "L"}, {"cobsv"}),
        (
            {"descricao": "L", "cobsv": [{"txid": "short"}, {}, "x"]},
            {"cobsv[0].txid", "cobsv[1].txid", "cobsv[2].txid"},
        ),
        ({"descricao": "L", "cobsv": [{"txid": "a" * 32}, {"txid": "a" * 32}]}, {"cobsv[1].txid"}),
        ({"descricao": "L", "cobsv": [{"txid": f"{n:032d}"} for n in range(1001)]}, {"cobsv"}),
        ({"descricao": 7, "cobsv": "x"}, set()),
        ([1], set()),
    ],
)
async def test_a_broken_batch_is_refused_whole(
    api: Api, owner: tuple[Client, dict[str, str]], body: Any, named: set[str]
) -> None:
    _, auth = owner
    batch_id = _batch_id()
    response = await _put(api, auth, batch_id, body)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    problem = response.json()
    assert problem["type"] in {TYPE + "LoteCobVOperacaoInvalida", TYPE + "RequisicaoInvalida"}
    assert named <= {v.get("propriedade") for v in problem.get("violacoes", [])}
    assert (await api.client.get(f"/lotecobv/{batch_id}", headers=auth)).status_code == 404


async def test_ids_that_are_no_int32(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    body = {"descricao": "L", "cobsv": [cobv(_due(api)) | {"txid": _txid()}]}
    for text in ("abc", "2147483648", "-2147483649", "1.5", "0x10"):
        put = await api.client.put(f"/lotecobv/{text}", json=body, headers=auth)
        assert put.status_code == 400, text
        _refused(put.json(), 400, "LoteCobVOperacaoInvalida")
        got = await api.client.get(f"/lotecobv/{text}", headers=auth)
        assert got.status_code == 404, text
        _refused(got.json(), 404, "LoteCobVNaoEncontrado")
    nul = await api.client.get("/lotecobv/1%00", headers=auth)  # refused before the route
    assert nul.status_code == 400
    assert nul.headers["content-type"].startswith(PROBLEM)


async def test_a_batchs_charge_is_paid_like_any(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    batch_id, txid = _batch_id(), _txid()
    response = await _put(
        api, auth, batch_id, {"descricao": "L", "cobsv": [cobv(_due(api), "42.50") | {"txid": txid}]}
    )
    assert response.json()["cobsv"][0]["status"] == "CRIADA"
    charge = (await api.client.get(f"/cobv/{txid}", headers=auth)).json()
    before = await _balance(api, auth)
    paid = await _pay(api, auth, charge["pixCopiaECola"])
    assert paid.status_code == 201, paid.text
    assert await _balance(api, auth) == before + Decimal("42.50")
    read = (await api.client.get(f"/cobv/{txid}", headers=auth)).json()
    assert read["status"] == "CONCLUIDA"
    assert [p["valor"] for p in read["pix"]] == ["42.50"]
    params = _window(api) | {"loteCobVId": str(batch_id), "status": "CONCLUIDA"}
    assert [
        c["txid"] for c in (await api.client.get("/cobv", params=params, headers=auth)).json()["cobs"]
    ] == [txid]


async def test_two_puts_of_one_id_at_once_make_one_batch(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    batch_id = _batch_id()
    bodies = [{"descricao": f"Lote {n}", "cobsv": [cobv(_due(api)) | {"txid": _txid()}]} for n in range(2)]
    answers = await asyncio.gather(*(_put(api, auth, batch_id, body) for body in bodies))
    assert sorted(a.status_code for a in answers) == [202, 400]
    (won,) = [a.json() for a in answers if a.status_code == 202]
    assert await _read(api, auth, batch_id) == won
    created = [b["cobsv"][0]["txid"] for b in bodies]
    found = [(await api.client.get(f"/cobv/{t}", headers=auth)).status_code for t in created]
    assert sorted(found) == [200, 404]  # the loser created nothing


async def test_a_batch_and_a_put_cobv_racing_for_one_txid(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    batch_id, txid = _batch_id(), _txid()
    batch, alone = await asyncio.gather(
        _put(api, auth, batch_id, {"descricao": "L", "cobsv": [cobv(_due(api)) | {"txid": txid}]}),
        api.client.put(f"/cobv/{txid}", json=cobv(_due(api)), headers=auth),
    )
    assert batch.status_code == 202, batch.text
    status = batch.json()["cobsv"][0]["status"]
    assert (status, alone.status_code) in {("CRIADA", 409), ("NEGADA", 201)}
    assert await _listed(api, auth, batch_id) == ([txid] if status == "CRIADA" else [])


async def test_a_batch_of_the_largest_size(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    _, auth = owner
    batch_id, due = _batch_id(), _due(api)
    body = {
        "descricao": "Mil",
        "cobsv": [cobv(due, f"{n + 1}.00") | {"txid": _txid()} for n in range(MAX_CHARGES)],
    }
    response = await _put(api, auth, batch_id, body)
    assert response.status_code == 202, response.text[:300]
    assert {i["status"] for i in response.json()["cobsv"]} == {"CRIADA"}
    params = _window(api) | {"loteCobVId": str(batch_id), "paginacao.itensPorPagina": "1000"}
    listed = (await api.client.get("/cobv", params=params, headers=auth)).json()
    assert listed["parametros"]["paginacao"]["quantidadeTotalDeItens"] == MAX_CHARGES
    assert sorted(c["valor"]["original"] for c in listed["cobs"]) == sorted(
        f"{n + 1}.00" for n in range(MAX_CHARGES)
    )
