"""Real ``/cob`` responses against the central bank's schemas (``CobGerada`` on creation, ``CobCompleta``
on reads, a paid one with its ``pix`` and their ``devolucoes``), from its standard Pix API
(tests/data/bcb-pix-api-openapi.yaml, v2.9.0, the same file as
../shared/reference/bcb-pix-api-openapi.yaml).

Two deliberate differences are applied to the reference before checking, each named here:
- our specification puts the BR Code itself (up to 512 characters) in ``location`` and ``loc.location``,
  where the standard has a 77-character URL: those two ``maxLength`` are lifted to 512;
- the standard writes the CPF pattern as ``"/^\\d{11}$/"`` (with slashes, which JSON Schema would
  take literally, so no CPF could match): it is read as ``^\\d{11}$``.
"""

from __future__ import annotations

import functools
import secrets
import string
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from pixcore.refunds.refund_service import process_due_refunds
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import bearer, new_client, random_cpf

REFERENCE = Path(__file__).parents[2] / "data" / "bcb-pix-api-openapi.yaml"
URI = "urn:bcb-pix-api"


@functools.cache
def _document() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(REFERENCE.read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    schemas["PayloadLocation"]["properties"]["location"]["maxLength"] = 512
    for part in schemas["CobGerada"]["allOf"]:
        location = part.get("properties", {}).get("location")
        if location is not None:
            location["maxLength"] = 512
    schemas["PessoaFisica"]["properties"]["cpf"]["pattern"] = r"^\d{11}$"
    return document


def validator(name: str) -> jsonschema.Draft4Validator:
    resource = Resource.from_contents(_document(), default_specification=DRAFT4)
    registry: Registry[Any] = Registry().with_resource(URI, resource)
    return jsonschema.Draft4Validator({"$ref": f"{URI}#/components/schemas/{name}"}, registry=registry)


def _txid() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))


def test_the_reference_schemas_catch_a_broken_charge() -> None:
    broken = {"txid": "short", "calendario": {}, "revisao": 0, "status": "PAGA", "valor": {}, "chave": "k"}
    errors = list(validator("CobGerada").iter_errors(broken))
    assert errors  # the oracle can fail: missing criacao/expiracao, bad txid pattern, unknown status


@pytest.mark.parametrize(
    "body",
    [
        {"calendario": {"expiracao": 3600}, "valor": {"original": "10.00"}},
        {
            "calendario": {},
            "valor": {"original": "0.00", "modalidadeAlteracao": 1},
            "devedor": {"cnpj": "11222333000181", "nome": "Empresa LTDA"},
            "solicitacaoPagador": "Pedido 1",
            "infoAdicionais": [{"nome": "Campo", "valor": "Valor"}],
        },
        {
            "calendario": {"expiracao": 60},
            "valor": {"original": "99.99"},
            "devedor": {"nome": "N", "cpf": ""},
        },
    ],
)
async def test_responses_validate_against_cob_gerada_and_cob_completa(
    pg_uow: UnitOfWorkFactory, api: Api, body: dict[str, Any]
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    if body.get("devedor", {}).get("cpf") == "":
        body["devedor"]["cpf"] = random_cpf()
    txid = _txid()
    created = await api.client.put(f"/cob/{txid}", json=body, headers=auth)
    assert created.status_code == 201, created.text
    validator("CobGerada").validate(created.json())
    for spoil in ({"status": "PAGA"}, {"revisao": "0"}, {"loc": {"id": 1}}, {"valor": {"original": "10"}}):
        assert list(validator("CobGerada").iter_errors(created.json() | spoil)), spoil

    read = await api.client.get(f"/cob/{txid}", headers=auth)
    validator("CobCompleta").validate(read.json())
    cancelled = await api.client.patch(
        f"/cob/{txid}", json={"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, headers=auth
    )
    validator("CobCompleta").validate(cancelled.json())


async def test_a_paid_charge_carries_its_pix_with_its_refunds_as_the_standard_has_it(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    txid = _txid()
    body = {"calendario": {"expiracao": 3600}, "valor": {"original": "0.00", "modalidadeAlteracao": 1}}
    created = await api.client.put(f"/cob/{txid}", json=body, headers=auth)
    assert created.status_code == 201, created.text
    assert "pix" not in created.json()
    assert "pix" not in (await api.client.get(f"/cob/{txid}", headers=auth)).json()  # ATIVA: none yet

    code = created.json()["pixCopiaECola"]
    paid = await api.client.post(
        "/sandbox/payments", json={"pixCopiaECola": code, "amount": 25}, headers=auth
    )
    assert paid.status_code == 201, paid.text
    e2e = paid.json()["endToEndId"]
    for rid, valor in (("devolucao1", "5.00"), ("devolucao2", "2.50")):
        refund = await api.client.put(
            f"/pix/{e2e}/devolucao/{rid}", json={"valor": valor, "descricao": "Troca"}, headers=auth
        )
        assert refund.status_code == 201, refund.text
    api.clock.advance(api.settings.norm_delay_seconds)
    assert await process_due_refunds(pg_uow, api.clock) >= 2
    third = await api.client.put(f"/pix/{e2e}/devolucao/devolucao3", json={"valor": "1.00"}, headers=auth)
    assert third.status_code == 201, third.text

    read = await api.client.get(f"/cob/{txid}", headers=auth)
    assert read.status_code == 200, read.text
    shown = read.json()
    validator("CobCompleta").validate(shown)
    assert shown["status"] == "CONCLUIDA"
    [pix] = shown["pix"]
    assert (pix["endToEndId"], pix["txid"], pix["valor"]) == (e2e, txid, "25.00")
    assert "infoPagador" not in pix  # no payment here carries a message from its payer
    assert [(d["id"], d["valor"], d["status"]) for d in pix["devolucoes"]] == [
        ("devolucao1", "5.00", "DEVOLVIDO"),
        ("devolucao2", "2.50", "DEVOLVIDO"),
        ("devolucao3", "1.00", "EM_PROCESSAMENTO"),
    ]
    assert (
        pix["devolucoes"][0]
        == (await api.client.get(f"/pix/{e2e}/devolucao/devolucao1", headers=auth)).json()
    )
    assert "liquidacao" in pix["devolucoes"][0]["horario"]
    assert "liquidacao" not in pix["devolucoes"][2]["horario"]

    # The oracle can fail on the new parts: a broken pix or refund is caught.
    spoiled_pix = [
        {k: v for k, v in pix.items() if k != "horario"},
        pix | {"endToEndId": "E123"},
        pix | {"valor": "25"},
        pix | {"devolucoes": [pix["devolucoes"][0] | {"status": "PAGO"}]},
        pix | {"devolucoes": [{k: v for k, v in pix["devolucoes"][0].items() if k != "rtrId"}]},
    ]
    for spoiled in spoiled_pix:
        assert list(validator("CobCompleta").iter_errors(shown | {"pix": [spoiled]})), spoiled
