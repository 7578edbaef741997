"""Batches of due-date charges (the standard's ``/lotecobv``): what a batch is and the rules of
its request (docs/decisions/due-batches.md).

A batch is the account's (its ``id``, an int32 the client chooses, names it only within the
account) and holds the requests of ``cobv``s, each with its ``txid`` and its own outcome:
``CRIADA`` (the charge exists, ``created_at`` its creation) or ``NEGADA`` (refused, with the
:class:`Refusal` that ``PUT /cobv/{txid}`` would have answered). The service decides every
charge inside the request, so no item is ever ``EM_PROCESSAMENTO``: the status exists because the
standard lists it. A revision (``PATCH``) that is refused leaves the charge as it was and the item
``CRIADA``, with the revision's refusal; an accepted one clears it.

The request's own rules (refused as a whole, ``LoteCobVOperacaoInvalida``): a description of at
most :data:`MAX_DESCRIPTION` characters, at most :data:`MAX_CHARGES` charges, each with a
well-formed ``txid`` found once in the batch; a problem names its field by a :class:`BatchField`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pixcore import errors
from pixcore.charges.parts import Text, judge_text
from pixcore.errors import PixError, ValidationError
from pixcore.identifiers import validate_txid
from pixcore.problems import Field, Problem

__all__ = [
    "INVALID_BATCH",
    "MAX_CHARGES",
    "MAX_DESCRIPTION",
    "BatchField",
    "BatchItem",
    "BatchItemStatus",
    "BatchRequest",
    "DueBatch",
    "Refusal",
]

MAX_CHARGES = 1000
"""Charges in one batch at most: one request, one transaction, a few seconds of work."""
MAX_DESCRIPTION = 140
"""A description's maximum length (the standard gives none; the payer's message's)."""

# The branches of the error tree a charge of a batch can be refused with, by name.
_BRANCHES: dict[str, type[PixError]] = {
    kind.__name__: kind
    for kind in (errors.ValidationError, errors.NotFound, errors.Conflict, errors.RuleViolation)
}


class BatchField(Field):
    """The fields of a batch's request, as its rules name them in problems."""

    ID = enum.auto()
    DESCRIPTION = enum.auto()
    CHARGES = enum.auto()
    CHARGE_TXID = enum.auto()
    """The txid of one charge of the batch (its place in ``Problem.at``)."""


class BatchItemStatus(enum.StrEnum):
    """The outcome of one charge's request in a batch (the standard's three)."""

    EM_PROCESSAMENTO = "EM_PROCESSAMENTO"
    CRIADA = "CRIADA"
    NEGADA = "NEGADA"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a charge's request was refused: the error ``PUT`` or ``PATCH /cobv/{txid}`` raises,
    kept by its branch of the error tree (``ValidationError``, ``NotFound``, ``Conflict``,
    ``RuleViolation``) and what it says: its problems, each naming its field by reference, with
    the summary around them or the one problem that is its message (``lead``); an error without
    problems, by its message and details as text."""

    branch: str
    message: str
    details: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    summary: str | None = None
    lead: Problem | None = None

    @classmethod
    def of(cls, error: PixError) -> Refusal:
        for name, kind in _BRANCHES.items():
            if isinstance(error, kind):
                return cls(
                    name, error.message, tuple(error.details), error.problems, error.summary, error.lead
                )
        raise ValueError(f"not a refusal of a charge: {type(error).__name__}")

    def error(self) -> PixError:
        """The error again, as its branch (what the edge needs to answer it)."""
        kind = _BRANCHES.get(self.branch, ValidationError)
        if not self.problems and self.lead is None and self.summary is None:
            return kind(self.message, details=list(self.details))
        return kind(self.lead or self.message, problems=self.problems, summary=self.summary)


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
    def parse(cls, *, description: Text, txids: Sequence[Text] | None, creating: bool) -> BatchRequest:
        """Every broken rule at once. ``txids``: those of the charges in order (None: no list of
        charges). ``creating``: ``PUT`` (the description and the charges required; an empty list
        is a batch of none, as the standard's schema allows) rather than ``PATCH``. A txid that is
        not text, or not a txid, is named by its place (``Problem.at``)."""
        problems: list[Problem] = []
        text = judge_text(problems, BatchField.DESCRIPTION, description, MAX_DESCRIPTION)
        if creating and text is None and not any(BatchField.DESCRIPTION in p.fields for p in problems):
            problems.append(Problem.of(BatchField.DESCRIPTION, "required, a text"))
        if txids is None and creating:
            problems.append(Problem.of(BatchField.CHARGES, "required, a list of charges"))
        txids = txids or ()
        if len(txids) > MAX_CHARGES:
            problems.append(Problem.of(BatchField.CHARGES, f"at most {MAX_CHARGES} charges in one batch"))
        valid: list[str] = []
        seen: set[str] = set()
        for place, txid in enumerate(txids):
            good = _txid(problems, place, txid)
            if good is None:
                continue
            if good in seen:
                again = f"{good} is given more than once in the batch"
                problems.append(Problem.of(BatchField.CHARGE_TXID, again, at=(place,)))
            seen.add(good)
            valid.append(good)
        if problems:
            raise ValidationError(problems=problems, summary=INVALID_BATCH)
        return cls(text, tuple(valid))


INVALID_BATCH = "Invalid batch of due-date charges: {}"
"""The summary of a batch's request refused as a whole."""


def _txid(problems: list[Problem], place: int, txid: Text) -> str | None:
    """The txid of the charge at ``place``, or None with its problem noted."""
    if not isinstance(txid, str):
        problems.append(Problem.of(BatchField.CHARGE_TXID, "required, a text", at=(place,)))
        return None
    try:
        return validate_txid(txid)
    except ValidationError as exc:
        problems.append(Problem.of(BatchField.CHARGE_TXID, exc.message, at=(place,)))
        return None
