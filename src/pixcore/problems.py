"""What is wrong with one field of a request, named by a typed reference instead of a wire name.

Each feature declares an ``enum`` of its request's fields (a :class:`Field`), named in the
domain's words (``TransferField.KEY``). A :class:`Problem` is one field (or a few) and a text that
may name other fields by reference (``"must not be before {}"``). The domain renders a problem with
its own names (:func:`domain_name`); the edge renders it with the wire's paths.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Field", "Naming", "Problem", "domain_name"]


class Field(enum.Enum):
    """The base of every feature's field references (an ``enum`` of a request's fields)."""


Naming = Callable[[Field], str]
"""How a rendering names a field: the domain's words, or the wire's path."""


def domain_name(field: Field) -> str:
    """The domain's name of a field: its reference's name in words (``TransferField.CREDITOR_DOCUMENT``
    is ``creditor document``)."""
    return field.name.lower().replace("_", " ")


@dataclass(frozen=True, slots=True)
class Problem:
    """A broken rule of ``fields`` (usually one), told by ``text``; each ``{}`` of the text stands
    for one of ``refs`` in order, other fields the text names."""

    fields: tuple[Field, ...]
    text: str
    refs: tuple[Field, ...] = ()

    @classmethod
    def of(cls, field: Field | tuple[Field, ...], text: str, *refs: Field) -> Problem:
        """``Problem.of(QueryField.END, "must not be before {}", QueryField.START)``."""
        return cls(field if isinstance(field, tuple) else (field,), text, refs)

    def render(self, name: Naming = domain_name) -> str:
        """``field: text`` with every field named by ``name`` (``fields, ...: text`` for several)."""
        text = self.text
        if self.refs:
            first, *rest = text.split("{}")
            text = first + "".join(name(ref) + part for ref, part in zip(self.refs, rest, strict=True))
        if not self.fields:
            return text
        return f"{', '.join(name(field) for field in self.fields)}: {text}"
