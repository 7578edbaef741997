"""Where the wire carries the fields that domain errors name by reference, and those errors as
users see them.

``pixcore`` names a request's fields by typed references (``pixcore.problems.Field``). Each
feature's module declares, beside the structs that carry those fields, their paths on the wire
(:func:`wire_paths`); :func:`on_the_wire` renders an error with them, for the error responses
(``pixweb.errors``) and the console's forms alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from pixcore.errors import PixError
from pixcore.problems import Field, domain_name

__all__ = ["declared_paths", "on_the_wire", "wire_path", "wire_paths"]

F = TypeVar("F", bound=Field)

_WIRE_PATHS: dict[Field, str] = {}


def wire_paths(paths: Mapping[F, str]) -> Mapping[F, str]:
    """Declare where the wire carries each of a request's fields (``{TransferField.KEY:
    "pixKey"}``), once, in the feature's module beside its structs; gives ``paths`` back.
    A field is on the wire in one place: declaring it elsewhere too is an error."""
    for field, path in paths.items():
        if _WIRE_PATHS.setdefault(field, path) != path:
            raise ValueError(f"{field} is on the wire as {_WIRE_PATHS[field]!r} already, not {path!r}")
    return paths


def declared_paths() -> dict[Field, str]:
    """Every field reference a feature declared, with its wire path."""
    return dict(_WIRE_PATHS)


def wire_path(field: Field) -> str:
    """The wire's path of a field (the domain's name of one no feature declared)."""
    return _WIRE_PATHS.get(field) or domain_name(field)


def on_the_wire(exc: PixError) -> tuple[str, list[str]]:
    """The message and details of ``exc`` as users see them: each field named by its wire path."""
    return exc.render(wire_path)
