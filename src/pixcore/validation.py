"""Collecting every problem of a request before refusing it."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar, overload

from pixcore.errors import ValidationError
from pixcore.problems import Field, Problem

__all__ = ["ABSENT", "INVALID", "Absent", "Field", "Invalid", "Problem", "collect"]

T = TypeVar("T")


class Absent(enum.Enum):
    """The marker of a field left out of a request (``null`` is given, and may be refused)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


class Invalid(enum.Enum):
    """The marker of a leaf given with a value not of its type (``"3600"`` for a number of seconds,
    ``10`` for a text): the edge judges the type of what it decoded, and hands this instead, so
    that the rule refuses it in its own words, in its place among the request's problems."""

    INVALID = "invalid"


INVALID = Invalid.INVALID


@overload
def collect(problems: list[Problem], field: Field, parse: Callable[[], T]) -> T | None: ...
@overload
def collect(problems: list[str], field: str, parse: Callable[[], T]) -> T | None: ...
def collect(problems: list[Any], field: Field | str, parse: Callable[[], T]) -> T | None:
    """Run one field's parser; on a ``ValidationError`` (or ``ValueError``) note its message as a
    :class:`~pixcore.problems.Problem` of ``field`` in ``problems`` and return None, so that a
    request reports every bad field at once. A field given as text (the edge's own parsers) notes
    ``field: message`` instead."""
    try:
        return parse()
    except (ValidationError, ValueError) as exc:
        message = exc.message if isinstance(exc, ValidationError) else str(exc)
        problems.append(f"{field}: {message}" if isinstance(field, str) else Problem.of(field, message))
        return None
