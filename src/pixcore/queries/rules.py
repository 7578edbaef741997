"""Transaction queries: what a statement shows, and the rules of the query parameters.

Two lists (``/api/transactions`` and the pix-key list) and two look-ups (by
pix key and identifier; the raw status record by id or externalId) read the
same records, always of the caller's account only, newest first
(``createdAt`` descending, then id descending: a total order).

Parameters, as the query string carries them (an empty value is the same as
no value):

* ``page`` from 1 (default 1), ``size`` from 1 to 100 on ``/api/transactions``
  and to 1000 on the pix-key list (default 20): ASCII digits only.
* ``status`` and ``type``: the raw values, exactly (``PENDING`` ..., ``PAYMENT`` ...).
* ``startDate`` and ``endDate``: ISO 8601, a date or a date and time; a naive
  time is UTC. Both bounds are inclusive, to the millisecond (the wire's
  precision). A date alone is the start of that day as ``startDate`` and its
  last millisecond as ``endDate``, so ``startDate=2026-11-01&endDate=2026-12-01``
  covers 31 whole days. ``endDate`` defaults to now
  (the service clock), ``startDate`` to ``endDate`` minus 31 days (30 on the
  pix-key list). ``endDate`` before ``startDate``, or more than 31 days after
  it, is refused.
* ``externalId`` (1 to 100 characters) and ``endToEndId`` (32 ASCII
  alphanumerics) filter ``/api/transactions``.

Every broken rule is listed in one :class:`~pixcore.errors.InvalidQuery`.

The pix-key list reaches the newest 1000 matches at most: ``metadata.total`` is
capped at 1000 and pages past them are empty.

Identifiers of the look-ups (:func:`classify_identifier`): ``E`` and 31 ASCII
alphanumerics is an end-to-end id, a canonical decimal number that fits a
64-bit id is a numeric id, and any text may be an externalId. They are
compared at the same time: an E2E-shaped identifier matches a record by its
endToEndId or its externalId, a numeric one by its id or its externalId,
anything else by its externalId only. If two records match, the kind that the
shape names wins (endToEndId, then id, then externalId), then the newest.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Protocol, TypeVar

from pixcore.clock import parse_timestamp
from pixcore.errors import InvalidPixKey, InvalidQuery, ValidationError
from pixcore.identifiers import looks_like_end_to_end_id
from pixcore.keys import PixKey, parse_pix_key
from pixcore.problems import Field, Problem
from pixcore.records import TransactionStatus, TransactionType

__all__ = [
    "DATE_PATTERN",
    "DEFAULT_SIZE",
    "FLOW_DAYS",
    "MAX_ID",
    "MAX_SPAN",
    "PIX_KEY_TOTAL_CAP",
    "DayFlow",
    "Identifier",
    "ListField",
    "ListKind",
    "ListQuery",
    "Movement",
    "TransactionFilter",
    "TransactionPage",
    "TransactionQueries",
    "TransactionView",
    "classify_identifier",
    "credit_types",
    "display_status",
    "display_type",
    "mask_counterpart_document",
    "movement_of",
    "parse_bounded_integer",
    "parse_date_bounds",
    "parse_list_query",
    "parse_query_pix_key",
]

DEFAULT_SIZE = 20
MAX_SPAN = timedelta(days=31)
PIX_KEY_TOTAL_CAP = 1000
"""The pix-key list reaches at most this many results in total."""
MAX_PAGE = 10_000_000
"""Far past any result a 31-day window can hold; keeps offsets inside 64 bits."""
MAX_ID = 2**63 - 1
MAX_EXTERNAL_ID = 100
DATE_PATTERN = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{3}|\.[0-9]{6})?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?"
)
"""The forms of ``startDate``/``endDate`` the OpenAPI document publishes (matched whole): a date, or
a date and time, as :func:`_moment` reads them (it reads a few more ISO 8601 forms). That the date
and time are real ones is a rule no pattern says."""
"""The longest externalId a record can carry."""

_DIGITS = re.compile(r"[0-9]+")
_CANONICAL_NUMBER = re.compile(r"[1-9][0-9]{0,18}")
_E2E_FILTER = re.compile(r"[A-Za-z0-9]{32}")
_CPF_SHAPE = re.compile(r"[0-9]{11}")
_CNPJ_SHAPE = re.compile(r"[0-9A-Z]{12}[0-9]{2}")

_STATUS_DISPLAY = {
    TransactionStatus.PENDING: "Pendente",
    TransactionStatus.CONFIRMED: "Confirmado",
    TransactionStatus.ERROR: "Error",
}
_TYPE_DISPLAY = {
    TransactionType.PAYMENT: "Pix in",
    TransactionType.WITHDRAW: "Pix out",
    TransactionType.REFUND_IN: "Refund in",
    TransactionType.REFUND_OUT: "Refund out",
}


class Movement(enum.StrEnum):
    """Which way the money of a record went, for its account."""

    CREDIT = "CREDIT"
    DEBIT = "DEBIT"


_MOVEMENT = {
    TransactionType.PAYMENT: Movement.CREDIT,  # Pix in
    TransactionType.REFUND_OUT: Movement.CREDIT,  # a refund we receive
    TransactionType.WITHDRAW: Movement.DEBIT,  # Pix out
    TransactionType.REFUND_IN: Movement.DEBIT,  # a refund we send
}


def display_status(status: TransactionStatus) -> str:
    """``PENDING`` -> ``Pendente``, ``CONFIRMED`` -> ``Confirmado``, ``ERROR`` -> ``Error``."""
    return _STATUS_DISPLAY[status]


def display_type(kind: TransactionType) -> str:
    """``PAYMENT`` -> ``Pix in``, ``WITHDRAW`` -> ``Pix out``, ``REFUND_IN`` -> ``Refund in``, ..."""
    return _TYPE_DISPLAY[kind]


def movement_of(kind: TransactionType) -> Movement:
    """``Pix in`` and ``Refund out`` are credits; ``Pix out`` and ``Refund in`` are debits."""
    return _MOVEMENT[kind]


def mask_counterpart_document(document: str | None) -> str | None:
    """The document as a counterpart may see it; never the bare value.

    The same text as :func:`pixcore.documents.mask_document` gives for a valid
    CPF or CNPJ, told by shape alone: statements mask thousands of stored
    documents, which were validated when they were written, and recomputing
    check digits for each would be most of a large page's cost. Anything not
    shaped like a CPF or CNPJ (none should be) is hidden entirely.
    """
    if document is None:
        return None
    if _CPF_SHAPE.fullmatch(document):
        return f"***.{document[3:6]}.{document[6:9]}-**"
    if _CNPJ_SHAPE.fullmatch(document):
        return f"**.{document[2:5]}.{document[5:8]}/{document[8:12]}-**"
    return "*" * len(document)


# ------------------------------------------------------------------------------ read model


@dataclass(slots=True)
class TransactionView:
    """One transaction record as the queries read it. Amounts in centavos.

    Not frozen: a statement page makes a thousand of these, and a frozen dataclass's
    ``__init__`` (``object.__setattr__`` per field) costs four times as much. Nothing
    writes to one after it is made.
    """

    id: int
    account_id: int
    type: TransactionType
    status: TransactionStatus
    amount: int
    fee: int
    created_at: datetime
    updated_at: datetime
    processed_at: datetime | None = None
    external_id: str | None = None
    end_to_end_id: str | None = None
    pix_key: str | None = None
    counterpart_name: str | None = None
    counterpart_document: str | None = None
    counterpart_ispb: str | None = None
    counterpart_bank: str | None = None
    counterpart_branch: str | None = None
    counterpart_account: str | None = None

    @property
    def movement(self) -> Movement:
        return movement_of(self.type)

    @property
    def final_amount(self) -> int:
        """Original plus fee for debits, original minus fee for credits."""
        return self.amount + self.fee if self.movement is Movement.DEBIT else self.amount - self.fee

    @property
    def masked_document(self) -> str | None:
        return mask_counterpart_document(self.counterpart_document)


@dataclass(frozen=True, slots=True)
class TransactionPage:
    """One page of a list, with what its metadata is made of."""

    items: list[TransactionView]
    page: int
    size: int
    total: int

    @property
    def total_pages(self) -> int:
        return -(-self.total // self.size)

    @property
    def has_next(self) -> bool:
        return self.page < self.total_pages

    @property
    def has_previous(self) -> bool:
        return self.page > 1


FLOW_DAYS = 30
"""The overview's span: money in and out per day over the last 30 days (today included)."""


