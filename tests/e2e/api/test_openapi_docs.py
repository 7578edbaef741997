"""The OpenAPI document says what the service does: every operation has a summary
and a description, every request and response body an example, every property of a request and
every parameter a description, every error status it can answer; and every example in it is
valid against its own schema (JSON Schema 2020-12, as OpenAPI 3.1 has it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import msgspec
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from pixinfra.settings import Settings
from pixweb.app import create_app
from tests.support.json_schema import ExactValidator

HTTP_METHODS = ("get", "put", "post", "patch", "delete")
DOCUMENT_URI = "urn:pix:openapi"
TOUCH_NO_DATABASE = {"GET /.well-known/jwks.json", "GET /metrics"}  # so they answer no 503


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    app = create_app(Settings(run_workers=False, sandbox=True))
    # As served: through JSON, so examples and defaults are what a client reads.
    served: dict[str, Any] = msgspec.json.decode(
        msgspec.json.encode(app.openapi_schema.to_schema(), enc_hook=str)
    )
    return served


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A ``$ref`` (or an ``allOf`` of one ref, Litestar's wrapper) followed to its component."""
    while True:
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        elif len(schema.get("allOf", [])) == 1 and "examples" not in schema:
            schema = schema["allOf"][0]
        else:
            return schema


def _has_example(document: dict[str, Any], media: dict[str, Any]) -> bool:
    if media.get("examples") or "example" in media:
        return True
    schema = media.get("schema", {})
    return bool(schema.get("examples") or _resolve(document, schema).get("examples"))


def _objects(
    document: dict[str, Any], schema: dict[str, Any], seen: set[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object schema reachable from ``schema`` (through refs, unions and arrays), by title."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        if name in seen:
            return
        seen.add(name)
        schema = document["components"]["schemas"][name]
        yield name, schema
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            yield from _objects(document, part, seen)
    if isinstance(schema.get("items"), dict):
        yield from _objects(document, schema["items"], seen)
    for sub in schema.get("properties", {}).values():
        yield from _objects(document, sub, seen)


def test_every_operation_has_a_summary_and_a_description(document: dict[str, Any]) -> None:
    operations = dict(_operations(document))
    assert len(operations) >= 34
    missing = [
        label for label, op in operations.items() if not op.get("summary") or not op.get("description")
    ]
    assert missing == [], missing
    # A description says more than its summary.
    same = [label for label, op in operations.items() if op["description"].strip() == op["summary"].strip()]
    assert same == [], same


def test_every_request_and_response_body_has_an_example(document: dict[str, Any]) -> None:
    bodies = 0
    missing: list[str] = []
    for label, operation in _operations(document):
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            bodies += 1
            if not _has_example(document, media):
                missing.append(f"{label} request {media_type}")
        for status, response in operation["responses"].items():
            for media_type, media in response.get("content", {}).items():
                bodies += 1
                if not _has_example(document, media):
                    missing.append(f"{label} {status} {media_type}")
    assert missing == [], missing
    assert bodies > 150  # requests, successes and every error status of every operation


def test_every_property_of_a_request_and_every_parameter_has_a_description(document: dict[str, Any]) -> None:
    seen: set[str] = set()
    missing: list[str] = []
    properties = 0
    for label, operation in _operations(document):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            for name, schema in _objects(document, media["schema"], seen):
                for field, spec in schema.get("properties", {}).items():
                    properties += 1
                    if not spec.get("description"):
                        missing.append(f"{name}.{field}")
        missing.extend(
            f"{label} parameter {parameter['name']}"
            for parameter in operation.get("parameters", [])
            if not parameter.get("description")
        )
    assert missing == [], missing
    assert properties >= 60, properties


def test_every_operation_documents_the_errors_it_can_answer(document: dict[str, Any]) -> None:
    problems: list[str] = []
    for label, operation in _operations(document):
        statuses = set(operation["responses"])
        public = operation.get("security") == [{}] or operation.get("security") == []
        if not public and "401" not in statuses:
            problems.append(f"{label}: no 401")
        if "requestBody" in operation and not {"400", "413"} <= statuses:
            problems.append(f"{label}: a body, but no 400 or 413")
        if operation.get("parameters") and "requestBody" not in operation and "400" not in statuses:
            # A parameter the service parses can be refused; a header-only one (the certificate) too.
            problems.append(f"{label}: parameters, but no 400")
        if "503" not in statuses and label not in TOUCH_NO_DATABASE:
            problems.append(f"{label}: no 503")
        problems.extend(
            f"{label} {status}: no description"
            for status, response in operation["responses"].items()
            if not response.get("description")
        )
    assert problems == [], problems


def _examples(node: Any, pointer: str = "") -> Iterator[tuple[str, str, Any]]:
    """``(schema pointer, where, example)`` of every example in the document: a schema's
    ``examples`` and a media type's ``example``/``examples``."""
    if isinstance(node, dict):
        if "schema" in node and isinstance(node["schema"], dict):
            for name, example in (node.get("examples") or {}).items():
                yield f"{pointer}/schema", f"{pointer}/examples/{name}", example["value"]
            if "example" in node:
                yield f"{pointer}/schema", f"{pointer}/example", node["example"]
        if isinstance(node.get("examples"), list) and (
            "type" in node or "$ref" in node or "allOf" in node or "oneOf" in node or "properties" in node
        ):
            for index, example in enumerate(node["examples"]):
                yield pointer, f"{pointer}/examples/{index}", example
        for key, value in node.items():
            yield from _examples(value, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _examples(value, f"{pointer}/{index}")


def test_every_example_is_valid_against_its_schema(document: dict[str, Any]) -> None:
    registry: Registry[Any] = Registry().with_resource(
        DOCUMENT_URI, Resource.from_contents(document, default_specification=DRAFT202012)
    )
    checked = 0
    invalid: list[str] = []
    for schema_pointer, where, example in _examples(document):
        if "/examples/" in schema_pointer:
            continue  # an example's own content is data, not a schema
        validator = ExactValidator(
            {"$ref": f"{DOCUMENT_URI}#{schema_pointer}"},
            registry=registry,
            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
        )
        errors = [error.message for error in validator.iter_errors(example)]
        checked += 1
        if errors:
            invalid.append(f"{where}: {errors[:3]}")
    assert invalid == [], invalid
    assert checked > 300, checked


def test_an_invalid_example_would_be_caught(document: dict[str, Any]) -> None:
    """The check above can fail: a body that breaks its schema is reported."""
    registry: Registry[Any] = Registry().with_resource(
        DOCUMENT_URI, Resource.from_contents(document, default_specification=DRAFT202012)
    )
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"{DOCUMENT_URI}#/components/schemas/TokenRequest"}, registry=registry
    )
    assert list(validator.iter_errors({"clientId": 1}))
    assert not list(validator.iter_errors({"clientId": "a", "clientSecret": "b"}))
