"""A JSON body on the standard's face, read as the standard's document reads it.

The document declares no ``nullable`` and no ``additionalProperties``: a ``null`` is a broken rule
wherever it is, and a member it does not define is allowed. So on its face a body with a ``null``
is refused (every one named), and the members our Structs do not know are dropped before the
handler's Struct reads it (our face refuses them on a revision: docs/decisions/charges.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, get_args, get_origin

import msgspec
from litestar.exceptions import ValidationException

from pixweb.api.structs import element_struct, struct_of

__all__ = ["ONE_OF", "items_of", "known_members", "require", "standard_body"]

NOT_NULL = "must not be null (the standard allows no null)"


def standard_body(value: Any, struct: type[msgspec.Struct]) -> Any:
    """``value`` (a decoded body for ``struct``) with every member ``struct`` does not know dropped;
    a 400 naming each ``null`` in it, if any."""
    value = known_members(value, struct)
    nulls = list(_nulls(value, ""))
    if nulls:
        raise ValidationException(
            detail="Invalid request: " + "; ".join(f"{path}: {NOT_NULL}" for path in nulls),
            extra=[{"key": path, "message": NOT_NULL} for path in nulls],
        )
    return value


def _nulls(value: Any, path: str) -> Iterator[str]:
    if value is None:
        yield path or "data"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _nulls(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nulls(item, f"{path}[{index}]")


def known_members(value: Any, struct: type[msgspec.Struct]) -> Any:
    """``value`` without the members ``struct`` (and the Structs it holds) does not know."""
    if not isinstance(value, dict) or struct.__struct_config__.array_like:
        return value
    value = _one_branch(value, getattr(struct, ONE_OF, {}))
    fields = {field.encode_name: field for field in msgspec.structs.fields(struct)}
    return {key: _member(item, fields[key].type) for key, item in value.items() if key in fields}


ONE_OF = "STANDARD_ONE_OF"
"""The class attribute of a Struct that is the standard's ``oneOf`` of branches that each define one
member (``retirada``: ``saque`` or ``troco``): each member by the members its branch requires."""


def _one_branch(value: dict[str, Any], branches: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """``value`` of a ``oneOf`` (:data:`ONE_OF`): when exactly one branch's member is an object with
    what its branch requires, the other branches' members are members that branch does not define,
    allowed whatever they hold, and dropped."""
    matched = [
        name
        for name, required in branches.items()
        if isinstance(value.get(name), dict) and all(key in value[name] for key in required)
    ]
    if len(matched) != 1:
        return value
    return {name: item for name, item in value.items() if name not in branches or name == matched[0]}


def items_of(struct: type[msgspec.Struct], *keep: str) -> msgspec.Meta:
    """Metadata of a list field whose items its handler decodes itself, one by one (a batch's
    charges): each is read as ``struct`` on the standard's face, keeping also the members ``keep``."""
    return msgspec.Meta(extra={_ITEMS: (struct, frozenset(keep))})


_ITEMS = "standard_items"


def _declared_items(annotation: Any) -> tuple[type[msgspec.Struct], frozenset[str]] | None:
    for meta in get_args(annotation)[1:] if get_origin(annotation) is Annotated else ():
        if isinstance(meta, msgspec.Meta) and meta.extra and _ITEMS in meta.extra:
            declared: tuple[type[msgspec.Struct], frozenset[str]] = meta.extra[_ITEMS]
            return declared
    return None


def _member(item: Any, annotation: Any) -> Any:
    inner, element = struct_of(annotation), element_struct(annotation)
    if inner is not None:
        return known_members(item, inner)
    if element is not None and isinstance(item, list):
        return [known_members(each, element) for each in item]
    declared = _declared_items(annotation)
    if declared is not None and isinstance(item, list):
        struct, keep = declared
        return [_with(each, known_members(each, struct), keep) for each in item]
    return item


def _with(original: Any, known: Any, keep: frozenset[str]) -> Any:
    if not isinstance(original, dict) or not isinstance(known, dict):
        return known
    return {name: value for name, value in original.items() if name in keep} | known


def require(body: msgspec.Struct, *names: str) -> None:
    """A 400 naming each member of ``names`` that ``body`` lacks: what the standard's document
    requires where ours does not (``chave`` of a new charge: ours takes the account's first key)."""
    wire = {field.name: field.encode_name for field in msgspec.structs.fields(body)}
    missing = [wire[name] for name in names if getattr(body, name) is None]
    if missing:
        reasons = [f"Object missing required field `{name}`" for name in missing]
        raise ValidationException(
            detail="Invalid request: " + "; ".join(f"data: {reason}" for reason in reasons),
            extra=[{"key": "data", "message": reason} for reason in reasons],
        )
