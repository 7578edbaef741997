"""The lists of Pix Automático: ``GET /rec``, ``GET /cobr`` and ``GET /locrec``.

Every parameter they share with the standard's other lists is judged by the same code
(:mod:`pixcore.queries.standard`): the window ``inicio``/``fim`` on the creation, ``cpf``/``cnpj``
of the debtor (not both), ``locationPresente``, ``status`` and the page. Their own are
``convenio`` (any text of at most 60 characters), ``idRec`` (29 letters and digits) and
``idRecPresente``. With ``any_text`` (the standard's face), ``status`` and ``convenio`` are read as
the standard's document types them, any text: one that no record has (a status that is none of
the resource's, a blank agreement, or one with a NUL) matches nothing (:attr:`matches_nothing`).
Every broken rule is one problem of one :class:`~pixcore.errors.InvalidQuery`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from pixcore.errors import InvalidQuery
from pixcore.problems import Field, Problem
from pixcore.queries.standard import (
    Page,
    Period,
    PeriodText,
    QueryField,
    given,
    parse_flag,
    parse_period,
    parse_status,
    refuse,
)
from pixcore.recurrences.lifecycles import RecurrenceStatus, RecurringChargeStatus
from pixcore.recurrences.requests import MAX_AGREEMENT
from pixcore.validation import collect

__all__ = [
    "REC_ID_PATTERN",
    "ChargeListQuery",
    "LocationListQuery",
    "RecurrenceListQuery",
    "RecurrenceQueryField",
    "RecurringListQuery",
    "parse_charge_list_query",
    "parse_location_list_query",
    "parse_recurrence_list_query",
]

REC_ID_PATTERN = "[a-zA-Z0-9]{29}"
_REC_ID = re.compile(REC_ID_PATTERN)
_FIRST_PAGE = Page()
S = TypeVar("S", RecurrenceStatus, RecurringChargeStatus)


class RecurrenceQueryField(Field):
    """The parameters of these lists that the standard's other lists have not."""

    AGREEMENT = enum.auto()
    REC_ID = enum.auto()
    REC_PRESENT = enum.auto()


def _unheld(agreement: str | None) -> bool:
    """An agreement no recurrence can have (a recurrence's is 1 to 60 characters, not all blank,
    no NUL)."""
    return agreement is not None and (not agreement.strip() or "\x00" in agreement)


@dataclass(frozen=True, slots=True)
class RecurringListQuery:
    """What the three lists' queries share: the window on the creation, the recurrence's
    agreement and the page."""

    start: datetime
    end: datetime
    agreement: str | None = None
    page: Page = _FIRST_PAGE

    @property
    def matches_nothing(self) -> bool:
        """Whether the query asks for what no record has (then nothing is looked up)."""
        return _unheld(self.agreement)


@dataclass(frozen=True, slots=True)
class _WithStatus(RecurringListQuery, Generic[S]):
    cpf: str | None = None
    cnpj: str | None = None
    status: S | None = None
    other_status: str | None = None
    """A ``status`` that is none of the resource's (the standard takes any text there)."""

    @property
    def matches_nothing(self) -> bool:
        return self.other_status is not None or _unheld(self.agreement)


@dataclass(frozen=True, slots=True)
class RecurrenceListQuery(_WithStatus[RecurrenceStatus]):
    """``GET /rec``'s."""

    location_present: bool | None = None


@dataclass(frozen=True, slots=True)
class ChargeListQuery(_WithStatus[RecurringChargeStatus]):
    """``GET /cobr``'s."""

    rec_id: str | None = None


@dataclass(frozen=True, slots=True)
class LocationListQuery(RecurringListQuery):
    """``GET /locrec``'s."""

    rec_present: bool | None = None


def _agreement(text: str | None, any_text: bool) -> str | None:
    text = text if any_text else given(text)
    if text is not None and len(text) > MAX_AGREEMENT:
        raise InvalidQuery(f"must be at most {MAX_AGREEMENT} characters")
    return text


def _rec_id(text: str | None) -> str | None:
    if (text := given(text)) is not None and _REC_ID.fullmatch(text) is None:
        raise InvalidQuery("must be 29 letters and digits")
    return text


def _shared(
    problems: list[Problem], period: PeriodText, agreement: str | None, any_text: bool
) -> tuple[Period | None, str | None]:
    """The period and the agreement, which every list of these has."""
    judged = parse_period(problems, period)
    return judged, collect(problems, RecurrenceQueryField.AGREEMENT, lambda: _agreement(agreement, any_text))


def _status(
    problems: list[Problem], kind: type[S], text: str | None, any_text: bool
) -> tuple[S | None, str | None]:
    found = collect(problems, QueryField.STATUS, lambda: parse_status(kind, text, any_text=any_text))
    return found or (None, None)


def _judged(problems: list[Problem], period: Period | None) -> Period:
    if problems or period is None:
        raise refuse(problems)
    return period


def parse_recurrence_list_query(
    period: PeriodText,
    *,
    location_present: str | None = None,
    status: str | None = None,
    agreement: str | None = None,
    any_text: bool = False,
) -> RecurrenceListQuery:
    """``GET /rec``'s parameters, each as the query string gave it."""
    problems: list[Problem] = []
    judged, convenio = _shared(problems, period, agreement, any_text)
    present = collect(problems, QueryField.LOCATION_PRESENT, lambda: parse_flag(location_present))
    wanted, other = _status(problems, RecurrenceStatus, status, any_text)
    p = _judged(problems, judged)
    return RecurrenceListQuery(
        p.start, p.end, convenio, p.page, p.cpf, p.cnpj, wanted, other, location_present=present
    )


def parse_charge_list_query(
    period: PeriodText,
    *,
    rec_id: str | None = None,
    status: str | None = None,
    agreement: str | None = None,
    any_text: bool = False,
) -> ChargeListQuery:
    """``GET /cobr``'s parameters, each as the query string gave it."""
    problems: list[Problem] = []
    judged, convenio = _shared(problems, period, agreement, any_text)
    recurrence = collect(problems, RecurrenceQueryField.REC_ID, lambda: _rec_id(rec_id))
    wanted, other = _status(problems, RecurringChargeStatus, status, any_text)
    p = _judged(problems, judged)
    return ChargeListQuery(p.start, p.end, convenio, p.page, p.cpf, p.cnpj, wanted, other, rec_id=recurrence)


def parse_location_list_query(
    period: PeriodText,
    *,
    rec_present: str | None = None,
    agreement: str | None = None,
    any_text: bool = False,
) -> LocationListQuery:
    """``GET /locrec``'s parameters, each as the query string gave it."""
    problems: list[Problem] = []
    judged, convenio = _shared(problems, period, agreement, any_text)
    present = collect(problems, RecurrenceQueryField.REC_PRESENT, lambda: parse_flag(rec_present))
    p = _judged(problems, judged)
    return LocationListQuery(p.start, p.end, convenio, p.page, rec_present=present)
