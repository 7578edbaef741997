"""The OpenAPI document's request and response examples: the body parameter of a handler and the
success response, each with an example that a test checks against its own schema."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from litestar.enums import RequestEncodingType
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import BodyKwarg

__all__ = ["answer", "form_body", "json_body", "with_nulls"]


class _Null(enum.Enum):
    """``null`` in an example. Litestar drops the ``None`` entries of every mapping of the document
    as it writes it (an absent keyword), which would drop the ``null`` fields of an example too;
    an enum member is kept, and written as its value."""

    NULL = None


def with_nulls(example: Any) -> Any:
    """``example`` with each ``None`` of a mapping marked so that the document keeps it as ``null``."""
    if isinstance(example, dict):
        return {key: _Null.NULL if value is None else with_nulls(value) for key, value in example.items()}
    if isinstance(example, list):
        return [with_nulls(item) for item in example]
    return example


def json_body(
    description: str,
    example: dict[str, Any],
    *,
    required: Sequence[str] | None = None,
    closed: bool = False,
) -> BodyKwarg:
    """``Annotated[SomeIn, json_body(...)]``: what ``JSONBody`` is, with a description and an example.
    ``required``: the body's required fields, when the struct leaves them optional so that
    ``pixcore`` can report every missing one at once. ``closed``: the struct forbids unknown
    fields (``additionalProperties: false``)."""
    extra: dict[str, Any] = {"required": list(required)} if required is not None else {}
    if closed:
        extra["additionalProperties"] = False
    return BodyKwarg(
        media_type=RequestEncodingType.JSON,
        description=description,
        examples=[Example(summary="Example", value=with_nulls(example))],
        schema_extra=extra or None,
    )


def form_body(description: str, example: dict[str, Any]) -> BodyKwarg:
    """The same for an ``application/x-www-form-urlencoded`` body."""
    return BodyKwarg(
        media_type=RequestEncodingType.URL_ENCODED,
        description=description,
        examples=[Example(summary="Example", value=with_nulls(example))],
    )


def answer(
    status: int, container: Any, description: str, example: Any, *, media_type: str | None = None
) -> dict[int, ResponseSpec]:
    """The success response ``status`` of an operation with its description and an example."""
    extra = {"media_type": media_type} if media_type else {}
    return {
        status: ResponseSpec(
            data_container=container,
            description=description,
            generate_examples=False,
            examples=[Example(summary="Example", value=with_nulls(example))],
            **extra,
        )
    }
