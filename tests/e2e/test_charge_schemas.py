"""Real ``/cob`` responses against the central bank's schemas (``CobGerada`` on creation,
``CobCompleta`` on reads), from its standard Pix API (tests/data/bcb-pix-api-openapi.yaml, v2.9.0).

Two deliberate differences are applied to the reference before checking, each named here:
- decisions §6 puts the BR Code itself (up to 512 characters) in ``location`` and ``loc.location``,
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

from tests.e2e.conftest import Api
from tests.support import bearer, new_client, random_cpf

REFERENCE = Path(__file__).parents[1] / "data" / "bcb-pix-api-openapi.yaml"
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
async def test_responses_validate_against_cob_gerada_and_cob_completa(api: Api, body: dict[str, Any]) -> None:
    client = await new_client()
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
