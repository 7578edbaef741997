"""A ``cobv``'s ``calendario`` and ``valor`` on the wire, onto ``pixcore.due_charges``' fields and back.

The request's leaves are ``Any``, taken as decoded (the domain's parser checks each type, as for a
``cob``: ``"valorPerc": 2`` is refused, not coerced). The same Structs read the terms the
``charges.terms`` column keeps in their wire form (``DueTerms.wire``): the repository parses them
back with :func:`stored_terms`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar.openapi.spec import OpenAPIType

from pixcore.charges import ABSENT
from pixcore.due_charges import (
    DEFAULT_DAYS_AFTER_DUE,
    DiscountDateFields,
    DiscountFields,
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    RateFields,
    parse_due_terms,
    payer_day,
)
from pixcore.due_requests import DueCalendarChange, DueValueChange
from pixcore.money import AMOUNT_STRING_PATTERN
from pixweb.api.fields import MAX_AMOUNT_TEXT, doc, raw

__all__ = [
    "CalendarioVIn",
    "DescontoIn",
    "RateIn",
    "ValorVIn",
    "calendar_change",
    "calendar_fields",
    "stored_terms",
    "terms_text",
    "value_change",
    "value_fields",
]

_STRING, _INTEGER = OpenAPIType.STRING, OpenAPIType.INTEGER
MAX_DATE_TEXT = 10  # YYYY-MM-DD
_PERCENT_OR_AMOUNT = Annotated[
    Any,
    raw('a string with 2 decimals, "2.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT),
    doc(
        "Required. A percentage or an amount in reais, per the modality, 2 decimals.",
        pattern=AMOUNT_STRING_PATTERN,
        example="2.00",
    ),
]
_DATE_PATTERN = "[0-9]{4}-[0-9]{2}-[0-9]{2}"


_RATE_MODALITY = Annotated[
    Any,
    raw("the modality's number", kind=_INTEGER),
    doc(
        "Required. The modality: multa and abatimento 1 to 2, juros 1 to 8.", minimum=1, maximum=8, example=1
    ),
]
_DISCOUNT_MODALITY = Annotated[
    Any,
    raw("the modality's number", kind=_INTEGER),
    doc("Required. The modality, 1 to 6.", minimum=1, maximum=6, example=1),
]


_RATE_REQUIRED = ["modalidade", "valorPerc"]


class CalendarioVIn(msgspec.Struct, rename="camel"):
    data_de_vencimento: Annotated[
        Any,
        raw("YYYY-MM-DD", kind=_STRING, max_length=MAX_DATE_TEXT),
        doc(
            "Required. The due date (not before today, Brasília's day).",
            pattern=_DATE_PATTERN,
            example="2026-12-10",
        ),
    ] = msgspec.UNSET
    validade_apos_vencimento: Annotated[
        Any,
        raw("days, 0 or more", kind=_INTEGER),
        doc(
            f"Calendar days it stays payable after the due date (default {DEFAULT_DAYS_AFTER_DUE}).",
            minimum=0,
            maximum=2_147_483_647,
            example=30,
        ),
    ] = msgspec.UNSET


class RateIn(msgspec.Struct, rename="camel"):
    modalidade: _RATE_MODALITY = msgspec.UNSET
    valor_perc: _PERCENT_OR_AMOUNT = msgspec.UNSET


class DescontoDataIn(msgspec.Struct, rename="camel"):
    data: Annotated[
        Any,
        raw("YYYY-MM-DD", kind=_STRING, max_length=MAX_DATE_TEXT),
        doc("Required. The last day of this discount.", pattern=_DATE_PATTERN, example="2026-12-01"),
    ] = msgspec.UNSET
    valor_perc: _PERCENT_OR_AMOUNT = msgspec.UNSET


class DescontoIn(msgspec.Struct, rename="camel"):
    modalidade: _DISCOUNT_MODALITY = msgspec.UNSET
    valor_perc: _PERCENT_OR_AMOUNT = msgspec.UNSET
    desconto_data_fixa: Annotated[
        list[DescontoDataIn] | None,
        doc(
            "Modalities 1 and 2: up to 3 dates, each with its discount.",
            max_items=3,
            schema={"items": {"required": ["data", "valorPerc"]}},
        ),
    ] = None


class ValorVIn(msgspec.Struct, rename="camel"):
    original: Annotated[
        Any,
        raw('a string with 2 decimals, "10.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT),
        doc(
            'Required. The amount in reais on the due date, 2 decimals ("123.45"), above zero.',
            pattern=AMOUNT_STRING_PATTERN,
        ),
    ] = msgspec.UNSET
    multa: Annotated[
        RateIn | None, doc("The fine once late: 1 fixed amount, 2 percent.", required=_RATE_REQUIRED)
    ] = None
    juros: Annotated[
        RateIn | None, doc("Interest once late (modalities 1 to 8).", required=_RATE_REQUIRED)
    ] = None
    abatimento: Annotated[
        RateIn | None, doc("A rebate: 1 fixed amount, 2 percent.", required=_RATE_REQUIRED)
    ] = None
    desconto: Annotated[
        DescontoIn | None, doc("A discount for paying early (modalities 1 to 6).", required=["modalidade"])
    ] = None


def _leaf(value: Any) -> object:
    """A leaf without a default: left out reads as ``None``."""
    return None if value is msgspec.UNSET else value


def _given(value: Any) -> object:
    """A leaf of a change, or with a default: left out is ``ABSENT``."""
    return ABSENT if value is msgspec.UNSET else value


def _rate(rate: RateIn | None) -> RateFields | None:
    return None if rate is None else RateFields(_leaf(rate.modalidade), _leaf(rate.valor_perc))


def _discount(discount: DescontoIn | None) -> DiscountFields | None:
    if discount is None:
        return None
    dates = discount.desconto_data_fixa
    return DiscountFields(
        _leaf(discount.modalidade),
        _leaf(discount.valor_perc),
        None
        if dates is None
        else tuple(DiscountDateFields(_leaf(d.data), _leaf(d.valor_perc)) for d in dates),
    )


def calendar_fields(calendar: CalendarioVIn | None) -> DueCalendarFields | None:
    if calendar is None:
        return None
    return DueCalendarFields(_leaf(calendar.data_de_vencimento), _given(calendar.validade_apos_vencimento))


def value_fields(value: ValorVIn | None) -> DueValueFields | None:
    if value is None:
        return None
    return DueValueFields(
        _leaf(value.original),
        _rate(value.multa),
        _rate(value.juros),
        _rate(value.abatimento),
        _discount(value.desconto),
    )


def calendar_change(calendar: CalendarioVIn | None) -> DueCalendarChange | None:
    """``calendario`` of a ``PATCH``: each member left out keeps the charge's."""
    if calendar is None:
        return None
    return DueCalendarChange(_given(calendar.data_de_vencimento), _given(calendar.validade_apos_vencimento))


