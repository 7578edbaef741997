"""What the request structs share: every text field has a documented maximum.

A typed text field is ``Annotated[str, msgspec.Meta(max_length=N)]``: msgspec enforces it (a 400)
and the OpenAPI document shows it as ``maxLength``. A leaf taken as decoded (``Any``: ``pixcore``
judges its type, so that ``"10"`` for a number gets the rule's own message) is annotated with
:func:`raw`, which documents its JSON type and, for text, the ``maxLength`` that the ``pixcore``
parser enforces. The maxima are the database columns' widths, or ``pixcore``'s stricter rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any

import msgspec
from litestar.openapi.spec import OpenAPIFormat, OpenAPIType

from pixcore.documents import CNPJ_PATTERN, CPF_PATTERN
from pixcore.money import AMOUNT_STRING_PATTERN, MAX_CENTS

__all__ = [
    "DOCUMENT_PATTERN",
    "MAX_AMOUNT_TEXT",
    "MAX_CLIENT_ID",
    "MAX_CLIENT_SECRET",
    "MAX_DOCUMENT",
    "MAX_E2EID",
    "MAX_GRANT_TYPE",
    "MAX_ISPB",
    "MAX_SHORT_CODE",
    "MONEY_FORMAT",
    "MONEY_NUMBER",
    "REAIS_BELOW",
    "Int32",
    "Int64",
    "MaybeTimestamp",
    "MoneyText",
    "Timestamp",
    "doc",
    "one_of",
    "raw",
    "string_map",
    "text_items",
    "whole",
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


_UNSET: Any = msgspec.UNSET
REAIS_BELOW = (MAX_CENTS + 1) // 100
"""Every amount in reais is below this (at most 9999999999.99), and above zero."""


def whole(pattern: str) -> str:
    """A pattern of the code (matched whole by ``re.fullmatch``) as a JSON Schema pattern, which
    matches anywhere unless anchored (``$``: ECMA-262 has no ``\\Z``)."""
    return f"^(?:{pattern})$"


# Money on the wire is either a JSON number of reais with at most 2 decimals (the seed's balances,
# transfer and cash-in amounts) or a string with exactly 2 decimals (the charges' and refunds'
# "123.45"). The document says which, so that generators do not read money as an arbitrary float.
MONEY_FORMAT = "decimal"
"""The ``format`` of a money number: no registered format says "exact decimal"; ``decimal`` is the
one in common use (openapi-python-client maps every number to ``float`` whatever its format)."""
MONEY_NUMBER: dict[str, Any] = {"type": "number", "multipleOf": 0.01, "format": MONEY_FORMAT}
"""A money number as the document spells it (hundredths of a real)."""
MoneyText = Annotated[str, msgspec.Meta(pattern=whole(AMOUNT_STRING_PATTERN), max_length=MAX_AMOUNT_TEXT)]
"""A money string of an answer: 1 to 10 digits, a dot, 2 digits."""


DOCUMENT_PATTERN = f"{CPF_PATTERN}|{CNPJ_PATTERN}"
"""A CPF or a CNPJ (their check digits are a rule no pattern says)."""


def doc(
    description: str,
    *,
    example: Any = _UNSET,
    pattern: str | None = None,
    enum: Sequence[Any] | None = None,
    min_length: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
    max_items: int | None = None,
    amount: bool = False,
    required: Sequence[str] | None = None,
    not_null: bool = False,
    schema: dict[str, Any] | None = None,
) -> msgspec.Meta:
    """The documentation of a field, and the rules the service enforces on it, for the OpenAPI
    document only: ``pixcore`` (or msgspec, for a typed field's own constraints) enforces them, with
    its own messages. ``pattern`` is the code's pattern, matched whole (see :func:`whole`).
    A second annotation beside the field's type (``Annotated[T, Meta(...), doc(...)]``): msgspec
    merges them. On a field whose type is a struct, ``required`` is that struct's list of required
    fields (ones the struct leaves optional so that ``pixcore`` reports every missing one at once);
    ``not_null``: ``null``, which the type lets through, is refused by ``pixcore``.

    With an optional type, annotate the inner type: ``Annotated[str, Meta(max_length=N), doc(...)]
    | None``. ``Annotated[X | None, doc(...)]`` hides the constraints of ``X``'s own annotation
    from Litestar (it reads one level), which would drop a ``maxLength`` from the document."""
    extra: dict[str, Any] = {}
    extra.update(schema or {})  # more of the document's own keywords, as they are spelt there
    if required is not None:
        extra["required"] = list(required)
    if not_null:
        extra["not"] = {"type": "null"}
    if pattern is not None:
        extra["pattern"] = whole(pattern)
    if enum is not None:
        extra["enum"] = list(enum)
    if min_length is not None:
        extra["min_length"] = min_length
    if minimum is not None:
        extra["minimum"] = minimum
    if maximum is not None:
        extra["maximum"] = maximum
    if max_items is not None:
        extra["max_items"] = max_items
    if amount:  # a JSON number of reais: above zero, below 10 billion, in hundredths
        extra["exclusive_minimum"] = 0
        extra["exclusive_maximum"] = REAIS_BELOW
        extra["multiple_of"] = MONEY_NUMBER["multipleOf"]
        extra["format"] = MONEY_FORMAT
    return msgspec.Meta(
        description=description,
        examples=None if example is _UNSET else [example],
        extra_json_schema={"extra": extra} if extra else None,
    )


def raw(
    description: str,
    *,
    kind: OpenAPIType | None = None,
    max_length: int | None = None,
    format_: str | None = None,
) -> msgspec.Meta:
    """The annotation of an ``Any`` leaf: its description, its documented JSON type (``kind``) and
    format (``format_``: ``int64``), and, for text, its documented ``maxLength``, which the
    ``pixcore`` parser of the field enforces."""
    extra: dict[str, Any] = {}
    if kind is not None:
        extra["type"] = kind
    if format_ is not None:
        extra["format"] = format_
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


# Structure the document states beside the type (the wire is unchanged): the text of an instant
# (``pixcore.clock.format_timestamp``, RFC 3339 in UTC), and a database id (a 64-bit integer).
# A nullable one is ``type: [string, "null"]`` (OpenAPI 3.1), so that generated clients see the
# format: a ``oneOf`` of string and null would hide it one level down.
Timestamp = Annotated[str, msgspec.Meta(extra_json_schema={"extra": {"format": OpenAPIFormat.DATE_TIME}})]
MaybeTimestamp = Annotated[
    str | None,
    msgspec.Meta(
        extra_json_schema={
            "extra": {
                "one_of": None,
                "type": [OpenAPIType.STRING, OpenAPIType.NULL],
                "format": OpenAPIFormat.DATE_TIME,
            }
        }
    ),
]
Int64 = Annotated[int, msgspec.Meta(extra_json_schema={"extra": {"format": "int64"}})]
Int32 = Annotated[int, msgspec.Meta(extra_json_schema={"extra": {"format": "int32"}})]
"""An id the client chooses within the standard's int32 (a batch of due-date charges)."""


def one_of(values: Iterable[str]) -> msgspec.Meta:
    """Documents the values a text field takes (``enum``) while the field stays a ``str``: the
    ``pixcore`` rule that parses it answers an unknown value with its own message (a 400)."""
    return msgspec.Meta(extra_json_schema={"extra": {"enum": list(values)}})