@dataclass(frozen=True, slots=True)
class DayFlow:
    """Money in and out of an account on one day (UTC), in centavos: the final amounts
    (:attr:`TransactionView.final_amount`) of its settled (``CONFIRMED``) records created that
    day, credits in ``incoming``, debits in ``outgoing``."""

    day: date
    incoming: int
    outgoing: int


def credit_types() -> tuple[TransactionType, ...]:
    """The record types whose money comes in (:class:`Movement` ``CREDIT``)."""
    return tuple(kind for kind in TransactionType if movement_of(kind) is Movement.CREDIT)


# ------------------------------------------------------------------------------ parameters


class ListKind(enum.Enum):
    """The two lists, with their size limit and default span."""

    TRANSACTIONS = (100, timedelta(days=31))
    PIX_KEY = (1000, timedelta(days=30))

    @property
    def max_size(self) -> int:
        return self.value[0]

    @property
    def default_span(self) -> timedelta:
        return self.value[1]


@dataclass(frozen=True, slots=True)
class TransactionFilter:
    """Which records of an account a list holds (bounds inclusive)."""

    start: datetime
    end: datetime
    status: TransactionStatus | None = None
    type: TransactionType | None = None
    external_id: str | None = None
    end_to_end_id: str | None = None
    pix_key: str | None = None
    amount: int | None = None
    """The original amount, in centavos (the console's search)."""


