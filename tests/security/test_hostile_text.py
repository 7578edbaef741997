"""Text the service cannot store (docs/decisions/hostile-text.md): a NUL character, invalid UTF-8, JSON nested
deeper than 64 levels, or text longer than a field's documented maximum is a 400 in the error
shape, on every endpoint, the token endpoints included; never a 500.

The table is the app's own OpenAPI document: every operation, every path and query parameter,
every string field of every request body (found by walking its schema), so that an endpoint or a
field added later is covered without a line changed here. Each test sends its hostile requests
and lists every answer that is not the expected 400, then fails with the whole list.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.edge import MAX_DEPTH
from tests.e2e.conftest import Api
from tests.security.conftest import ERROR_KEYS, Signed, all_logs, signed_in
from tests.support import random_cpf

METHODS = ("get", "put", "post", "patch", "delete")
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
Path = tuple[str | int, ...]
ANY_KEY = "k"  # the key of a value of an object of any keys (additionalProperties)


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"

    def parameters(self, where: str) -> list[dict[str, Any]]:
        return [p for p in self.spec.get("parameters", []) if p["in"] == where]

    @property
    def media_type(self) -> str | None:
        content = self.spec.get("requestBody", {}).get("content", {})
        return next(iter(content), None)

    def body_schema(self) -> dict[str, Any] | None:
        media_type = self.media_type
        return None if media_type is None else self.spec["requestBody"]["content"][media_type]["schema"]


@dataclass(frozen=True)
class Leaf:
    """A place in a request body where a string goes, with its documented maximum."""

    path: Path
    max_length: int | None

    @property
    def name(self) -> str:
        return next(part for part in reversed(self.path) if isinstance(part, str) and part != ANY_KEY)


class Document:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def operations(self) -> list[Operation]:
        return [
            Operation(method, path, spec)
            for path, item in self.document["paths"].items()
            for method, spec in item.items()
            if method in METHODS
        ]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A ``$ref`` followed, and Litestar's ``allOf`` of one ref (a referenced body or property
        with its own description and examples) opened."""
        while "$ref" in schema or len(schema.get("allOf", [])) == 1:
            if "$ref" in schema:
                name = schema["$ref"].rsplit("/", 1)[-1]
                schema = self.document["components"]["schemas"][name]
            else:
                schema = schema["allOf"][0]
        return schema

    def alternatives(self, schema: dict[str, Any]) -> list[dict[str, Any]]:
        """The non-null arms of a ``oneOf``/``anyOf`` (or the schema itself), resolved."""
        schema = self.resolve(schema)
        arms = schema.get("oneOf") or schema.get("anyOf")
        if not arms:
            return [schema]
        return [self.resolve(arm) for arm in arms if self.resolve(arm).get("type") != "null"]

    def leaves(self, schema: dict[str, Any], path: Path = ()) -> Iterator[Leaf]:
        """Every string-admitting place of a body schema: ``type: string``, or no type at all."""
        outer = self.resolve(schema)
        for arm in self.alternatives(schema):
            kind = arm.get("type")
            if kind == "object" or "properties" in arm:
                for name, sub in arm.get("properties", {}).items():
                    yield from self.leaves(sub, (*path, name))
                values = arm.get("additionalProperties")
                if isinstance(values, dict):
                    yield from self.leaves(values, (*path, ANY_KEY))
            elif kind == "array":
                items = outer.get("items") if "maxLength" in outer.get("items", {}) else arm.get("items")
                yield from self.leaves(items or {}, (*path, 0))
            elif kind in (None, "string"):
                yield Leaf(path, arm.get("maxLength", outer.get("maxLength")))

    def example(self, schema: dict[str, Any]) -> Any:
        """A value of the schema's shape: required properties only, a string where a string goes."""
        arm = self.alternatives(schema)[0]
        if "default" in arm:
            return arm["default"]
        kind = arm.get("type")
        if kind == "object" or "properties" in arm:
            required = arm.get("required", [])
            return {
                name: self.example(sub) for name, sub in arm.get("properties", {}).items() if name in required
            }
        return {"array": [], "integer": 1, "number": 1, "boolean": True}.get(kind, "x")

    def example_of(self, schema: dict[str, Any]) -> Any:
        """:meth:`example`, with identifiers in the body well formed (``endToEndId``), so that the
        field under test is the one a handler that stops at the first bad field judges."""
        body = self.example(schema)
        if isinstance(body, dict):
            body.update({name: value for name, value in BODY_VALUES.items() if name in body})
        return body

    def with_leaf(self, schema: dict[str, Any], body: Any, path: Path, value: Any) -> Any:
        """``body`` with ``value`` at ``path`` (containers on the way made from the schema)."""
        if not path:
            return value
        head, rest = path[0], path[1:]
        arm = next(
            (
                a
                for a in self.alternatives(schema)
                if a.get("type") in ("object", "array") or "properties" in a
            ),
            self.alternatives(schema)[0],
        )
        if isinstance(head, int):
            current = body if isinstance(body, list) and body else [self.example(arm.get("items", {}))]
            return [self.with_leaf(arm.get("items", {}), current[0], rest, value)]
        sub = arm.get("properties", {}).get(head) or arm.get("additionalProperties") or {}
        current = dict(body) if isinstance(body, dict) else {}
        current[head] = self.with_leaf(sub, current.get(head, self.example(sub)), rest, value)
        return current


