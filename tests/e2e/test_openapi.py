"""The OpenAPI document is served, browsable, and names every operation."""

from __future__ import annotations

import re

from tests.e2e.conftest import Api
from tests.support import bearer, new_client

HTTP_METHODS = {"get", "put", "post", "patch", "delete"}


async def test_openapi_document_lists_every_route_with_an_operation_id(api: Api) -> None:
    response = await api.client.get("/schema/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    operations = {
        (path, method): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    }
    expected = {
        ("/api/auth/token", "post"),
        ("/oauth/token", "post"),
        ("/.well-known/jwks.json", "get"),
        ("/accounts/balances", "get"),
        ("/balance", "get"),
    }
    assert expected <= set(operations)
    ids = [operation.get("operationId") for operation in operations.values()]
    assert all(ids), (
        f"operations without operation_id: {[k for k, v in operations.items() if not v.get('operationId')]}"
    )
    assert len(set(ids)) == len(ids)
    # The token endpoints need no bearer token; the others do.
    assert operations[("/api/auth/token", "post")].get("security") == [{}]
    assert "security" not in operations[("/balance", "get")] or operations[("/balance", "get")]["security"]


async def test_every_app_route_is_in_the_document(api: Api) -> None:
    from pixweb.app import create_app

    app = create_app(api.settings)
    documented = set((await api.client.get("/schema/openapi.json")).json()["paths"])
    for route in app.routes:
        if route.path.startswith("/schema"):
            continue
        path = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)  # the document drops the converters
        assert path in documented, route.path


async def test_browsable_reference_page_is_served(api: Api) -> None:
    response = await api.client.get("/schema")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "openapi.json" in response.text


async def test_the_idempotency_key_is_a_required_header_and_its_absence_is_the_spec_400(api: Api) -> None:
    document = (await api.client.get("/schema/openapi.json")).json()
    parameters = document["paths"]["/dict/pix"]["post"]["parameters"]
    header = next(p for p in parameters if p["name"].lower() == "x-idempotency-key")
    assert (header["in"], header["required"]) == ("header", True)

    auth = await bearer(api.client, await new_client())
    response = await api.client.post("/dict/pix", json={}, headers=auth)
    assert response.status_code == 400
    body = response.json()
    assert body["statusCode"] == 400
    assert "x-idempotency-key" in body["message"]