@dataclass(frozen=True, slots=True)
class ListQuery:
    """A validated list request: the filter and the page asked for."""

    filter: TransactionFilter
    page: int
    size: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size


T = TypeVar("T")


class ListField(Field):
    """The parameters of a transaction list (and of the deliveries' dates), as the parsers here
    name them in their problems."""

    PAGE = enum.auto()
    SIZE = enum.auto()
    STATUS = enum.auto()
    TYPE = enum.auto()
    START = enum.auto()
    END = enum.auto()
    EXTERNAL_ID = enum.auto()
    END_TO_END_ID = enum.auto()
    KEY = enum.auto()


_INVALID = "Invalid query parameters: {}."
_END_BEFORE_START = Problem.of(ListField.END, "must not be before {}", ListField.START)
_OUT_OF_RANGE = Problem.of((ListField.START, ListField.END), "out of the supported range")


def _collect(problems: list[Problem], field: ListField, parse: Callable[[], T]) -> T | None:
    try:
        return parse()
    except ValidationError as exc:
        problems.append(Problem.of(field, exc.message))
        return None


def parse_bounded_integer(text: str | None, default: int, low: int, high: int) -> int:
    """A query's whole number: ASCII digits, ``low`` to ``high``; absent or empty: ``default``."""
    if text is None or text == "":
        return default
    if _DIGITS.fullmatch(text) is None:
        raise InvalidQuery(f"must be an integer from {low} to {high}")
    digits = text.lstrip("0") or "0"
    value = int(digits) if len(digits) <= len(str(high)) else high + 1
    if not low <= value <= high:
        raise InvalidQuery(f"must be an integer from {low} to {high}")
    return value


def _status(text: str | None) -> TransactionStatus | None:
    if text is None or text == "":
        return None
    try:
        return TransactionStatus(text)
    except ValueError:
        raise InvalidQuery("must be one of " + ", ".join(TransactionStatus)) from None


