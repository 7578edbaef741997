"""The OpenAPI document: what Litestar generates from the handlers, completed in this one place.

Litestar writes the document from the handlers and their msgspec structs. What it cannot say is
said here, when the document is first built (lazily, on the first request for it):

* a public operation (no bearer token) has ``security: []``: Litestar adds the application's
  requirement to every operation, and an empty list on a handler reads as "none given"; the
  handlers mark theirs with the requirement ``[{}]``, written here as ``[]`` (OpenAPI 3: no
  security), so that generated clients call them without a token;
* the headers a handler takes as optional only to answer their absence with the spec's own error
  (``X-SSL-Client-Cert``) are required, and a header is text, never null;
* an integer in a path is a database id: ``format: int64``;
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
    if parameter["in"] == "header" and {"type": "null"} in schema.get("oneOf", []):
        # A header is present (text) or absent, never null.
        others = [s for s in schema.pop("oneOf") if s != {"type": "null"}]
        schema.update(others[0] if len(others) == 1 else {"oneOf": others})
    if parameter["in"] == "path" and schema.get("type") == "integer":
        schema["format"] = "int64"


def complete(document: dict[str, Any]) -> dict[str, Any]:
    """Completes a document as Litestar wrote it (see the module's docstring); returns it."""
    for operation in _operations(document):
        if operation.get("security") == [{}]:
            operation["security"] = []
        for parameter in operation.get("parameters", []):
            _parameter(parameter)
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
