"""Collecting every problem of a request before refusing it."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TypeVar

from pixcore.errors import ValidationError

__all__ = ["ABSENT", "Absent", "collect"]

T = TypeVar("T")


class Absent(enum.Enum):
    """The marker of a field left out of a request (``null`` is given, and may be refused)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


def collect(problems: list[str], field: str, parse: Callable[[], T]) -> T | None:
    """Run one field's parser; on a ``ValidationError`` (or ``ValueError``) note ``field: message``
    in ``problems`` and return None, so that a request reports every bad field at once."""
    try:
        return parse()
    except (ValidationError, ValueError) as exc:
        message = exc.message if isinstance(exc, ValidationError) else str(exc)
        problems.append(f"{field}: {message}")
        return None