def _type(text: str | None) -> TransactionType | None:
    if text is None or text == "":
        return None
    try:
        return TransactionType(text)
    except ValueError:
        raise InvalidQuery("must be one of " + ", ".join(TransactionType)) from None


@dataclass(frozen=True, slots=True)
class _Moment:
    at: datetime
    date_only: bool


def _moment(text: str | None) -> _Moment | None:
    if text is None or text == "":
        return None
    if not text.isascii() or len(text) > 40:
        raise InvalidQuery("must be an ISO 8601 date or date and time")
    try:
        day = date.fromisoformat(text)
    except ValueError:
        pass
    else:
        return _Moment(datetime.combine(day, time(0), tzinfo=UTC), date_only=True)
    try:
        return _Moment(parse_timestamp(text), date_only=False)
    except ValueError:
        raise InvalidQuery("must be an ISO 8601 date or date and time") from None


def _to_millisecond(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000)


def _window(
    problems: list[Problem], start_text: str | None, end_text: str | None, now: datetime, span: timedelta
) -> tuple[datetime, datetime] | None:
    """The inclusive bounds of a list's ``createdAt``; None (problems noted) if they break a rule.

    Bounds count in milliseconds, the precision of every timestamp on the wire:
    ``endDate`` covers its whole millisecond, so the ``createdAt`` of a listed
    record, given back as ``endDate``, still lists that record.
    """
    start = _collect(problems, ListField.START, lambda: _moment(start_text))
    end = _collect(problems, ListField.END, lambda: _moment(end_text))
    if (start is None and not _absent(start_text)) or (end is None and not _absent(end_text)):
        return None
    try:
        if end is None:
            last = _to_millisecond(now)
        elif end.date_only:
            last = end.at + timedelta(days=1) - timedelta(milliseconds=1)
        else:
            last = _to_millisecond(end.at)
        first = last - span if start is None else _to_millisecond(start.at)
        if last < first:
            problems.append(_END_BEFORE_START)
            return None
        if last - first > MAX_SPAN:
            problems.append(Problem.of(ListField.END, "must be at most 31 days after {}", ListField.START))
            return None
        return first, last + timedelta(microseconds=999)
    except OverflowError:
        problems.append(_OUT_OF_RANGE)
        return None


def _absent(text: str | None) -> bool:
    return text is None or text == ""


def _external_id(text: str | None) -> str | None:
    if text is None or text == "":
        return None
    if len(text) > MAX_EXTERNAL_ID:
        raise InvalidQuery(f"at most {MAX_EXTERNAL_ID} characters")
    return text


def _end_to_end_id(text: str | None) -> str | None:
    if text is None or text == "":
        return None
    if _E2E_FILTER.fullmatch(text) is None:
        raise InvalidQuery("must be 32 alphanumeric characters")
    return text


def parse_date_bounds(
    start_date: str | None, end_date: str | None
) -> tuple[datetime | None, datetime | None]:
    """``startDate`` and ``endDate`` of a list without a default window (the webhook deliveries):
    read as on the transaction lists (a date alone is its whole day, both bounds inclusive, to
    the millisecond); None where absent. One error lists every problem."""
    problems: list[Problem] = []
    start = _collect(problems, ListField.START, lambda: _moment(start_date))
    end = _collect(problems, ListField.END, lambda: _moment(end_date))
    first = last = None
    try:
        if start is not None:
            first = _to_millisecond(start.at)
        if end is not None:
            whole = end.at + timedelta(days=1) - timedelta(milliseconds=1) if end.date_only else end.at
            last = _to_millisecond(whole) + timedelta(microseconds=999)
    except OverflowError:
        problems.append(_OUT_OF_RANGE)
    if first is not None and last is not None and last < first:
        problems.append(_END_BEFORE_START)
    if problems:
        raise InvalidQuery(problems=problems, summary=_INVALID)
    return first, last


