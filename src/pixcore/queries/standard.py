"""The queries of the central bank's standard Pix API: the lists (``GET /cob``, ``GET /cobv``,
``GET /lotecobv``, ``GET /pix``, ``GET /webhook``, ``GET /loc``) and the ``revisao`` of
``GET /cob/{txid}``.

Parameters, as the query string carries them (an empty value is the same as no value):

* ``inicio`` and ``fim``: required, RFC 3339 date-times with an offset (``Z`` or ``-03:00``);
  both bounds inclusive; ``fim`` before ``inicio`` is refused. ``GET /cob`` compares them with
  the charge's ``calendario.criacao``, ``GET /pix`` with the PIX's ``horario``.
* ``cpf`` (11 digits) or ``cnpj`` (14 characters), not both: the debtor of a charge, the payer of
  a PIX.
* ``paginacao.paginaAtual`` from 0 (default 0) and ``paginacao.itensPorPagina`` from 1 to 1000
  (default 100), ASCII digits only.
* ``GET /cob``: ``status`` (the status a reader sees now: an expired charge is REMOVIDA_PELO_PSP
  before the sweep writes it) and ``locationPresente`` (``true``/``false``: whether the charge is
  at a location now).
* ``GET /pix``: ``txid`` (1 to 35 letters and digits), ``txIdPresente`` and ``devolucaoPresente``
  (``true``/``false``: the PIX paid a charge / has a refund to its payer).
* ``GET /loc``: ``inicio``/``fim`` on the location's ``criacao``; ``txIdPresente`` (``true``/``false``:
  it serves a charge now) and ``tipoCob`` (``cob`` or ``cobv``).

Every broken rule is listed in one :class:`~pixcore.errors.InvalidQuery`, each a problem of a
:class:`QueryField`.
Items are listed oldest first (then by id: a total order, so pages never overlap).

The other lists built on these (Pix Automático's, ``pixcore.recurrences.queries``) judge their
window, document, page, flags and ``status`` with the same pieces: :func:`parse_period`,
:func:`parse_flag`, :func:`parse_status` and :func:`refuse`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from pixcore.charges.cob import ChargeStatus
from pixcore.charges.locations import LocationType
from pixcore.documents import CNPJ_PATTERN, CPF_PATTERN, is_valid_cnpj
from pixcore.errors import InvalidQuery
from pixcore.problems import Field, Problem
from pixcore.queries.rules import parse_bounded_integer
from pixcore.validation import collect

__all__ = [
    "DEFAULT_ITEMS",
    "MAX_ITEMS",
    "MAX_PAGE",
    "RFC3339_PATTERN",
    "TXID_FILTER_PATTERN",
    "BatchQuery",
    "ChargeQuery",
    "LocationQuery",
    "Page",
    "Period",
    "PeriodText",
    "QueryField",
    "ReceivedQuery",
    "WebhookQuery",
    "given",
    "parse_batch_id",
    "parse_batch_query",
    "parse_charge_query",
    "parse_flag",
    "parse_location_query",
    "parse_period",
    "parse_received_query",
    "parse_revision",
    "parse_status",
    "parse_webhook_query",
    "refuse",
]

DEFAULT_ITEMS = 100
MAX_ITEMS = 1000
MAX_PAGE = 2_147_483_647  # the standard's int32
_SIGNED = re.compile(r"-?[0-9]+")
_MAX_MOMENT = 64  # characters: no RFC 3339 date-time is longer
RFC3339_PATTERN = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
"""``inicio`` and ``fim``'s layout (whether the date and time exist is a rule no pattern says)."""
_RFC3339 = re.compile(RFC3339_PATTERN)
_CPF = re.compile(CPF_PATTERN)
_CNPJ = re.compile(CNPJ_PATTERN)
TXID_FILTER_PATTERN = r"[a-zA-Z0-9]{1,35}"
_TXID_FILTER = re.compile(TXID_FILTER_PATTERN)
E = TypeVar("E", bound=enum.StrEnum)


class QueryField(Field):
    """The parameters of the standard's lists, as the parsers here name them in their problems."""

    START = enum.auto()
    END = enum.auto()
    CPF = enum.auto()
    CNPJ = enum.auto()
    PAGE = enum.auto()
    PAGE_SIZE = enum.auto()
    LOCATION_PRESENT = enum.auto()
    STATUS = enum.auto()
    BATCH = enum.auto()
    REVISION = enum.auto()
    TXID = enum.auto()
    TXID_PRESENT = enum.auto()
    REFUND_PRESENT = enum.auto()
    LOCATION_TYPE = enum.auto()