def value_change(value: ValorVIn | None) -> DueValueChange | None:
    """``valor`` of a ``PATCH``: each member left out (or ``null``) keeps the charge's."""
    if value is None:
        return None

    def kept(part: Any, fields: Any) -> Any:
        return ABSENT if part is None else fields

    return DueValueChange(
        _given(value.original),
        kept(value.multa, _rate(value.multa)),
        kept(value.juros, _rate(value.juros)),
        kept(value.abatimento, _rate(value.abatimento)),
        kept(value.desconto, _discount(value.desconto)),
    )


def stored_terms(stored: str, created_at: datetime) -> DueTerms:
    """The terms a charge keeps (``{"calendario": ..., "valor": ...}`` as JSON text, their wire
    form), parsed back as on the charge's creation day."""
    parts = _STORED.decode(stored)
    return parse_due_terms(
        calendar_fields(parts.calendario), value_fields(parts.valor), today=payer_day(created_at)
    )


def terms_text(terms: DueTerms) -> str:
    """The terms as the ``terms`` column keeps them."""
    calendar, value = terms.wire()
    return msgspec.json.encode({"calendario": calendar, "valor": value}).decode()


class _Stored(msgspec.Struct):
    calendario: CalendarioVIn
    valor: ValorVIn


_STORED = msgspec.json.Decoder(_Stored)