def _document() -> Document:
    from pixinfra.settings import Settings
    from pixweb.app import create_app

    return Document(create_app(Settings(run_workers=False, sandbox=True)).openapi_schema.to_schema())


DOCUMENT = _document()
OPERATIONS = DOCUMENT.operations()
PATH_VALUES = {"txid": "a" * 32, "e2eid": "E" + "1" * 31, "refund_id": "r1", "batch_id": "1"}
BODY_VALUES = {"endToEndId": PATH_VALUES["e2eid"]}


def _path_value(parameter: dict[str, Any]) -> str:
    if parameter["schema"].get("type") == "integer":
        return "1"
    return PATH_VALUES.get(parameter["name"], "x")


def url_of(operation: Operation, replace: dict[str, str] | None = None) -> str:
    """The operation's path with every parameter filled (``replace``: raw, already percent-encoded)."""
    url = operation.path
    for parameter in operation.parameters("path"):
        value = (replace or {}).get(parameter["name"]) or quote(_path_value(parameter), safe="")
        url = url.replace("{" + parameter["name"] + "}", value)
    return url


def headers_of(operation: Operation, who: Signed) -> dict[str, str]:
    headers = dict(who.auth)
    for parameter in operation.parameters("header"):
        if parameter.get("required"):
            headers[parameter["name"]] = str(uuid.uuid4())  # the one required header: the idempotency key
    return headers


async def send_body(api: Api, operation: Operation, who: Signed, body: Any) -> httpx.Response:
    media_type = operation.media_type or JSON
    content = urlencode(body).encode() if media_type == FORM else json.dumps(body).encode()
    headers = headers_of(operation, who) | {"content-type": media_type}
    return await api.client.request(operation.method, url_of(operation), content=content, headers=headers)


PROBLEM_KEYS = {"type", "title", "status", "detail"}


def refusal(response: httpx.Response, *, mentions: str) -> str | None:
    """Why ``response`` is not the 400 in the error shape whose message names ``mentions``: our
    specification's shape, or on the central bank's standard routes (docs/decisions/standard-api.md) its
    ``application/problem+json`` with the message in ``detail``."""
    if response.status_code != 400:
        return f"{response.status_code} {response.text[:200]}"
    body = response.json()
    if "Traceback" in response.text:
        return f"a traceback: {response.text[:200]}"
    if response.headers.get("content-type", "").startswith("application/problem+json"):
        if not set(body) >= PROBLEM_KEYS or body["status"] != 400:
            return f"not the standard's problem shape: {response.text[:200]}"
        message = str(body.get("detail") or "")
    elif not set(body) >= ERROR_KEYS or body["statusCode"] != 400:
        return f"not the error shape: {response.text[:200]}"
    else:
        message = body["message"]
    if mentions.lower() not in message.lower():
        return f"400 but not about {mentions!r}: {message[:200]}"
    return None


