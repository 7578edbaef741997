"""What is wrong with one field of a request, named by a typed reference instead of a wire name.

Each feature declares an ``enum`` of its request's fields (a :class:`Field`), named in the
domain's words (``TransferField.KEY``). A :class:`Problem` is one field (or a few) and a text that
may name other fields by reference (``"must not be before {}"``). The domain renders a problem with
its own names (:func:`domain_name`); the edge renders it with the wire's paths.

A text may name another field as a :class:`Member` of its parent (its name's last part: the wire's
``modalidadeAlteracao`` of ``valor.modalidadeAlteracao``), and a problem of one item of a list
gives the item's place in ``at`` (``infoAdicionais[2]``: each ``[]`` of a name is filled in order).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Field", "Member", "Naming", "Problem", "Ref", "domain_name"]


class Field(enum.Enum):
    """The base of every feature's field references (an ``enum`` of a request's fields)."""


Naming = Callable[[Field], str]
"""How a rendering names a field: the domain's words, or the wire's path."""


def domain_name(field: Field) -> str:
    """The domain's name of a field: its reference's name in words (``TransferField.CREDITOR_DOCUMENT``
    is ``creditor document``)."""
    return field.name.lower().replace("_", " ")


@dataclass(frozen=True, slots=True)
class Member:
    """A field a text names as a member of its parent, by the last part of its name
    (``calendario: required, with dataDeVencimento``)."""

    field: Field

    def render(self, name: Naming) -> str:
        return name(self.field).rsplit(".", 1)[-1]


Ref = Field | Member
"""How a problem's text names another field: by its whole name, or as a :class:`Member`."""


def _placed(name: str, at: tuple[int, ...]) -> str:
    """``name`` with the places ``at`` of its items: each ``[]`` filled in order, the others after it."""
    for index in at:
        name = name.replace("[]", f"[{index}]", 1) if "[]" in name else f"{name}[{index}]"
    return name


@dataclass(frozen=True, slots=True)
class Problem:
    """A broken rule of ``fields`` (usually one), told by ``text``; each ``{}`` of the text stands
    for one of ``refs`` in order, other fields the text names; ``at``: the places of the items
    the fields are of, when they are items of lists (outermost first)."""

    fields: tuple[Field, ...]
    text: str
    refs: tuple[Ref, ...] = ()
    at: tuple[int, ...] = ()

    @classmethod
    def of(cls, field: Field | tuple[Field, ...], text: str, *refs: Ref, at: tuple[int, ...] = ()) -> Problem:
        """``Problem.of(QueryField.END, "must not be before {}", QueryField.START)``."""
        return cls(field if isinstance(field, tuple) else (field,), text, refs, at)

    def render(self, name: Naming = domain_name) -> str:
        """``field: text`` with every field named by ``name`` (``fields, ...: text`` for several)."""
        text = self.text
        if self.refs:
            first, *rest = text.split("{}")
            named = [ref.render(name) if isinstance(ref, Member) else name(ref) for ref in self.refs]
            text = first + "".join(ref + part for ref, part in zip(named, rest, strict=True))
        if not self.fields:
            return text
        return f"{', '.join(_placed(name(field), self.at) for field in self.fields)}: {text}"
