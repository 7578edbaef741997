"""What the request structs share: every text field has a documented maximum (decisions §13).

A typed text field is ``Annotated[str, msgspec.Meta(max_length=N)]``: msgspec enforces it (a 400)
and the OpenAPI document shows it as ``maxLength``. A leaf taken as decoded (``Any``: ``pixcore``
judges its type, so that ``"10"`` for a number gets the rule's own message) is annotated with
:func:`raw`, which documents its JSON type and, for text, the ``maxLength`` that the ``pixcore``
parser enforces. The maxima are the database columns' widths, or ``pixcore``'s stricter rules.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.openapi.spec import OpenAPIType

__all__ = [
    "MAX_AMOUNT_TEXT",
    "MAX_CLIENT_ID",
    "MAX_CLIENT_SECRET",
    "MAX_DOCUMENT",
    "MAX_E2EID",
    "MAX_GRANT_TYPE",
    "MAX_ISPB",
    "MAX_SHORT_CODE",
    "raw",
    "string_map",
    "text_items",
]

MAX_AMOUNT_TEXT = 13  # "1234567890.00": 1 to 10 digits, a dot, 2 digits (pixcore.money)
MAX_CLIENT_ID = 64  # the column's width (issued ids are 28 characters)
MAX_CLIENT_SECRET = 256  # never stored (hashed), but hashing a megabyte is work for nothing
MAX_GRANT_TYPE = 64
MAX_DOCUMENT = 14  # a CNPJ; a CPF is 11
MAX_E2EID = 32
MAX_ISPB = 8
MAX_SHORT_CODE = 32
"""Enumerated codes (priority, currency, behaviour, nature, reason, status): longer than any."""


def raw(description: str, *, kind: OpenAPIType | None = None, max_length: int | None = None) -> msgspec.Meta:
    """The annotation of an ``Any`` leaf: its description, its documented JSON type (``kind``) and,
    for text, its documented ``maxLength``, which the ``pixcore`` parser of the field enforces."""
    extra: dict[str, Any] = {}
    if kind is not None:
        extra["type"] = kind
    if max_length is not None:
        extra["max_length"] = max_length
    # Litestar copies the "extra" entries of extra_json_schema onto the field's schema.
    return msgspec.Meta(description=description, extra_json_schema={"extra": extra} if extra else None)


def _text_schema(max_length: int) -> dict[str, Any]:
    # A nested schema as the document's own JSON (Litestar copies it as is).
    return {"type": "string", "maxLength": max_length}


def string_map(description: str, *, max_items: int, max_key: int, max_value: int) -> msgspec.Meta:
    """The annotation of an ``Any`` leaf that must be an object of strings (``additionalInfo``)."""
    extra = {
        "type": OpenAPIType.OBJECT,
        "max_properties": max_items,
        "property_names": _text_schema(max_key),
        "additional_properties": _text_schema(max_value),
    }
    return msgspec.Meta(description=description, extra_json_schema={"extra": extra})


def text_items(max_length: int) -> msgspec.Meta:
    """Documents the ``maxLength`` of the strings of a list field (msgspec enforces the inner
    annotation, but Litestar documents only the outer one)."""
    return msgspec.Meta(extra_json_schema={"extra": {"items": _text_schema(max_length)}})