def body_cases() -> list[tuple[Operation, Leaf]]:
    return [
        (operation, leaf)
        for operation in OPERATIONS
        if (schema := operation.body_schema()) is not None
        for leaf in DOCUMENT.leaves(schema)
    ]


# -- the document ------------------------------------------------------------------------------------------


def test_the_table_covers_every_body_and_the_token_endpoints() -> None:
    labels = {operation.label for operation, _ in body_cases()}
    assert {"POST /api/auth/token", "POST /oauth/token", "POST /dict/pix", "PUT /cob/{txid}"} <= labels
    assert len(body_cases()) > 40


def test_every_text_field_of_a_request_has_a_documented_maximum() -> None:
    missing = [
        f"{operation.label} {'.'.join(map(str, leaf.path))}"
        for operation, leaf in body_cases()
        if leaf.max_length is None
    ]
    missing += [
        f"{operation.label} header {parameter['name']}"
        for operation in OPERATIONS
        for parameter in operation.parameters("header")
        if parameter["name"].lower() == "x-ssl-client-cert" and "maxLength" not in parameter["schema"]
    ]
    assert not missing, "\n".join(missing)


# -- bodies ------------------------------------------------------------------------------------------------


async def test_a_nul_in_any_string_of_any_body_is_a_400(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    who = await signed_in(pg_uow, api.client)
    wrong = []
    for operation, leaf in body_cases():
        schema = operation.body_schema()
        assert schema is not None
        body = DOCUMENT.with_leaf(schema, DOCUMENT.example_of(schema), leaf.path, "a\x00b")
        response = await send_body(api, operation, who, body)
        if (problem := refusal(response, mentions="NUL")) is not None:
            wrong.append(f"{operation.label} {leaf.name}: {problem}")
    assert not wrong, "\n".join(wrong)


async def with_a_due_charge(api: Api, who: Signed) -> None:
    """A due-date charge of ``who`` at the txid the paths carry: ``PATCH /cobv/{txid}`` judges a
    revision against the terms it changes, so its charge is looked up first (an unknown txid is a
    404, ``CobVNaoEncontrada``); with this one there, its body's rules answer."""
    due = {
        "calendario": {"dataDeVencimento": (api.clock.now() + timedelta(days=30)).date().isoformat()},
        "devedor": {"cpf": random_cpf(), "nome": "Joao da Silva"},
        "valor": {"original": "10.00"},
    }
    response = await api.client.put(f"/cobv/{PATH_VALUES['txid']}", json=due, headers=who.auth)
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("over", [1, 100_000], ids=["one-over", "100k"])
async def test_text_over_a_fields_documented_maximum_is_a_400(
    pg_uow: UnitOfWorkFactory, api: Api, over: int
) -> None:
    who = await signed_in(pg_uow, api.client)
    await with_a_due_charge(api, who)
    wrong = []
    with all_logs() as records:
        for operation, leaf in body_cases():
            schema = operation.body_schema()
            assert schema is not None
            assert leaf.max_length is not None, (operation.label, leaf)
            # Digits: in every field's alphabet, so that only the length is wrong.
            long = "7" * (leaf.max_length + over)
            body = DOCUMENT.with_leaf(schema, DOCUMENT.example_of(schema), leaf.path, long)
            response = await send_body(api, operation, who, body)
            if (problem := refusal(response, mentions=leaf.name)) is not None:
                wrong.append(f"{operation.label} {leaf.name} ({leaf.max_length}): {problem}")
    assert not wrong, "\n".join(wrong)
    assert not [r for r in records if r.name == "pixweb.errors"], "an unhandled error was logged"


def _hostile_bodies(operation: Operation) -> list[tuple[str, bytes, str]]:
    """(what, raw body, what the 400's message says) for one operation with a body."""
    if operation.media_type == FORM:
        return [
            ("invalid UTF-8", b"grant_type=client_credentials&client_id=%FF%FE", "UTF-8"),
            ("an encoded surrogate", b"grant_type=client_credentials&client_id=%ED%A0%80", "UTF-8"),
            ("a NUL in a name", b"grant_type=client_credentials&client%00id=a", "NUL"),
        ]
    return [
        ("invalid UTF-8", b'{"a": "\xff\xfe"}', "UTF-8"),
        ("an encoded surrogate", b'{"a": "\xed\xa0\x80"}', "UTF-8"),
        ("a NUL in a key", b'{"a\\u0000": 1}', "NUL"),
        ("1,000 levels", b"[" * 1000 + b"]" * 1000, "deeper"),
        ("100,000 levels", b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "deeper"),
        (f"{MAX_DEPTH + 1} levels", b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "deeper"),
    ]


async def test_invalid_utf8_nuls_in_names_and_deep_nesting_are_400_on_every_body(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    who = await signed_in(pg_uow, api.client)
    wrong = []
    with all_logs() as records:
        for operation in OPERATIONS:
            if operation.media_type is None:
                continue
            for what, content, mentions in _hostile_bodies(operation):
                headers = headers_of(operation, who) | {"content-type": operation.media_type}
                response = await api.client.request(
                    operation.method, url_of(operation), content=content, headers=headers
                )
                if (problem := refusal(response, mentions=mentions)) is not None:
                    wrong.append(f"{operation.label} {what}: {problem}")
    assert not wrong, "\n".join(wrong)
    assert not [r for r in records if r.name == "pixweb.errors"], "an unhandled error was logged"


async def test_nesting_of_exactly_the_limit_is_read(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    """The control: 64 levels are decoded and judged by the handler (its own 400), not refused."""
    who = await signed_in(pg_uow, api.client)
    nested = b'{"url": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b', "eventType": "cash_in"}'
    headers = who.auth | {"content-type": JSON}
    response = await api.client.post("/api/webhooks", content=nested, headers=headers)
    assert response.status_code == 400, response.text
    assert "deeper" not in response.json()["message"]
    assert "url" in response.json()["message"]


# -- paths, query strings, headers -------------------------------------------------------------------------


async def test_a_nul_or_invalid_utf8_in_any_path_parameter_is_a_400(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    """A parameter the route reads as text is refused by the edge (the standard's ``loc.id`` and
    batch id too: documented as the integers they are, read as the text its paths allow); one the
    route reads as an integer, when it is no integer, names no route (404, the rule of unknown
    routes). Never a 500."""
    assert api.app is not None
    route_types = {
        (route.path_format, name): definition.type
        for route in api.app.routes
        for name, definition in route.path_parameters.items()
    }
    who = await signed_in(pg_uow, api.client)
    wrong = []
    for operation in OPERATIONS:
        for parameter in operation.parameters("path"):
            for raw, mentions in (("a%00b", "NUL"), ("a%FFb", "UTF-8"), ("%ED%A0%80", "UTF-8")):
                value = _path_value(parameter)[:-1] + raw
                url = url_of(operation, {parameter["name"]: value})
                headers = headers_of(operation, who)
                response = await api.client.request(operation.method, url, headers=headers, json={})
                if route_types[operation.path, parameter["name"]] is int:
                    if response.status_code != 404 or not set(response.json()) >= ERROR_KEYS:
                        wrong.append(f"{operation.label} {parameter['name']}={raw}: {response.status_code}")
                elif (problem := refusal(response, mentions=mentions)) is not None:
                    wrong.append(f"{operation.label} {parameter['name']}={raw}: {problem}")
    assert not wrong, "\n".join(wrong)


async def test_a_nul_or_invalid_utf8_in_any_query_parameter_is_a_400(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    """Every documented query parameter, and one no operation documents (it is text all the same)."""
    who = await signed_in(pg_uow, api.client)
    wrong = []
    for operation in OPERATIONS:
        names = [parameter["name"] for parameter in operation.parameters("query")] + ["unknown"]
        for name in names:
            for raw, mentions in (("a%00b", "NUL"), ("a%FF", "UTF-8"), ("%C0%80", "UTF-8")):
                url = f"{url_of(operation)}?{name}={raw}"
                headers = headers_of(operation, who)
                response = await api.client.request(operation.method, url, headers=headers, json={})
                if mentions == "NUL" and operation.path.startswith("/qr/v2"):
                    # The standard's face (the payloads are only the standard's): a NUL is judged by
                    # the parameter's own rules (tests/e2e/standard), a 4xx problem all the same.
                    if not 400 <= response.status_code < 500 or "type" not in response.json():
                        wrong.append(f"{operation.label} ?{name}={raw}: {response.status_code}")
                elif (problem := refusal(response, mentions=mentions)) is not None:
                    wrong.append(f"{operation.label} ?{name}={raw}: {problem}")
    assert not wrong, "\n".join(wrong)


async def test_the_examples_of_the_issue(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    """Each a 400 naming what is wrong, never a 500."""
    who = await signed_in(pg_uow, api.client)
    other = await signed_in(pg_uow, api.client)
    transfer = {"pixKey": other.key, "payment": {"amount": 1}}
    idempotent = who.auth | {"x-idempotency-key": str(uuid.uuid4())}
    cases: list[tuple[str, httpx.Response, str]] = [
        (
            "clientId of /api/auth/token",
            await api.client.post(
                "/api/auth/token",
                json={"clientId": "a\x00b", "clientSecret": "x"},
                headers={"X-SSL-Client-Cert": who.client.cert_header},
            ),
            "NUL",
        ),
        (
            "client_id of /oauth/token",
            await api.client.post(
                "/oauth/token",
                data={"grant_type": "client_credentials", "client_id": "a\x00b", "client_secret": "x"},
                headers={"X-SSL-Client-Cert": who.client.cert_header},
            ),
            "NUL",
        ),
        (
            "description of a transfer",
            await api.client.post("/dict/pix", json=transfer | {"description": "a\x00"}, headers=idempotent),
            "NUL",
        ),
        (
            "a 101-character paymentFlow",
            await api.client.post(
                "/dict/pix",
                json=transfer | {"paymentFlow": "x" * 101},
                headers=who.auth | {"x-idempotency-key": str(uuid.uuid4())},
            ),
            "paymentFlow",
        ),
        (
            "a 100,000-character sandbox payer name",
            await api.client.post(
                "/sandbox/payments",
                json={"pixKey": who.key, "amount": 1, "payer": {"name": "x" * 100_000}},
                headers=who.auth,
            ),
            "name",
        ),
        (
            "a query filter",
            await api.client.get("/api/transactions?externalId=a%00", headers=who.auth),
            "NUL",
        ),
        ("a path id", await api.client.get("/api/pix/transaction/1%00", headers=who.auth), "NUL"),
        ("a location id", await api.client.get("/qr/v2/a%00b"), "NUL"),
    ]
    wrong = [
        f"{what}: {problem}"
        for what, response, mentions in cases
        if (problem := refusal(response, mentions=mentions))
    ]
    assert not wrong, "\n".join(wrong)


async def test_nul_in_the_credentials_of_a_basic_header_is_a_400(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    import base64

    who = await signed_in(pg_uow, api.client)
    for credentials in ("a\x00b:secret", "client:se\x00cret", "client:" + "s" * 300):
        basic = base64.b64encode(credentials.encode()).decode()
        response = await api.client.post(
            "/oauth/token",
            data={"grant_type": "client_credentials"},
            headers={"Authorization": f"Basic {basic}", "X-SSL-Client-Cert": who.client.cert_header},
        )
        assert response.status_code == 400, response.text
        assert response.json()["error"] == "invalid_request"


async def test_a_nul_in_the_certificate_header_is_a_400(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    who = await signed_in(pg_uow, api.client)
    for header in (
        "%00" + who.client.cert_header,
        who.client.cert_header + "%00",
        "%FF" + who.client.cert_header,
    ):
        response = await api.client.post(
            "/api/auth/token", json=who.client.credentials, headers={"X-SSL-Client-Cert": header}
        )
        assert refusal(response, mentions="X-SSL-Client-Cert") is None, response.text
