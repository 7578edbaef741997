"""The OpenAPI document is served, browsable, and names every operation."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import jsonschema
import msgspec
import pytest

import pixweb
from pixcore.testing import StaticResolver
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import EventType
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
    # The token endpoints need no bearer token (OpenAPI 3: an empty list); the others do.
    assert operations[("/api/auth/token", "post")].get("security") == []
    assert "security" not in operations[("/balance", "get")] or operations[("/balance", "get")]["security"]


async def test_every_app_route_is_in_the_document(api: Api) -> None:
    from pixweb.app import create_app
    from pixweb.console.routes import CONSOLE_PATHS

    app = create_app(api.settings)
    documented = set((await api.client.get("/schema/openapi.json")).json()["paths"])
    for route in app.routes:
        if route.path.startswith("/schema") or any(re.match(p, route.path) for p in CONSOLE_PATHS):
            continue  # the document's own pages, and the web console's (HTML, not the API)
        if route.path.startswith(api.settings.standard_prefix + "/"):
            continue  # the standard's face: its own document (tests/e2e/standard)
        path = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)  # the document drops the converters
        assert path in documented, route.path


async def test_browsable_reference_page_is_served(api: Api) -> None:
    response = await api.client.get("/schema")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    # The document is written into the page (tests/e2e/api/test_reference_page.py: nothing is fetched).
    document = (await api.client.get("/schema/openapi.json")).json()
    operation_ids = [
        op["operationId"]
        for item in document["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    ]
    assert operation_ids
    assert all(f'"operationId":"{oid}"' in response.text for oid in operation_ids)


async def test_the_idempotency_key_is_a_required_header_and_its_absence_is_the_spec_400(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    document = (await api.client.get("/schema/openapi.json")).json()
    parameters = document["paths"]["/dict/pix"]["post"]["parameters"]
    header = next(p for p in parameters if p["name"].lower() == "x-idempotency-key")
    assert (header["in"], header["required"]) == ("header", True)

    auth = await bearer(api.client, await new_client(pg_uow))
    response = await api.client.post("/dict/pix", json={}, headers=auth)
    assert response.status_code == 400
    body = response.json()
    assert body["statusCode"] == 400
    assert "x-idempotency-key" in body["message"]


# -- structure: what generated clients need ---------------------------------------------------

TIMESTAMP_NAME = re.compile(r"(At|Date|Time|^criacao|^horario|^solicitacao|^liquidacao|^now)$")
"""Names of the properties that hold an instant, when they are text (``expirationTime`` is seconds)."""


async def served(api: Api) -> dict[str, Any]:
    response = await api.client.get("/schema/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def walk(node: object, where: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object of the document, with its JSON pointer."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}/{index}")


def properties(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every property of every schema: (where, name, schema)."""
    for where, node in walk(document):
        if isinstance(node.get("properties"), dict) and node.get("type") in ("object", None):
            for name, schema in node["properties"].items():
                yield where, name, schema


