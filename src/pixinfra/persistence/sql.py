"""The one way the adapters put a statement's text together: :func:`compose`.

Most statements are string literals. Where a statement repeats a fixed part (a list of columns
written once per table, a sub-statement of another module) or has a part that is present or not
(a list's optional filters), :func:`compose` joins the parts. Every part is this package's own text:
a literal, a module constant, or one of a fixed set of fragments chosen by which filters are given,
with the ``$n`` placeholder of its value. A value is never a part: it is always a parameter
(``tests/unit/queries/test_sql_composition.py`` checks the statements of every filter with values that
would read as SQL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import LiteralString

__all__ = ["compose", "paged"]


def compose(*parts: LiteralString) -> str:
    """The parts, in order, as one statement's text."""
    return "".join(parts)


def paged(args: Sequence[object], size: int, offset: int) -> tuple[str, list[object]]:
    """A page of a list's statement taking ``args``: its ``LIMIT`` and ``OFFSET`` clause (both
    parameters, after ``args``), and all the arguments."""
    return f" LIMIT ${len(args) + 1} OFFSET ${len(args) + 2}", [*args, size, offset]
