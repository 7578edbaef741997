"""The query strings of Pix Automático's lists (``GET /rec``, ``GET /cobr``, ``GET /locrec``) read
as ``GET /cob``'s on the standard's face: an empty value refused where the document types the
parameter, any text taken where it does not (``status``, ``convenio``: one no record has lists
nothing), a parameter given twice refused, a NUL judged by the parameter's own rule."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.recurrences.conftest import Receiver, problem

LISTS = {
    "/cob": ("cobs", "CobConsultaInvalida"),
    "/rec": ("recs", "RecConsultaInvalida"),
    "/cobr": ("cobsr", "CobRConsultaInvalida"),
    "/locrec": ("loc", "PayloadLocationRecConsultaInvalida"),
}


async def _listed(receiver: Receiver) -> dict[str, Any]:
    """A recurrence with an agreement, at a location, approved, with a charge: one item on each
    list (a charge of ``GET /cob`` too, with a debtor), so that a list with nothing in it says a
    filter matched nothing."""
    rec = await receiver.located_recurrence(recebedor={"convenio": "Academia"})
    answered = await receiver.authorize(rec["idRec"])
    assert answered.status_code == 200, answered.text
    await receiver.charge(rec["idRec"], receiver.today() + timedelta(days=2))
    cob = await receiver.call(
        "POST",
        "/cob",
        json={
            "calendario": {"expiracao": 3600},
            "valor": {"original": "10.00"},
            "chave": receiver.client.opened.keys[0].value,
            "devedor": {"cpf": "11144477735", "nome": "Fulano de Tal"},
        },
    )
    assert cob.status_code == 201, cob.text
    return rec


def _window(receiver: Receiver) -> str:
    now = receiver.api.clock.now()
    start, end = now - timedelta(days=1), now + timedelta(days=1)
    return f"inicio={quote(start.isoformat())}&fim={quote(end.isoformat())}"


async def _get(receiver: Receiver, path: str, query: str) -> Any:
    return await receiver.call("GET", f"{path}?{_window(receiver)}&{query}")


async def _items(receiver: Receiver, path: str, query: str = "") -> list[Any]:
    response = await _get(receiver, path, query)
    assert response.status_code == 200, response.text
    items: list[Any] = response.json()[LISTS[path][0]]
    return items


async def _refused(receiver: Receiver, path: str, query: str) -> dict[str, Any]:
    """The list's 400, with the set of parameters its violations name."""
    body = problem(await _get(receiver, path, query), 400, LISTS[path][1])
    return {"detail": body["detail"], "named": {v["propriedade"] for v in body["violacoes"]}}


@pytest.mark.parametrize(
    ("path", "query", "named"),
    [
        ("/cob", "cpf=&locationPresente=", {"cpf", "locationPresente"}),
        ("/rec", "cpf=&locationPresente=", {"cpf", "locationPresente"}),
        ("/cobr", "cnpj=&idRec=", {"cnpj", "idRec"}),
        ("/locrec", "idRecPresente=&paginacao.paginaAtual=", {"idRecPresente", "paginacao.paginaAtual"}),
    ],
)
async def test_an_empty_value_of_a_typed_parameter_is_refused(
    receiver: Receiver, path: str, query: str, named: set[str]
) -> None:
    refused = await _refused(receiver, path, query)
    assert refused["named"] == named
    assert "must not be empty" in refused["detail"]


@pytest.mark.parametrize(
    ("path", "query", "named"),
    [
        ("/cob", "status=ATIVA&status=CONCLUIDA&cpf=1&cpf=2", {"status", "cpf"}),
        ("/rec", "status=APROVADA&status=CRIADA&convenio=a&convenio=b", {"status", "convenio"}),
        ("/cobr", "status=ATIVA&status=ATIVA&idRec=x&idRec=y", {"status", "idRec"}),
        (
            "/locrec",
            "convenio=a&convenio=a&idRecPresente=true&idRecPresente=true",
            {"convenio", "idRecPresente"},
        ),
    ],
)
async def test_a_parameter_given_twice_is_refused_and_an_unknown_one_ignored(
    receiver: Receiver, path: str, query: str, named: set[str]
) -> None:
    refused = await _refused(receiver, path, f"{query}&unknown=1&unknown=2")
    assert refused["named"] == named
    assert "given more than once" in refused["detail"]


@pytest.mark.parametrize(
    ("path", "query", "named"),
    [
        (
            "/cob",
            "cpf=123&paginacao.itensPorPagina=0&locationPresente=maybe",
            {"cpf", "paginacao.itensPorPagina", "locationPresente"},
        ),
        (
            "/rec",
            "cpf=123&paginacao.itensPorPagina=0&locationPresente=maybe",
            {"cpf", "paginacao.itensPorPagina", "locationPresente"},
        ),
        ("/cobr", "cnpj=x&idRec=short&paginacao.paginaAtual=-1", {"cnpj", "idRec", "paginacao.paginaAtual"}),
        ("/locrec", f"idRecPresente=yes&convenio={'c' * 61}", {"idRecPresente", "convenio"}),
        ("/rec", "cpf=11144477735&cnpj=11222333000181", {"cpf, cnpj"}),
    ],
)
async def test_every_invalid_value_is_a_violation(
    receiver: Receiver, path: str, query: str, named: set[str]
) -> None:
    assert (await _refused(receiver, path, query))["named"] == named


@pytest.mark.parametrize("path", ["/cob", "/rec", "/cobr"])
async def test_any_status_text_is_taken_and_one_no_record_has_lists_nothing(
    receiver: Receiver, path: str
) -> None:
    await _listed(receiver)
    assert len(await _items(receiver, path)) == 1
    for text in ("PAGA", "", "ATIVA\x00"):
        response = await _get(receiver, path, f"status={quote(text)}")
        assert response.status_code == 200, response.text
        assert response.json()[LISTS[path][0]] == []
        assert response.json()["parametros"]["status"] == text
    known = {"/cob": "ATIVA", "/rec": "APROVADA", "/cobr": "CRIADA"}[path]
    assert len(await _items(receiver, path, f"status={known}")) == 1


@pytest.mark.parametrize("path", ["/rec", "/cobr", "/locrec"])
async def test_any_agreement_text_is_taken_and_one_no_recurrence_has_lists_nothing(
    receiver: Receiver, path: str
) -> None:
    await _listed(receiver)
    assert len(await _items(receiver, path, "convenio=Academia")) == 1
    for text in ("Outra", "", " ", "Academia\x00"):
        assert await _items(receiver, path, f"convenio={quote(text)}") == [], text


@pytest.mark.parametrize(
    ("path", "query"), [("/cob", "cpf=1%00"), ("/rec", "cpf=1%00"), ("/cobr", "idRec=x%00")]
)
async def test_a_nul_is_judged_by_the_parameters_rule(receiver: Receiver, path: str, query: str) -> None:
    assert len((await _refused(receiver, path, query))["named"]) == 1


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/cob", "convenio=&tipoCob=&tipoCob=cob"),
        ("/rec", "idRec=&idRecPresente=x&idRecPresente=y"),
        ("/cobr", "locationPresente=&convenio=Academia"),
        ("/locrec", "cpf=&cpf=1&status=CRIADA&status=ATIVA&convenio=Academia"),
    ],
)
async def test_another_lists_parameter_is_ignored_empty_or_given_twice(
    receiver: Receiver, path: str, query: str
) -> None:
    await _listed(receiver)
    assert len(await _items(receiver, path, query)) == 1
