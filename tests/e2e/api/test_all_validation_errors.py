"""Every endpoint reports all the mistakes of a body at once, in ``details``
(docs/decisions/all-body-errors.md).

Each case sends a body with several mistakes and expects every one of them back, worded as the
endpoint words each mistake alone: msgspec's words for a wrong type or a missing field, the
``pixcore`` parsers' words for a broken rule.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from pixcore.transfers.rules import MAX_EXPIRATION
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import REGISTRABLE
from pixweb.api.fields import MAX_CLIENT_SECRET
from tests.e2e.conftest import Api
from tests.support import bearer, new_client

E2E = "E00000000202611211505aaaaaaaaaaa"
AMOUNT = "Invalid amount: a positive value in reais with at most 2 decimals is expected."

CASES: list[tuple[str, str, dict[str, Any], list[str]]] = [
    (
        "POST",
        "/api/auth/token",
        {"clientId": 12, "clientSecret": None},
        ["clientId: Expected `str`, got `int`", "clientSecret: Expected `str`, got `null`"],
    ),
    (
        "POST",
        "/api/pix/cash-in",
        {},
        ["data: Object missing required field `transaction`", "data: Object missing required field `payer`"],
    ),
    (
        "POST",
        "/api/pix/cash-in",
        {"transaction": 5, "payer": "x"},
        ["transaction: Expected `object`, got `int`", "payer: Expected `object`, got `str`"],
    ),
    (
        "POST",
        "/api/pix/cash-in",
        {"transaction": {"expirationTime": 1}, "payer": {"document": "123"}},
        [
            f"transaction.value: {AMOUNT}",
            "transaction.description: required, 1 to 140 characters",
            "transaction.externalId: required, 1 to 100 characters",
            "transaction.expirationTime: must be 300 to 604800 seconds",
            "payer.fullName: required, 1 to 100 characters",
            "payer.document: Invalid CPF or CNPJ.",
        ],
    ),
    (
        "POST",
        "/dict/pix",
        {},
        ["data: Object missing required field `pixKey`", "data: Object missing required field `payment`"],
    ),
    (
        "POST",
        "/dict/pix",
        {"pixKey": 5, "payment": {}, "expiration": "soon", "ispbDeny": [1]},
        [
            "pixKey: Expected `str`, got `int`",
            "payment: Object missing required field `amount`",
            "expiration: Expected `int | null`, got `str`",
            "ispbDeny[0]: Expected `str`, got `int`",
        ],
    ),
    (
        "POST",
        "/api/webhooks",
        {"url": 5, "headers": [{"key": "a"}, {"key": 1, "value": "v"}]},
        [
            "url: Expected `str`, got `int`",
            "data: Object missing required field `eventType`",
            "headers[0]: Object missing required field `value`",
            "headers[1].key: Expected `str`, got `int`",
        ],
    ),
    (
        "POST",
        "/sandbox/dict",
        {"pixKey": 5, "ispb": 3},
        [
            "pixKey: Expected `str`, got `int`",
            "ispb: Expected `str`, got `int`",
            "data: Object missing required field `name`",
            "data: Object missing required field `document`",
        ],
    ),
    (
        "POST",
        "/sandbox/payments",
        {"pixKey": 5, "amount": "x", "payer": {"name": 1, "ispb": 2}},
        [
            "pixKey: Expected `str | null`, got `int`",
            "amount: Invalid decimal string",
            "payer.name: Expected `str`, got `int`",
            "payer.ispb: Expected `str`, got `int`",
        ],
    ),
    (
        "POST",
        "/sandbox/refunds",
        {},
        ["data: Object missing required field `endToEndId`", "data: Object missing required field `amount`"],
    ),
    (
        "POST",
        "/sandbox/med",
        {},
        ["data: Object missing required field `endToEndId`", "data: Object missing required field `reason`"],
    ),
    (
        "PUT",
        "/cob/abcdefghijklmnopqrstuvwxyz",
        {"calendario": {"expiracao": "x"}, "valor": {"original": 3}, "chave": 5},
        [
            "calendario.expiracao: must be a whole number of seconds, 1 to 2147483647",
            'valor.original: required, a string with 2 decimals (e.g. "10.00")',
            "chave: a string of at most 77 characters",
        ],
    ),
    (
        "PUT",
        f"/pix/{E2E}/devolucao/r1",
        {"valor": 3, "natureza": "x", "descricao": 5},
        [
            'valor: required, a string with 2 decimals (e.g. "10.00")',
            "natureza: ORIGINAL or RETIRADA (the MED natures cannot be requested)",
            "descricao: a string of at most 140 characters",
        ],
    ),
]


# A wrong type (msgspec's words) in one field and a broken rule (the pixcore parser's words) in
# another: one answer with both, in the body's field order. The fields that fit are judged by the
# parser the handler runs; what it would say of a field that does not fit is left out.
MIXED: list[tuple[str, str, dict[str, Any], list[str]]] = [
    (
        "POST",
        "/api/auth/token",  # no parser: its rules are the Struct's (a length)
        {"clientId": 12, "clientSecret": "s" * (MAX_CLIENT_SECRET + 1)},
        [
            "clientId: Expected `str`, got `int`",
            f"clientSecret: Expected `str` of length <= {MAX_CLIENT_SECRET}",
        ],
    ),
    (
        "POST",
        "/api/pix/cash-in",
        {"transaction": 5, "payer": {"fullName": "Ana Souza", "document": "12345678900"}},
        ["transaction: Expected `object`, got `int`", "payer.document: Invalid CPF or CNPJ."],
    ),
    (
        "POST",
        "/api/pix/cash-in",
        {
            "transaction": {"value": -1, "description": "", "externalId": "order-1"},
            "payer": ["Ana"],
            "additionalInfo": {"store": 5},
        },
        [
            f"transaction.value: {AMOUNT}",
            "transaction.description: required, 1 to 140 characters",
            "payer: Expected `object`, got `array`",
            "additionalInfo: an object of at most 10 string values",
        ],
    ),
    (
        "POST",
        "/dict/pix",
        {"pixKey": 5, "payment": {"amount": "10.00", "currency": "USD"}, "priority": "HIGH", "expiration": 0},
        [
            "pixKey: Expected `str`, got `int`",
            f"payment.amount: {AMOUNT}",
            "payment.currency: only BRL is accepted",
            "creditorDocument: required when priority is HIGH",
            f"expiration: must be 1 to {MAX_EXPIRATION} seconds",
        ],
    ),
    (
        "POST",
        "/dict/pix",
        {"pixKey": "not a key", "payment": {"amount": 10}, "description": 7, "ispbDeny": ["1234"]},
        [
            "pixKey: Invalid PIX key.",
            "description: Expected `str | null`, got `int`",
            "ispbDeny: Invalid identifier: ISPB must be 8 digits",
        ],
    ),
    (
        "PUT",
        "/cob/abcdefghijklmnopqrstuvwxyz",
        {"calendario": 5, "valor": {"original": 10}, "chave": "k" * 78, "infoAdicionais": [{"nome": "a"}, 3]},
        [
            "calendario: Expected `object | null`, got `int`",
            'valor.original: required, a string with 2 decimals (e.g. "10.00")',
            "chave: a string of at most 77 characters",
            "infoAdicionais[0]: nome and valor are required strings",  # the item that fits is judged
            "infoAdicionais[1]: Expected `object`, got `int`",
        ],
    ),
    (
        "PUT",
        "/cob/abcdefghijklmnopqrstuvwxyz",
        {"calendario": {"expiracao": 0}, "valor": [], "devedor": {"cpf": "12345678900", "nome": "Ana"}},
        [
            "calendario.expiracao: must be a whole number of seconds, 1 to 2147483647",
            "valor: Expected `object | null`, got `array`",
            "devedor.cpf: must be a valid CPF of exactly 11 digits",
        ],
    ),
    (
        "PATCH",
        "/cob/abcdefghijklmnopqrstuvwxyz",
        {"calendario": {"expiracao": 0}, "devedor": [], "chave": "k" * 78},
        [
            "calendario.expiracao: must be a whole number of seconds, 1 to 2147483647",
            "devedor: Expected `object | null`, got `array`",
            "chave: a string of at most 77 characters",
        ],
    ),
    (
        "PUT",
        f"/pix/{E2E}/devolucao/r1",  # every leaf's type is the parser's: one pass judges them all
        {"valor": 3, "natureza": "MED_FRAUDE", "descricao": "d" * 141},
        [
            'valor: required, a string with 2 decimals (e.g. "10.00")',
            "natureza: ORIGINAL or RETIRADA (the MED natures cannot be requested)",
            "descricao: a string of at most 140 characters",
        ],
    ),
    (
        "POST",
        "/sandbox/dict",
        {"pixKey": "not a key", "ispb": 12345678, "name": "Ana", "document": "123", "branch": "1"},
        [
            "pixKey: Invalid PIX key.",
            "ispb: Expected `str`, got `int`",
            "document: Invalid CPF or CNPJ.",
            "branch: 4 digits",
        ],
    ),
    (
        "POST",
        "/sandbox/payments",
        {"pixKey": "not a key", "amount": 0, "payer": {"name": 5, "document": "123", "ispb": "1"}},
        [
            "pixKey: Invalid PIX key.",
            "amount: Invalid amount: a positive value in reais with at most 2 decimals is expected.",
            "payer.name: Expected `str`, got `int`",
            "payer.document: Invalid CPF or CNPJ.",
            "payer.ispb: Invalid identifier: ISPB must be 8 digits",
        ],
    ),
    (
        "POST",
        "/sandbox/refunds",
        {"endToEndId": "E1", "amount": -1},
        [
            "endToEndId: Invalid identifier: e2eid must be 32 alphanumeric characters",
            "amount: Invalid amount: a positive value in reais with at most 2 decimals is expected.",
        ],
    ),
    (
        "POST",
        "/sandbox/med",
        {"endToEndId": 7, "reason": "MED_OTHER"},
        ["endToEndId: Expected `str`, got `int`", "reason: MED_FRAUDE or MED_OPERACIONAL"],
    ),
    (
        "POST",
        "/api/webhooks",
        {"url": "ftp://hooks.example.com/pix", "eventType": 5},
        ["url: must be an HTTPS URL", "eventType: Expected `str`, got `int`"],
    ),
    (
        "POST",
        "/api/webhooks",
        {"url": 5, "eventType": "cashout", "headers": [{"key": "Host", "value": "x"}]},
        [
            "url: Expected `str`, got `int`",
            "eventType: must be one of " + ", ".join(kind.value for kind in REGISTRABLE),
            "headers: header 'Host' may not be set",
        ],
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [*CASES, *MIXED],
    ids=[f"{m} {p} {i}" for i, (m, p, _, _) in enumerate(CASES)]
    + [f"type+rule {m} {p} {i}" for i, (m, p, _, _) in enumerate(MIXED)],
)
async def test_every_mistake_of_a_body_is_reported_at_once(  # noqa: PLR0917 - pytest hands fixtures and parameters by name
    pg_uow: UnitOfWorkFactory, api: Api, method: str, path: str, body: dict[str, Any], expected: list[str]
) -> None:
    client = await new_client(pg_uow)
    headers = await bearer(api.client, client) | {
        "x-idempotency-key": "5b0f6a54-53c7-4d5e-9d55-8e8f3c2a1b90",
        "X-SSL-Client-Cert": client.cert_header,
    }
    response = await api.client.request(method, path, json=body, headers=headers)
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["error"] == "Bad Request"
    assert answer["details"] == expected
    assert all(item in answer["message"] for item in expected)


async def test_one_mistake_is_still_reported_as_before(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    response = await api.client.post(
        "/api/auth/token", json={"clientId": "x"}, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    assert response.status_code == 400
    assert response.json() == {
        "statusCode": 400,
        "message": "Invalid request: data: Object missing required field `clientSecret`",
        "error": "Bad Request",
        "details": ["data: Object missing required field `clientSecret`"],
    }


async def test_a_missing_idempotency_key_is_still_reported_before_the_body(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    headers = await bearer(api.client, client)  # no x-idempotency-key
    response = await api.client.post("/dict/pix", json={"pixKey": 5}, headers=headers)
    assert response.status_code == 400, response.text
    assert "x-idempotency-key" in response.json()["message"]


CANCEL = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
ONLY_CANCEL = f"status: the only status a change may set is {CANCEL}"

DEEP_OBJECT = b'{"a":' * 5_000 + b"1" + b"}" * 5_000
# PATCH /cob/{txid}: hostile bodies on an active charge, each a 400 in the error shape that
# leaves the charge as it was (never a 500, never a cancellation).
HOSTILE_PATCHES: list[tuple[str, bytes]] = [
    ("nul-escaped", json.dumps({"status": CANCEL + "\u0000"}).encode()),
    ("nul-raw", b'{"status": "' + CANCEL.encode() + b'\x00"}'),
    ("10k-string", json.dumps({"status": "R" * 10_000}).encode()),
    ("10k-key", json.dumps({"status": CANCEL, "k" * 10_000: 1}).encode()),
    ("deep", b'{"status": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
    (
        "deep-object",
        b'{"status": "' + CANCEL.encode() + b'", "x": ' + b'{"a":' * 5_000 + b"1" + b"}" * 5_000 + b"}",
    ),
    ("number", b'{"status": 5}'),
    ("null", b'{"status": null}'),
    ("list", json.dumps({"status": [CANCEL]}).encode()),
    ("object", json.dumps({"status": {"value": CANCEL}}).encode()),
    ("empty-object", b"{}"),
    ("array-body", json.dumps([CANCEL]).encode()),
    ("string-body", json.dumps(CANCEL).encode()),
    ("null-body", b"null"),
    ("empty-body", b""),
    ("truncated", b'{"status": "REMOVIDA'),
    ("invalid-utf8", b'{"status": "\xff\xfe"}'),
    ("unknown-field", json.dumps({"status": CANCEL, "valor": {"original": "1.00"}}).encode()),
]


@pytest.mark.parametrize(("name", "body"), HOSTILE_PATCHES, ids=[name for name, _ in HOSTILE_PATCHES])
async def test_a_hostile_patch_of_a_charge_is_a_400_that_changes_nothing(
    pg_uow: UnitOfWorkFactory, api: Api, name: str, body: bytes
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    path = "/cob/" + secrets.token_hex(15)
    created = await api.client.put(
        path, json={"calendario": {}, "valor": {"original": "10.00"}}, headers=auth
    )
    assert created.status_code == 201, created.text
    response = await api.client.patch(path, content=body, headers=auth | {"content-type": "application/json"})
    assert response.status_code == 400, (name, response.text)
    answer = response.json()
    assert answer["statusCode"] == 400
    assert answer["error"] == "Bad Request"
    assert answer["message"]
    assert "Traceback" not in response.text
    after = (await api.client.get(path, headers=auth)).json()
    assert (after["status"], after["revisao"]) == ("ATIVA", 0)


async def test_a_patch_of_a_charge_reports_all_its_mistakes_at_once(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    response = await api.client.patch(
        "/cob/" + secrets.token_hex(15),
        json={"valor": {"original": "1.0"}, "status": 5, "juros": None, "devedor": {"cpf": 1}},
        headers=auth,
    )
    assert response.status_code == 400, response.text
    assert response.json()["details"] == [
        "data: Object contains unknown field `juros`",
        "valor.original: Invalid amount: a positive value in reais with at most 2 decimals is expected.",
        "devedor.cpf: must be a valid CPF of exactly 11 digits",
        "devedor.nome: required with a document, at most 200 characters",
        ONLY_CANCEL,
        "status: a charge is cancelled alone, not together with other changes",
    ]


async def test_the_document_says_a_patch_of_a_charge_takes_no_other_field(api: Api) -> None:
    schemas = (await api.client.get("/schema/openapi.json")).json()["components"]["schemas"]
    assert schemas["CobPatchIn"]["additionalProperties"] is False
    assert not schemas["CobPatchIn"].get("required")  # each part left out is unchanged
