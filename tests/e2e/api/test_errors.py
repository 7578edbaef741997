"""Every error has the body {statusCode, message, error}; never a stack trace."""

from __future__ import annotations

from typing import Any

import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.accounts import balance as balance_api
from tests.e2e.conftest import Api
from tests.support import bearer, new_client


def _assert_error_body(response: Any, status: int, reason: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert set(body) <= {"statusCode", "message", "error", "details"}
    assert body["statusCode"] == status
    assert body["error"] == reason
    assert isinstance(body["message"], str)
    assert body["message"]
    for leak in ("Traceback", 'File "', "site-packages", "Error:"):
        assert leak not in response.text
    return body


@pytest.mark.parametrize("path", ["/nope", "/api/transactions-that-do-not-exist", "/balance/extra"])
async def test_unknown_route_is_404(api: Api, path: str) -> None:
    _assert_error_body(await api.client.get(path), 404, "Not Found")


async def test_wrong_method_is_405(api: Api) -> None:
    _assert_error_body(await api.client.delete("/balance"), 405, "Method Not Allowed")
    _assert_error_body(await api.client.get("/api/auth/token"), 405, "Method Not Allowed")


@pytest.mark.parametrize("body", [b"{bad", b"[1,2", b"\xff\xfe", b"null", b"[]", b'"text"'])
async def test_malformed_or_wrongly_shaped_json_is_400(
    pg_uow: UnitOfWorkFactory, api: Api, body: bytes
) -> None:
    client = await new_client(pg_uow)
    response = await api.client.post(
        "/api/auth/token",
        content=body,
        headers={"content-type": "application/json", "X-SSL-Client-Cert": client.cert_header},
    )
    _assert_error_body(response, 400, "Bad Request")


async def test_validation_error_lists_details(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    response = await api.client.post(
        "/api/auth/token",
        json={"clientId": 12, "clientSecret": None},
        headers={"X-SSL-Client-Cert": client.cert_header},
    )
    body = _assert_error_body(response, 400, "Bad Request")
    assert body["details"]
    assert all(isinstance(item, str) for item in body["details"])


async def test_unexpected_failure_is_a_bare_500(
    pg_uow: UnitOfWorkFactory, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)

    async def explode(*_: object, **__: object) -> None:
        raise RuntimeError("secret internals: password=hunter2")

    monkeypatch.setattr(balance_api, "get_balance", explode)
    response = await api.client.get("/balance", headers=auth)
    body = _assert_error_body(response, 500, "Internal Server Error")
    assert "hunter2" not in response.text
    assert "RuntimeError" not in body["message"]


async def test_oversized_body_is_413_in_the_error_shape(api: Api) -> None:
    response = await api.client.post(
        "/api/auth/token",
        content=b"{" + b" " * 2_000_000 + b"}",
        headers={"content-type": "application/json"},
    )
    _assert_error_body(response, 413, "Request Entity Too Large")