def parse_list_query(
    kind: ListKind,
    *,
    now: datetime,
    page: str | None = None,
    size: str | None = None,
    status: str | None = None,
    type: str | None = None,  # noqa: A002 - the parameter's name on the wire
    start_date: str | None = None,
    end_date: str | None = None,
    external_id: str | None = None,
    end_to_end_id: str | None = None,
    pix_key: PixKey | None = None,
) -> ListQuery:
    """Validate a list's query parameters (raw strings, None when absent); one error lists every problem."""
    problems: list[Problem] = []
    number = _collect(problems, ListField.PAGE, lambda: parse_bounded_integer(page, 1, 1, MAX_PAGE))
    count = _collect(
        problems, ListField.SIZE, lambda: parse_bounded_integer(size, DEFAULT_SIZE, 1, kind.max_size)
    )
    wanted_status = _collect(problems, ListField.STATUS, lambda: _status(status))
    wanted_type = _collect(problems, ListField.TYPE, lambda: _type(type))
    window = _window(problems, start_date, end_date, now, kind.default_span)
    ext = _collect(problems, ListField.EXTERNAL_ID, lambda: _external_id(external_id))
    e2e = _collect(problems, ListField.END_TO_END_ID, lambda: _end_to_end_id(end_to_end_id))
    if problems or number is None or count is None or window is None:
        raise InvalidQuery(problems=problems, summary=_INVALID)
    return ListQuery(
        filter=TransactionFilter(
            start=window[0],
            end=window[1],
            status=wanted_status,
            type=wanted_type,
            external_id=ext,
            end_to_end_id=e2e,
            pix_key=pix_key.value if pix_key else None,
        ),
        page=number,
        size=count,
    )


def parse_query_pix_key(text: str) -> PixKey:
    """The ``{pixKey}`` of a path: any valid key, in canonical form (400 otherwise)."""
    try:
        return parse_pix_key(text)
    except InvalidPixKey as exc:
        raise InvalidPixKey(
            problems=[Problem.of(ListField.KEY, d) for d in exc.details]
            or [Problem.of(ListField.KEY, "not a PIX key")]
        ) from None


# ------------------------------------------------------------------------------ identifiers


@dataclass(frozen=True, slots=True)
class Identifier:
    """What a look-up identifier may be compared with; ``external_id`` is None when no record
    can carry it (longer than any externalId)."""

    end_to_end_id: str | None
    id: int | None
    external_id: str | None

    @property
    def impossible(self) -> bool:
        return self.end_to_end_id is None and self.id is None and self.external_id is None


def classify_identifier(text: str, *, end_to_end: bool = True) -> Identifier:
    """Sort a look-up identifier into the fields it is compared with (see the module docstring).

    ``end_to_end``: whether an end-to-end id is a possible reading (the status
    record takes a numeric id or an externalId only).
    """
    e2e = text if end_to_end and looks_like_end_to_end_id(text) else None
    number = int(text) if _CANONICAL_NUMBER.fullmatch(text) and int(text) <= MAX_ID else None
    external = text if 0 < len(text) <= MAX_EXTERNAL_ID else None
    return Identifier(end_to_end_id=e2e, id=number, external_id=external)


# ------------------------------------------------------------------------------ the port


class TransactionQueries(Protocol):
    """The read side of the transaction records. Every method sees one account only."""

    async def list(self, account_id: int, query: ListQuery, *, cap: int | None = None) -> TransactionPage:
        """A page of the account's records matching ``query.filter``, newest first, with the
        number of matches (at most ``cap`` when given; then only the first ``cap`` matches are
        reachable). Total and items come from one snapshot."""
        ...

    async def daily_flows(self, account_id: int, first: date, last: date) -> Sequence[DayFlow]:
        """Money in and out of the account per day (UTC) from ``first`` to ``last`` (both
        included), oldest first, one :class:`DayFlow` per day that has a settled record (days
        without one are left out). One aggregate statement: no record is read into memory."""
        ...

    async def find(
        self, account_id: int, identifier: Identifier, *, pix_key: str | None = None
    ) -> TransactionView | None:
        """The record the identifier names (see :func:`classify_identifier`), of this account
        and, when given, of this pix key; None if there is none."""
        ...
