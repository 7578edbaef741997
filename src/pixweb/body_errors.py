"""Every mistake of a JSON body at once (issue 19, item 4).

A handler's ``data`` is a msgspec Struct, and msgspec stops at the first field that does not fit:
a body with three mistakes took three tries. :class:`AllBodyErrors` runs before the handler: when
the body does not convert to the handler's Struct, :func:`body_errors` walks the Struct field by
field (nested Structs included), and the error handler answers Litestar's own refusal with every
mistake in ``details``, each worded exactly as msgspec words it alone (``pixKey: Expected `str`, got `int```,
``data: Object missing required field `pixKey```). A body with one mistake, or one that converts,
keeps Litestar's own answer. Rules the domain judges (amounts, keys, documents)
were already collected by the ``pixcore`` parsers.
"""

from __future__ import annotations

import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec
from litestar import Request
from litestar.enums import RequestEncodingType, ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["AllBodyErrors", "body_details", "body_errors", "problems_of"]

_AT = re.compile(r" - at `\$(.*)`$")
_ROOT = "data"  # Litestar's key for the body itself
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _bare(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _struct_of(annotation: Any) -> type[msgspec.Struct] | None:
    """The Struct a field holds (``S`` or ``S | None``), or None for anything else."""
    annotation = _bare(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        structs = [a for a in map(_bare, get_args(annotation)) if a is not type(None)]
        annotation = structs[0] if len(structs) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    return None


_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "pattern", "min_length", "max_length", "tz")


def _documented(annotation: Any) -> Any:
    """``annotation`` without the ``Annotated`` layers that only document it (a ``Meta`` with a
    description or the OpenAPI document's keywords, ``pixweb.api.fields.doc``): no rule of msgspec's."""
    while get_origin(annotation) is Annotated:
        metadata = get_args(annotation)[1:]
        if not all(
            isinstance(meta, msgspec.Meta) and all(getattr(meta, name) is None for name in _CONSTRAINTS)
            for meta in metadata
        ):
            return annotation
        annotation = get_args(annotation)[0]
    return annotation


def _element_struct(annotation: Any) -> type[msgspec.Struct] | None:
    """The Struct of a list field's items (``list[S]`` or ``list[S] | None``, no length rule), or None."""
    annotation = _documented(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        others = [_documented(a) for a in get_args(annotation) if a is not type(None)]
        annotation = others[0] if len(others) == 1 else None
    if get_origin(annotation) is list:  # not Annotated: a length rule on the list is left to msgspec
        return _struct_of(get_args(annotation)[0])
    return None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _convert_errors(value: Any, annotation: Any, path: str) -> list[tuple[str, str]]:
    try:
        msgspec.convert(value, annotation, strict=False, str_keys=True)
    except msgspec.ValidationError as exc:
        message = str(exc)
        at = _AT.search(message)
        where = path
        if at is not None:
            message = message[: at.start()]
            inner = at.group(1)
            where = f"{path}{inner}" if inner.startswith("[") else _join(path, inner.removeprefix("."))
        return [(where or _ROOT, message)]
    return []


def body_errors(value: Any, struct: type[msgspec.Struct], path: str = "") -> list[tuple[str, str]]:
    """Every ``(where, message)`` that keeps ``value`` from converting to ``struct``, in field order."""
    config = struct.__struct_config__
    if not isinstance(value, dict) or config.array_like or config.tag is not None:
        return _convert_errors(value, struct, path)
    problems: list[tuple[str, str]] = []
    fields = msgspec.structs.fields(struct)
    if config.forbid_unknown_fields:
        known = {f.encode_name for f in fields}
        problems.extend(
            (path or _ROOT, f"Object contains unknown field `{key}`") for key in value if key not in known
        )
    for field in fields:
        if field.encode_name not in value:
            if field.required:
                problems.append((path or _ROOT, f"Object missing required field `{field.encode_name}`"))
            continue
        item = value[field.encode_name]
        inner = _struct_of(field.type)
        where = _join(path, field.encode_name)
        element = _element_struct(field.type)
        if inner is not None and isinstance(item, dict):
            problems.extend(body_errors(item, inner, where))
        elif element is not None and isinstance(item, list):
            for index, each in enumerate(item):
                problems.extend(body_errors(each, element, f"{where}[{index}]"))
        else:
            problems.extend(_convert_errors(item, field.type, where))
    return problems


def _body_struct(scope: Scope) -> type[msgspec.Struct] | None:
    handler = scope.get("route_handler")
    parameters = getattr(getattr(handler, "parsed_fn_signature", None), "parameters", {})
    data = parameters.get("data")
    if (
        data is None
        or getattr(data.kwarg_definition, "media_type", RequestEncodingType.JSON) != RequestEncodingType.JSON
    ):
        return None  # no body, or a form (its own decoding)
    return _struct_of(data.annotation)


_STATE_KEY = "pix_body_errors"


class AllBodyErrors(ASGIMiddleware):
    """Finds every mistake of a JSON body before its handler runs, for :func:`body_details`.

    It refuses nothing itself: Litestar's own validation still decides (and reports the other
    parameters, a missing header say); the error handler puts these in place of its one body error.
    """

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        struct = _body_struct(scope)
        if struct is not None:
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            if request.content_type[0] not in _FORMS:
                problems = problems_of(await request.body(), struct)
                if len(problems) > 1:
                    request.state[_STATE_KEY] = [f"{key}: {message}" for key, message in problems]
        await next_app(scope, receive, send)


def body_details(request: Request[Any, Any, Any]) -> list[str] | None:
    """Every mistake of the request's body that :class:`AllBodyErrors` found (two or more), or None."""
    found = request.state.get(_STATE_KEY)
    return list(found) if isinstance(found, list) else None


# What decoding a hostile body raises besides a type mistake: malformed JSON, invalid UTF-8 in a
# string, nesting past the interpreter's recursion limit. TextGuard refuses the last two before
# this middleware runs; they are caught here too so that no order of middleware makes them a 500.
_UNREADABLE = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)


def problems_of(body: bytes, struct: type[msgspec.Struct]) -> list[tuple[str, str]]:
    try:
        msgspec.json.decode(body, type=struct, strict=False)
    except msgspec.ValidationError:
        try:
            value = msgspec.json.decode(body)
        except _UNREADABLE:
            return []  # unreadable, found after a type mistake: the handler's decoder says so
        return body_errors(value, struct) if isinstance(value, dict) else []
    except _UNREADABLE:
        return []  # unreadable: the handler's decoder says so
    return []  # it fits: nothing to add (the usual case, one pass in C)