def types_of(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    found = set(kind) if isinstance(kind, list) else {kind} if kind else set()
    for member in schema.get("oneOf", []) + schema.get("anyOf", []):
        found |= types_of(member)
    return found


def parameters(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                for parameter in operation.get("parameters", []):
                    yield path, method, parameter


def test_no_two_structs_of_the_api_share_a_name() -> None:
    """Litestar would prefix colliding names with their module, and generators drop the pair."""
    names = Counter(
        cls.__name__
        for info in pkgutil.walk_packages(pixweb.__path__, "pixweb.")
        for cls in vars(importlib.import_module(info.name)).values()
        if isinstance(cls, type) and issubclass(cls, msgspec.Struct) and cls.__module__ == info.name
    )
    assert [name for name, count in names.items() if count > 1] == []


async def test_every_component_is_titled_by_its_own_unique_name(api: Api) -> None:
    schemas = (await served(api))["components"]["schemas"]
    titles = Counter(schema.get("title", name) for name, schema in schemas.items())
    assert [title for title, count in titles.items() if count > 1] == []
    for name, schema in schemas.items():
        assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", name), name  # no module prefix of a collision
        assert schema.get("title", name) == name


def referenced(schema: dict[str, Any]) -> bool:
    """``{"allOf": [{"$ref": ...}], "description": ...}``: a referenced schema with a description of its
    own (how Litestar documents a struct-typed field), typed by the schema it names."""
    parts = schema.get("allOf", [])
    return len(parts) == 1 and "$ref" in parts[0]


async def test_every_property_and_parameter_has_a_type(api: Api) -> None:
    document = await served(api)
    untyped = [
        f"{where}/{name}"
        for where, name, schema in properties(document)
        if not (types_of(schema) or "$ref" in schema or "const" in schema or referenced(schema))
    ]
    untyped += [
        f"{method} {path} {parameter['name']}"
        for path, method, parameter in parameters(document)
        if not (types_of(parameter["schema"]) or "$ref" in parameter["schema"])
    ]
    assert untyped == []


async def test_public_operations_have_no_security_and_the_others_need_a_token(api: Api) -> None:
    """``security: []`` exactly where the service answers without a token (not a 401)."""
    document = await served(api)
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            assert operation.get("security") != [{}], (method, path)
            url = re.sub(r"\{\w+\}", "1", path)
            body = {} if method in ("post", "put", "patch") else None
            response = await api.client.request(method.upper(), url, json=body)
            public = operation.get("security") == []
            assert (response.status_code != 401) == public, (method, path, response.status_code)
            if not public:
                assert operation.get("security", document["security"]) == [{"BearerToken": []}]


async def test_page_and_size_are_bounded_integers(api: Api) -> None:
    found = 0
    for path, _method, parameter in parameters(await served(api)):
        if parameter["name"] in ("page", "size"):
            found += 1
            schema = parameter["schema"]
            assert schema["type"] == "integer", (path, parameter["name"])
            assert schema["minimum"] == 1
            assert schema["maximum"] >= 100
            assert "oneOf" not in schema
    assert found == 4


async def test_every_timestamp_is_a_date_time(api: Api) -> None:
    document = await served(api)
    timestamps = [
        (where, name, schema)
        for where, name, schema in properties(document)
        if TIMESTAMP_NAME.search(name) and "string" in types_of(schema)
    ]
    assert len(timestamps) >= 20
    assert [
        f"{where}/{name}" for where, name, schema in timestamps if schema.get("format") != "date-time"
    ] == []


BATCH_IDS = ("LoteOut/id", "batch_id")
"""A batch of due-date charges has the client's id, an int32 as the standard has it."""


async def test_integer_ids_are_int64(api: Api) -> None:
    document = await served(api)
    ids = [
        (f"{where}/{name}", schema)
        for where, name, schema in properties(document)
        if (name == "id" or name.endswith("Id")) and "integer" in types_of(schema)
    ]
    ids += [
        (f"{method} {path} {parameter['name']}", parameter["schema"])
        for path, method, parameter in parameters(document)
        if parameter["in"] == "path" and "integer" in types_of(parameter["schema"])
    ]
    assert len(ids) >= 10
    wrong = [
        where
        for where, schema in ids
        if schema.get("format") != ("int32" if where.endswith(BATCH_IDS) else "int64")
    ]
    assert wrong == []
    assert len([where for where, _ in ids if where.endswith(BATCH_IDS)]) == 4


async def test_the_jwks_response_is_a_schema_of_keys_and_the_served_set_fits_it(api: Api) -> None:
    document = await served(api)
    response = document["paths"]["/.well-known/jwks.json"]["get"]["responses"]["200"]
    schema = {**response["content"]["application/json"]["schema"], "components": document["components"]}
    jwk = document["components"]["schemas"]["Jwk"]
    assert set(jwk["required"]) == {"kty", "crv", "x", "y", "kid", "use", "alg"}
    assert all(jwk["properties"][name]["type"] == "string" for name in jwk["required"])
    served_keys = (await api.client.get("/.well-known/jwks.json")).json()
    jsonschema.Draft202012Validator(schema).validate(served_keys)
    assert not jsonschema.Draft202012Validator(schema).is_valid({"keys": [{"kty": "EC"}]})


async def test_the_certificate_header_is_required_text(api: Api) -> None:
    document = await served(api)
    for path in ("/api/auth/token", "/oauth/token"):
        (header,) = [
            p for p in document["paths"][path]["post"]["parameters"] if p["name"] == "X-SSL-Client-Cert"
        ]
        assert header["required"] is True
        assert header["schema"]["type"] == "string"
        assert types_of(header["schema"]) == {"string"}
    headers = [parameter for _, _, parameter in parameters(document) if parameter["in"] == "header"]
    assert [h["name"] for h in headers if "null" in types_of(h["schema"])] == []


@pytest.fixture(scope="module")
def resolver() -> StaticResolver:
    """The one name a test here registers, answered by the app's resolver without any network."""
    return StaticResolver({"hooks.example.com": ["93.184.216.34"]})


async def test_registering_a_webhook_returns_its_id_as_a_field(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    document = await served(api)
    response = document["paths"]["/api/webhooks"]["post"]["responses"]["200"]
    ref = response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    registered = document["components"]["schemas"][ref]
    assert {"success", "message", "id"} <= set(registered["required"])
    assert registered["properties"]["id"] == {"type": "integer", "format": "int64"}

    auth = await bearer(api.client, await new_client(pg_uow))
    body = {"url": "https://hooks.example.com/pix", "eventType": EventType.CASH_IN.value}
    answer = await api.client.post("/api/webhooks", json=body, headers=auth)
    assert answer.status_code == 200, answer.text
    listed = (await api.client.get("/api/webhooks", headers=auth)).json()["webhooks"]
    assert [w["id"] for w in listed] == [answer.json()["id"]]
    assert answer.json()["success"] is True
    assert str(answer.json()["id"]) in answer.json()["message"]
