"""What a route's body is, read from its handler's signature and its msgspec Structs: the Struct a
field (or a list field's items) holds, and the Struct of a handler's JSON ``data``."""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec
from litestar.enums import RequestEncodingType
from litestar.types import Scope

__all__ = ["bare", "body_struct", "documented", "element_struct", "struct_of"]


def bare(annotation: Any) -> Any:
    """``annotation`` without its ``Annotated`` layers."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def struct_of(annotation: Any) -> type[msgspec.Struct] | None:
    """The Struct a field holds (``S`` or ``S | None``), or None for anything else."""
    annotation = bare(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        structs = [a for a in map(bare, get_args(annotation)) if a is not type(None)]
        annotation = structs[0] if len(structs) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    return None


CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "pattern", "min_length", "max_length", "tz")


def documented(annotation: Any) -> Any:
    """``annotation`` without the ``Annotated`` layers that only document it (a ``Meta`` with a
    description or the OpenAPI document's keywords, ``pixweb.api.fields.doc``): no rule of msgspec's."""
    while get_origin(annotation) is Annotated:
        metadata = get_args(annotation)[1:]
        if not all(
            isinstance(meta, msgspec.Meta) and all(getattr(meta, name) is None for name in CONSTRAINTS)
            for meta in metadata
        ):
            return annotation
        annotation = get_args(annotation)[0]
    return annotation


def element_struct(annotation: Any) -> type[msgspec.Struct] | None:
    """The Struct of a list field's items (``list[S]`` or ``list[S] | None``, no length rule), or None."""
    annotation = documented(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        others = [documented(a) for a in get_args(annotation) if a is not type(None)]
        annotation = others[0] if len(others) == 1 else None
    if get_origin(annotation) is list:  # not Annotated: a length rule on the list is left to msgspec
        return struct_of(get_args(annotation)[0])
    return None


def body_struct(scope: Scope) -> type[msgspec.Struct] | None:
    """The Struct of the JSON body (``data``) of the route a request matched, if it has one."""
    handler = scope.get("route_handler")
    parameters = getattr(getattr(handler, "parsed_fn_signature", None), "parameters", {})
    data = parameters.get("data")
    if (
        data is None
        or getattr(data.kwarg_definition, "media_type", RequestEncodingType.JSON) != RequestEncodingType.JSON
    ):
        return None  # no body, or a form (its own decoding)
    return struct_of(data.annotation)
