"""Hostile text in a batch of due-date charges (``/lotecobv``). The generic suite
(test_hostile_text.py) covers the batch's own fields and the edge's rules for every body; the
charges of ``cobsv`` are decoded one by one, so their text is sent here: a text over a field's
maximum refuses that charge alone (NEGADA, a 400 ``problema`` naming the field, nothing stored),
while a NUL, invalid UTF-8, deep nesting or a body over the limit refuses the whole request at
the edge (a 400 or 413 in problem+json) and creates nothing. Never a 500.
"""

from __future__ import annotations

import json
import secrets
from datetime import timedelta
from typing import Any

from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.app import MAX_BODY
from pixweb.edge import MAX_DEPTH
from tests.e2e.conftest import Api
from tests.security.conftest import signed_in
from tests.security.test_bola import alphanumeric
from tests.support import random_cpf

PROBLEM = "application/problem+json"


def _cobv(api: Api, **extra: Any) -> dict[str, Any]:
    return {
        "txid": alphanumeric(32),
        "calendario": {"dataDeVencimento": (api.clock.now() + timedelta(days=30)).date().isoformat()},
        "devedor": {"cpf": random_cpf(), "nome": "Joao da Silva"},
        "valor": {"original": "10.00"},
    } | extra


def _batch_id() -> str:
    return str(secrets.randbelow(2**31))


async def test_an_items_text_over_its_maximum_refuses_that_charge_alone(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    who = await signed_in(pg_uow, api.client)
    long_texts = {
        "solicitacaoPagador": {"solicitacaoPagador": "7" * 141},
        "chave": {"chave": "7" * 78},
        "solicitacaoPagador ": {"solicitacaoPagador": "7" * 100_000},
        "infoAdicionais": {"infoAdicionais": [{"nome": "7" * 51, "valor": "x"}]},
    }
    good = _cobv(api)
    items = [_cobv(api, **extra) for extra in long_texts.values()]
    batch_id = _batch_id()
    body = {"descricao": "Lote", "cobsv": [good, *items]}
    response = await api.client.put(f"/lotecobv/{batch_id}", json=body, headers=who.auth)
    assert response.status_code == 202, response.text
    answered = response.json()["cobsv"]
    assert answered[0]["status"] == "CRIADA"
    for field, item, sent in zip(long_texts, answered[1:], items, strict=True):
        assert item["status"] == "NEGADA", field
        problem = item["problema"]
        assert (problem["status"], problem["type"].rsplit("/", 1)[1]) == (400, "CobVOperacaoInvalida")
        assert field.strip() in problem["detail"], problem
        read = await api.client.get(f"/cobv/{sent['txid']}", headers=who.auth)
        assert read.status_code == 404

    revise = {"cobsv": [{"txid": good["txid"], "solicitacaoPagador": "7" * 141}]}
    response = await api.client.patch(f"/lotecobv/{batch_id}", json=revise, headers=who.auth)
    assert response.status_code == 202, response.text
    assert "solicitacaoPagador" in response.json()["cobsv"][0]["problema"]["detail"]
    charge = (await api.client.get(f"/cobv/{good['txid']}", headers=who.auth)).json()
    assert (charge["revisao"], "solicitacaoPagador" in charge) == (0, False)


async def test_nul_bad_utf8_nesting_and_size_refuse_the_whole_batch(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    who = await signed_in(pg_uow, api.client)
    headers = who.auth | {"content-type": "application/json"}
    nested = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    cases = {
        "a NUL in an item's text": json.dumps(
            {"descricao": "Lote", "cobsv": [_cobv(api, solicitacaoPagador="a\x00b")]}
        ).encode(),
        "a NUL in the description": json.dumps({"descricao": "a\x00b", "cobsv": [_cobv(api)]}).encode(),
        "invalid UTF-8 in an item": b'{"descricao": "L", "cobsv": [{"txid": "\xff\xfe"}]}',
        "deep nesting in an item": b'{"descricao": "L", "cobsv": [{"txid": "a", "valor": '
        + nested.encode()
        + b"}]}",
        "a body over the limit": json.dumps(
            {
                "descricao": "L",
                "cobsv": [_cobv(api, solicitacaoPagador="7" * 1000) for _ in range(MAX_BODY // 1000)],
            }
        ).encode(),
    }
    for what, body in cases.items():
        batch_id = _batch_id()
        response = await api.client.put(f"/lotecobv/{batch_id}", content=body, headers=headers)
        assert response.status_code in {400, 413}, (what, response.status_code, response.text[:200])
        assert response.headers["content-type"].startswith(PROBLEM), what
        assert "Traceback" not in response.text
        assert (await api.client.get(f"/lotecobv/{batch_id}", headers=who.auth)).status_code == 404, what
