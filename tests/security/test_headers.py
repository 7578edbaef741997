"""Header injection: webhook custom headers cannot smuggle lines into the requests the notifier
sends, and no response header repeats a CR, LF or NUL the request carried.

The HTTP client here talks ASGI, so it delivers header values and paths with raw control
characters to the app as they are (a proxy or a lenient server might do the same).
"""

from __future__ import annotations

from typing import Any

import httpx

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.security.conftest import assert_error, signed_in

HOOK = "https://93.184.216.34/hook"  # public literal: registration asks no DNS, nothing is sent

BAD_HEADERS: list[tuple[str, str]] = [
    ("X-A\r\nX-Injected", "v"),
    ("X-A\nX-Injected", "v"),
    ("X-A\r", "v"),
    ("X-A\x00", "v"),
    ("X A", "v"),
    ("X:A", "v"),
    ("X-A:", "v"),
    ("", "v"),
    ("X-\u00c4", "v"),
    ("X\tA", "v"),
    ("(X)", "v"),
    ("X/A", "v"),
    ("X-A", "v\r\nX-Injected: 1"),
    ("X-A", "v\nX-Injected: 1"),
    ("X-A", "v\rX-Injected: 1"),
    ("X-A", "v\x00"),
    ("X-A", "v\x7f"),
    ("X-A", "v\x1b[31m"),
    ("X-A", "caf\u00e9"),
    ("X-A", "v\u2028X-Injected: 1"),
    ("X-A", "v\u0085"),
    # names the notifier itself sets, in any letter case
    ("Host", "127.0.0.1"),
    ("TRANSFER-ENCODING", "chunked"),
    ("Content-Length", "0"),
    ("webhook-Signature", "v1,forged"),
]


async def test_custom_headers_with_control_characters_or_bad_names_are_400(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    who = await signed_in(pg_uow, api.client)
    registered = []
    for name, value in BAD_HEADERS:
        body = {"url": HOOK, "eventType": "cash_in", "headers": [{"key": name, "value": value}]}
        response = await api.client.post("/api/webhooks", json=body, headers=who.auth)
        if response.status_code != 400:
            registered.append(f"{name!r}: {value!r} -> {response.status_code} {response.text}")
            continue
        assert_error(response, 400, reasons=("Bad Request",))
        assert "\r" not in response.text
        assert "\n" not in response.text
    assert not registered, "\n".join(registered)
    assert (await api.client.get("/api/webhooks", headers=who.auth)).json()["total"] == 0

    # The control: a good header registers, and a bad one cannot replace it afterwards.
    good = {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "X-Tenant", "value": "a b\tc"}]}
    assert (await api.client.post("/api/webhooks", json=good, headers=who.auth)).status_code == 200
    for name, value in BAD_HEADERS:
        body = good | {"headers": [{"key": "X-Tenant", "value": "ok"}, {"key": name, "value": value}]}
        assert_error(await api.client.post("/api/webhooks", json=body, headers=who.auth), 400)
    (kept,) = (await api.client.get("/api/webhooks", headers=who.auth)).json()["webhooks"]
    assert (kept["headers"], kept["version"]) == ({"X-Tenant": "a b\tc"}, 1)
    assert (await api.client.delete(f"/api/webhooks/{kept['id']}", headers=who.auth)).status_code == 200


INJECTED = "x\r\nSet-Cookie: injected=1\r\nX-Injected: 1"


def assert_clean(response: httpx.Response, where: str) -> None:
    assert response.status_code < 500, f"{where}: {response.status_code} {response.text}"
    for name, value in response.headers.raw:
        for bad in (b"\r", b"\n", b"\x00"):
            assert bad not in name, f"{where}: header name {name!r}"
            assert bad not in value, f"{where}: header {name!r}: {value!r}"
    names = {name.lower() for name, _ in response.headers.raw}
    assert b"set-cookie" not in names, where
    assert b"x-injected" not in names, where
    assert "injected" not in response.headers.get("x-request-id", ""), where


async def test_no_response_header_echoes_request_controlled_line_breaks(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    who = await signed_in(pg_uow, api.client)
    http = api.client
    attempts: list[tuple[str, str, dict[str, str], Any]] = [
        ("GET", "/balance", {"X-Request-Id": INJECTED}, None),
        ("GET", "/balance", {"X-Request-Id": "ok\x00id"}, None),
        ("GET", "/no/such/route", {"X-Request-Id": INJECTED}, None),
        ("GET", "/balance", {"X-SSL-Client-Cert": INJECTED}, None),
        ("GET", "/balance", {"Origin": INJECTED, "Accept": INJECTED}, None),
        (
            "POST",
            "/dict/pix",
            {"X-Idempotency-Key": INJECTED},
            {"pixKey": "a@b.example", "payment": {"amount": 1}},
        ),
        ("GET", "/cob/abc%0d%0aSet-Cookie:%20injected=1", {}, None),
        ("GET", "/api/pix/transaction/1%0d%0aX-Injected:%201", {}, None),
        ("GET", "/api/transactions?externalId=%0d%0aX-Injected:%201", {}, None),
        ("PUT", "/pix/E%0d%0aX-Injected/devolucao/1", {}, {"valor": "1.00"}),
    ]
    for method, path, headers, body in attempts:
        response = await http.request(method, path, json=body, headers=who.auth | headers)
        assert_clean(response, f"{method} {path} {headers}")
    for headers in ({"Authorization": f"Bearer {INJECTED}"}, {"Authorization": INJECTED}):
        response = await http.get("/balance", headers=headers)
        assert_error(response, 401)
        assert_clean(response, f"unauthenticated {headers}")
    token = await http.post(
        "/api/auth/token",
        json={"clientId": INJECTED, "clientSecret": INJECTED},
        headers={"X-SSL-Client-Cert": who.client.cert_header, "X-Request-Id": INJECTED},
    )
    assert_error(token, 401)
    assert_clean(token, "token")
    oauth = await http.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        headers={"Authorization": f"Basic {INJECTED}", "X-SSL-Client-Cert": who.client.cert_header},
    )
    assert oauth.status_code == 401
    assert_clean(oauth, "oauth")
