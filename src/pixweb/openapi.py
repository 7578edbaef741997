"""The OpenAPI document: what Litestar generates from the handlers, completed in this one place.

Litestar writes the document from the handlers and their msgspec structs. What it cannot say is
said here, when the document is first built (lazily, on the first request for it):

* a public operation (no bearer token) has ``security: []``: Litestar adds the application's
  requirement to every operation, and an empty list on a handler reads as "none given"; the
  handlers mark theirs with the requirement ``[{}]``, written here as ``[]`` (OpenAPI 3: no
  security), so that generated clients call them without a token;
* the headers a handler takes as optional only to answer their absence with the spec's own error
  (``X-SSL-Client-Cert``) are required, and a header or a query parameter is text or absent,
  never null;
* an integer in a path, or a query parameter named as an id, is a database id: ``format: int64``
  (unless its declaration says ``int32``);
* a member that the rules (``pixcore``) require of a struct that msgspec reads as optional is
  declared where the struct is used (``doc(required=...)``, beside a reference that generators do
  not look into): it moves into the struct's own schema, so that generated models require it. Every
  place that uses one struct must require the same members (a patch body has a struct of its own).
* the ``webhooks`` section (OpenAPI 3.1): every notification the service sends
  (:mod:`pixweb.webhooks.notifications`), its body's schemas added to the components.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import OpenAPI

from pixweb.webhooks.notifications import webhooks_section

__all__ = ["CompletedOpenAPI", "PixOpenAPIConfig", "complete"]

HTTP_METHODS = ("get", "put", "post", "patch", "delete", "head", "options", "trace")
REQUIRED_HEADERS = frozenset({"x-ssl-client-cert"})
"""Headers every request of their operation needs, read as optional by the handler so that their
absence is the spec's error (the token endpoints' 400, or the OAuth error shape)."""


def _operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        operation
        for item in document.get("paths", {}).values()
        for method, operation in item.items()
        if method in HTTP_METHODS
    ]


def _parameter(parameter: dict[str, Any]) -> None:
    schema = parameter.get("schema", {})
    if parameter["in"] == "header" and parameter["name"].lower() in REQUIRED_HEADERS:
        parameter["required"] = True
    if parameter["in"] in ("header", "query") and {"type": "null"} in schema.get("oneOf", []):
        # A header or a query parameter is present (text) or absent, never null.
        others = [s for s in schema.pop("oneOf") if s != {"type": "null"}]
        schema.update(others[0] if len(others) == 1 else {"oneOf": others})
    names_an_id = parameter["in"] == "path" or parameter["name"].endswith("Id")
    if names_an_id and schema.get("type") == "integer":
        schema.setdefault("format", "int64")


def _referenced(schema: dict[str, Any]) -> str | None:
    """The component a property's schema stands for: ``$ref``, or Litestar's ``oneOf`` of a
    ``$ref`` and null, or ``allOf`` of one ``$ref``; an array's items the same way."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[1]
    for key in ("oneOf", "allOf", "anyOf"):
        refs = [s for s in schema.get(key, []) if s != {"type": "null"}]
        if len(refs) == 1:
            return _referenced(refs[0])
    return None


def _uses(schema: Any, found: dict[str, list[tuple[dict[str, Any], str]]]) -> None:
    """Every property that stands for a component (or for an array of one), by component: the
    schema that holds what the place requires of it, and that schema's key (``items`` for an
    array's items, Litestar's sibling of the ``oneOf``)."""
    if isinstance(schema, dict):
        for key, prop in (schema.get("properties") or {}).items():
            target = _referenced(prop)
            if target is not None:
                found.setdefault(target, []).append((schema["properties"], key))
            array = next((s for s in [prop, *prop.get("oneOf", [])] if s.get("type") == "array"), None)
            if array is not None and (item := _referenced(array.get("items", {}))) is not None:
                found.setdefault(item, []).append((prop, "items"))
        for value in schema.values():
            _uses(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _uses(value, found)


def _hoist_required(document: dict[str, Any]) -> None:
    """Moves the members required beside a reference into the component (see the module's
    docstring); ``ValueError`` when two places that use one component require different ones."""
    components = document.get("components", {}).get("schemas", {})
    found: dict[str, list[tuple[dict[str, Any], str]]] = {}
    _uses(components, found)
    for name, places in found.items():
        lists = {tuple(sorted(holder.get(key, {}).get("required", []))) for holder, key in places}
        if lists == {()}:
            continue
        if len(lists) > 1:
            raise ValueError(f"the places that use {name} require different members: {sorted(lists)}")
        (members,) = lists
        component = components[name]
        component["required"] = sorted({*component.get("required", []), *members})
        for holder, key in places:
            del holder[key]["required"]
            if holder[key] == {}:
                del holder[key]


def complete(document: dict[str, Any]) -> dict[str, Any]:
    """Completes a document as Litestar wrote it (see the module's docstring); returns it."""
    for operation in _operations(document):
        if operation.get("security") == [{}]:
            operation["security"] = []
        for parameter in operation.get("parameters", []):
            _parameter(parameter)
    _hoist_required(document)
    section, schemas = webhooks_section()
    components = document.setdefault("components", {}).setdefault("schemas", {})
    clash = sorted(set(schemas) & set(components))
    if clash:
        raise ValueError(f"notification schemas clash with the API's: {clash}")
    components.update(schemas)
    document["webhooks"] = section
    return document


class CompletedOpenAPI(OpenAPI):
    """The document object whose JSON form is :func:`complete`'s (what ``/schema`` serves)."""

    def to_schema(self) -> dict[str, Any]:
        return complete(super().to_schema())


class PixOpenAPIConfig(OpenAPIConfig):
    """Litestar's configuration, building a :class:`CompletedOpenAPI`."""

    def to_openapi_schema(self) -> OpenAPI:
        built = super().to_openapi_schema()
        return CompletedOpenAPI(**{field.name: getattr(built, field.name) for field in fields(built)})
