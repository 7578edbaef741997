"""Batches of due-date charges (the standard's ``/lotecobv``): what a batch is and the rules of
its request (docs/decisions/due-batches.md).

A batch is the account's (its ``id``, an int32 the client chooses, names it only within the
account) and holds the requests of ``cobv``s, each with its ``txid`` and its own outcome:
``CRIADA`` (the charge exists, ``created_at`` its creation) or ``NEGADA`` (refused, with the
:class:`Refusal` that ``PUT /cobv/{txid}`` would have answered). The service decides every
charge inside the request, so no item is ever ``EM_PROCESSAMENTO``: the status exists because the
standard lists it. A revision (``PATCH``) that is refused leaves the charge as it was and the item
``CRIADA``, with the revision's refusal; an accepted one clears it.

The request's own rules (refused as a whole, ``LoteCobVOperacaoInvalida``): ``descricao`` a text
of at most :data:`MAX_DESCRIPTION` characters, ``cobsv`` at most :data:`MAX_CHARGES` items, each
with a well-formed ``txid`` found once in the batch.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pixcore import errors
from pixcore.charges.cob import judge_text
from pixcore.errors import PixError, ValidationError
from pixcore.identifiers import validate_txid
from pixcore.validation import collect

__all__ = [
    "MAX_CHARGES",
    "MAX_DESCRIPTION",
    "BatchItem",
    "BatchItemStatus",
    "BatchRequest",
    "DueBatch",
    "Refusal",
]

MAX_CHARGES = 1000
"""Charges in one batch at most: one request, one transaction, a few seconds of work."""
MAX_DESCRIPTION = 140
"""``descricao``'s maximum length (the standard gives none; ``solicitacaoPagador``'s)."""

# The branches of the error tree a charge of a batch can be refused with, by name.
_BRANCHES: dict[str, type[PixError]] = {
    kind.__name__: kind
    for kind in (errors.ValidationError, errors.NotFound, errors.Conflict, errors.RuleViolation)
}


class BatchItemStatus(enum.StrEnum):
    """The outcome of one charge's request in a batch (the standard's three)."""

    EM_PROCESSAMENTO = "EM_PROCESSAMENTO"
    CRIADA = "CRIADA"
    NEGADA = "NEGADA"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a charge's request was refused: the error ``PUT`` or ``PATCH /cobv/{txid}`` raises,
    kept by its branch of the error tree (``ValidationError``, ``NotFound``, ``Conflict``,
    ``RuleViolation``), its message and its details."""

    branch: str
    message: str
    details: tuple[str, ...] = ()

    @classmethod
    def of(cls, error: PixError) -> Refusal:
        for name, kind in _BRANCHES.items():
            if isinstance(error, kind):
                return cls(name, error.message, tuple(error.details))
        raise ValueError(f"not a refusal of a charge: {type(error).__name__}")

    def error(self) -> PixError:
        """The error again, as its branch (what the edge needs to answer it)."""
        return _BRANCHES.get(self.branch, ValidationError)(self.message, details=list(self.details))


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One charge of a batch: its ``txid``, outcome, creation (when CRIADA) and refusal."""

    txid: str
    status: BatchItemStatus
    created_at: datetime | None = None
    refusal: Refusal | None = None


@dataclass(frozen=True, slots=True)
class DueBatch:
    """A batch of due-date charges as stored; ``items`` in the order of the request that made it."""

    account_id: int
    id: int
    description: str
    created_at: datetime
    items: tuple[BatchItem, ...] = ()


@dataclass(frozen=True, slots=True)
class BatchRequest:
    """The request's own rules, judged before any charge: ``description`` (None in a ``PATCH``
    that leaves it), and the items' txids."""

    description: str | None
    txids: tuple[str, ...]

    @classmethod
    def parse(cls, *, description: object, txids: Sequence[object] | None, creating: bool) -> BatchRequest:
        """Every broken rule at once. ``txids``: those of ``cobsv``'s items in order (None: no
        ``cobsv``). ``creating``: ``PUT`` (``descricao`` and ``cobsv`` required; an empty list
        is a batch of none, as the standard's schema allows) rather than ``PATCH``. A txid that is
        not text, or not a txid, is named by its place (``cobsv[2].txid``)."""
        problems: list[str] = []
        text = judge_text(problems, "descricao", description, MAX_DESCRIPTION)
        if creating and text is None and not any(p.startswith("descricao") for p in problems):
            problems.append("descricao: required, a text")
        if txids is None and creating:
            problems.append("cobsv: required, a list of charges")
        txids = txids or ()
        if len(txids) > MAX_CHARGES:
            problems.append(f"cobsv: at most {MAX_CHARGES} charges in one batch")
        valid: list[str] = []
        seen: set[str] = set()
        for place, txid in enumerate(txids):
            field = f"cobsv[{place}].txid"
            if not isinstance(txid, str):
                problems.append(f"{field}: required, a text")
                continue
            good = collect(problems, field, functools.partial(validate_txid, txid))
            if good is None:
                continue
            if good in seen:
                problems.append(f"{field}: {good} is given more than once in the batch")
            seen.add(good)
            valid.append(good)
        if problems:
            message = "Invalid batch of due-date charges: " + "; ".join(problems)
            raise ValidationError(message, details=problems)
        return cls(text, tuple(valid))
