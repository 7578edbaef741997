"""Every endpoint reports all the mistakes of a body at once, in ``details`` (issue 19, item 4).

Each case sends a body with several mistakes and expects every one of them back, worded as the
endpoint words each mistake alone: msgspec's words for a wrong type or a missing field, the
``pixcore`` parsers' words for a broken rule.
"""

from __future__ import annotations

from typing import Any

import pytest

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


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    CASES,
    ids=[f"{m} {p} {i}" for i, (m, p, _, _) in enumerate(CASES)],
)
async def test_every_mistake_of_a_body_is_reported_at_once(
    api: Api, method: str, path: str, body: dict[str, Any], expected: list[str]
) -> None:
    client = await new_client()
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


async def test_one_mistake_is_still_reported_as_before(api: Api) -> None:
    client = await new_client()
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


async def test_a_missing_idempotency_key_is_still_reported_before_the_body(api: Api) -> None:
    client = await new_client()
    headers = await bearer(api.client, client)  # no x-idempotency-key
    response = await api.client.post("/dict/pix", json={"pixKey": 5}, headers=headers)
    assert response.status_code == 400, response.text
    assert "x-idempotency-key" in response.json()["message"]