_END_BEFORE_START = Problem.of(QueryField.END, "must not be before {}", QueryField.START)


@dataclass(frozen=True, slots=True)
class Page:
    """``paginacao``: the page asked for (from 0) and its size."""

    number: int = 0
    size: int = DEFAULT_ITEMS

    @property
    def offset(self) -> int:
        return self.number * self.size

    def count(self, total: int) -> int:
        """``quantidadeDePaginas``: at least 1 (an empty result is one empty page)."""
        return max(1, -(-total // self.size))


@dataclass(frozen=True, slots=True)
class ChargeQuery:
    start: datetime
    end: datetime
    cpf: str | None = None
    cnpj: str | None = None
    location_present: bool | None = None
    status: ChargeStatus | None = None
    page: Page = Page()
    batch: int | None = None
    """``loteCobVId`` (``GET /cobv``): only the charges of that batch of due-date charges."""
    other_status: str | None = None
    """A ``status`` that is no charge's (the standard takes any text there): nothing matches it."""


@dataclass(frozen=True, slots=True)
class ReceivedQuery:
    start: datetime
    end: datetime
    txid: str | None = None
    txid_present: bool | None = None
    refund_present: bool | None = None
    cpf: str | None = None
    cnpj: str | None = None
    page: Page = Page()


def given(text: str | None) -> str | None:
    """A parameter's text, None for none or an empty one."""
    return None if text is None or text == "" else text


def _moment(text: str | None) -> datetime:
    if text is None or text == "":
        raise InvalidQuery("required, an RFC 3339 date-time with an offset (2020-04-01T00:00:00Z)")
    if len(text) > _MAX_MOMENT or _RFC3339.fullmatch(text) is None:
        raise InvalidQuery("must be an RFC 3339 date-time with an offset (2020-04-01T00:00:00Z)")
    try:
        moment = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidQuery("must be a valid RFC 3339 date-time within years 1 to 9999") from None


def parse_flag(text: str | None) -> bool | None:
    """A ``true``/``false`` parameter (``locationPresente``, ``txIdPresente``...); None for no text."""
    if given(text) is None:
        return None
    if text not in ("true", "false"):
        raise InvalidQuery("must be true or false")
    return text == "true"


def _cpf(text: str | None) -> str | None:
    if (text := given(text)) is not None and _CPF.fullmatch(text) is None:
        raise InvalidQuery("must be 11 digits")
    return text


def _cnpj(text: str | None) -> str | None:
    if (text := given(text)) is not None and (_CNPJ.fullmatch(text) is None or not is_valid_cnpj(text)):
        raise InvalidQuery("must be a valid CNPJ of 14 characters")
    return text


def parse_status(kind: type[E], text: str | None, *, any_text: bool = False) -> tuple[E | None, str | None]:
    """``status``: one of ``kind``'s values (None for no text). ``any_text``: as the standard's
    document reads ``status``, any text, the empty one included; one that is none of ``kind``'s
    values is given back second (nothing has it, so it matches nothing), else it is refused."""
    if any_text and text is not None and text not in kind.__members__.values():
        return None, text
    if (text := given(text)) is None:
        return None, None
    try:
        return kind(text), None
    except ValueError:
        raise InvalidQuery("must be one of " + ", ".join(kind)) from None


def _txid(text: str | None) -> str | None:
    if (text := given(text)) is not None and _TXID_FILTER.fullmatch(text) is None:
        raise InvalidQuery("must be 1 to 35 letters and digits")
    return text


@dataclass(frozen=True, slots=True)
class Period:
    """What every list's query has: the window (both bounds inclusive), the document (cpf or
    cnpj, for the lists that take one) and the page."""

    start: datetime
    end: datetime
    cpf: str | None
    cnpj: str | None
    page: Page


@dataclass(frozen=True, slots=True)
class PeriodText:
    """The texts of :class:`Period` as the query string gave them: ``inicio`` (``start``), ``fim``
    (``end``), ``cpf``, ``cnpj`` (None for a list that takes no document),
    ``paginacao.paginaAtual`` (``page``) and ``paginacao.itensPorPagina`` (``size``)."""

    start: str | None
    end: str | None
    cpf: str | None = None
    cnpj: str | None = None
    page: str | None = None
    size: str | None = None


def parse_period(problems: list[Problem], text: PeriodText) -> Period | None:
    """The period ``text`` gives; its problems into ``problems`` (then None)."""
    start = collect(problems, QueryField.START, lambda: _moment(text.start))
    end = collect(problems, QueryField.END, lambda: _moment(text.end))
    if start is not None and end is not None and end < start:
        problems.append(_END_BEFORE_START)
    cpf = collect(problems, QueryField.CPF, lambda: _cpf(text.cpf))
    cnpj = collect(problems, QueryField.CNPJ, lambda: _cnpj(text.cnpj))
    if given(text.cpf) is not None and given(text.cnpj) is not None:
        problems.append(Problem.of((QueryField.CPF, QueryField.CNPJ), "give one of them, not both"))
    number = collect(problems, QueryField.PAGE, lambda: parse_bounded_integer(text.page, 0, 0, MAX_PAGE))
    items = collect(
        problems, QueryField.PAGE_SIZE, lambda: parse_bounded_integer(text.size, DEFAULT_ITEMS, 1, MAX_ITEMS)
    )
    if start is None or end is None or number is None or items is None:
        return None
    return Period(start, end, cpf, cnpj, Page(number, items))


def refuse(problems: list[Problem]) -> InvalidQuery:
    """A list's refusal: every broken rule of its query."""
    return InvalidQuery(problems=problems, summary="Invalid query parameters: {}.")


def parse_charge_query(
    *,
    inicio: str | None,
    fim: str | None,
    cpf: str | None = None,
    cnpj: str | None = None,
    location_present: str | None = None,
    status: str | None = None,
    page: str | None = None,
    size: str | None = None,
    batch: str | None = None,
    any_text: bool = False,
) -> ChargeQuery:
    """``GET /cob``'s parameters (and ``GET /cobv``'s, with ``loteCobVId``: ``batch``), each as
    the query string gave it. ``any_text``: as the standard's document reads ``status`` (any
    text; one that is no charge's status matches nothing), else only a charge's status is one."""
    problems: list[Problem] = []
    common = parse_period(problems, PeriodText(inicio, fim, cpf, cnpj, page, size))
    present = collect(problems, QueryField.LOCATION_PRESENT, lambda: parse_flag(location_present))
    wanted, other = collect(
        problems, QueryField.STATUS, lambda: parse_status(ChargeStatus, status, any_text=any_text)
    ) or (None, None)
    lot = collect(problems, QueryField.BATCH, lambda: parse_batch_id(batch))
    if problems or common is None:
        raise refuse(problems)
    return ChargeQuery(
        common.start, common.end, common.cpf, common.cnpj, present, wanted, common.page, lot, other
    )


def parse_revision(text: str | None) -> int | None:
    """``revisao`` of ``GET /cob/{txid}`` and ``GET /cobv/{txid}``: the standard's int32 (absent or
    empty: the charge as it is now). Whether the charge has that revision is the use case's rule."""
    problems: list[Problem] = []
    revision = collect(problems, QueryField.REVISION, lambda: parse_batch_id(text))
    if problems:
        raise refuse(problems)
    return revision


def parse_batch_id(text: str | None) -> int | None:
    """A batch's id (``loteCobVId``, the ``{id}`` of ``/lotecobv/{id}``), or any of the standard's
    int32 (``revisao``): ASCII digits with an optional minus; None for no text."""
    if text is None or text == "":
        return None
    if _SIGNED.fullmatch(text) is None:
        raise InvalidQuery(f"must be an integer from {-MAX_PAGE - 1} to {MAX_PAGE}")
    negative = text.startswith("-")
    digits = text.removeprefix("-").lstrip("0") or "0"
    value = int(digits) if len(digits) <= len(str(MAX_PAGE)) else MAX_PAGE + 2
    value = -value if negative else value
    if not -MAX_PAGE - 1 <= value <= MAX_PAGE:
        raise InvalidQuery(f"must be an integer from {-MAX_PAGE - 1} to {MAX_PAGE}")
    return value


@dataclass(frozen=True, slots=True)
class BatchQuery:
    """``GET /lotecobv``: the window on the batches' ``criacao`` (both bounds required) and the page."""

    start: datetime
    end: datetime
    page: Page = Page()


def parse_batch_query(
    *, inicio: str | None, fim: str | None, page: str | None = None, size: str | None = None
) -> BatchQuery:
    """``GET /lotecobv``'s parameters, each as the query string gave it (judged as ``GET /cob``'s)."""
    problems: list[Problem] = []
    common = parse_period(problems, PeriodText(inicio, fim, page=page, size=size))
    if problems or common is None:
        raise refuse(problems)
    return BatchQuery(common.start, common.end, common.page)


@dataclass(frozen=True, slots=True)
class WebhookQuery:
    """``GET /webhook``: the window on the webhooks' ``criacao`` (each bound optional) and the page."""

    start: datetime | None = None
    end: datetime | None = None
    page: Page = Page()


def parse_webhook_query(
    *, inicio: str | None, fim: str | None, page: str | None = None, size: str | None = None
) -> WebhookQuery:
    """``GET /webhook``'s parameters, each as the query string gave it (``inicio`` and ``fim``
    optional, unlike ``GET /cob`` and ``GET /pix``)."""
    problems: list[Problem] = []
    start = collect(problems, QueryField.START, lambda: None if given(inicio) is None else _moment(inicio))
    end = collect(problems, QueryField.END, lambda: None if given(fim) is None else _moment(fim))
    if start is not None and end is not None and end < start:
        problems.append(_END_BEFORE_START)
    number = collect(problems, QueryField.PAGE, lambda: parse_bounded_integer(page, 0, 0, MAX_PAGE))
    items = collect(
        problems, QueryField.PAGE_SIZE, lambda: parse_bounded_integer(size, DEFAULT_ITEMS, 1, MAX_ITEMS)
    )
    if problems or number is None or items is None:
        raise refuse(problems)
    return WebhookQuery(start, end, Page(number, items))


def parse_received_query(
    *,
    inicio: str | None,
    fim: str | None,
    txid: str | None = None,
    txid_present: str | None = None,
    refund_present: str | None = None,
    cpf: str | None = None,
    cnpj: str | None = None,
    page: str | None = None,
    size: str | None = None,
) -> ReceivedQuery:
    """``GET /pix``'s parameters, each as the query string gave it."""
    problems: list[Problem] = []
    common = parse_period(problems, PeriodText(inicio, fim, cpf, cnpj, page, size))
    wanted = collect(problems, QueryField.TXID, lambda: _txid(txid))
    with_txid = collect(problems, QueryField.TXID_PRESENT, lambda: parse_flag(txid_present))
    with_refund = collect(problems, QueryField.REFUND_PRESENT, lambda: parse_flag(refund_present))
    if problems or common is None:
        raise refuse(problems)
    return ReceivedQuery(
        common.start, common.end, wanted, with_txid, with_refund, common.cpf, common.cnpj, common.page
    )


@dataclass(frozen=True, slots=True)
class LocationQuery:
    """``GET /loc``: the window on the locations' ``criacao``, the filters and the page."""

    start: datetime
    end: datetime
    txid_present: bool | None = None
    type: LocationType | None = None
    page: Page = Page()


def _location_type(text: str | None) -> LocationType | None:
    if (text := given(text)) is None:
        return None
    try:
        return LocationType(text)
    except ValueError:
        raise InvalidQuery("must be cob or cobv") from None


def parse_location_query(
    *,
    inicio: str | None,
    fim: str | None,
    txid_present: str | None = None,
    location_type: str | None = None,
    page: str | None = None,
    size: str | None = None,
) -> LocationQuery:
    """``GET /loc``'s parameters, each as the query string gave it (judged as ``GET /cob``'s)."""
    problems: list[Problem] = []
    common = parse_period(problems, PeriodText(inicio, fim, page=page, size=size))
    with_txid = collect(problems, QueryField.TXID_PRESENT, lambda: parse_flag(txid_present))
    wanted = collect(problems, QueryField.LOCATION_TYPE, lambda: _location_type(location_type))
    if problems or common is None:
        raise refuse(problems)
    return LocationQuery(common.start, common.end, with_txid, wanted, common.page)
