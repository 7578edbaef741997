"""A ``cobv``'s ``calendario`` and ``valor`` on the wire: the Structs that decode and document them,
and a ``PATCH``'s changes.

The request's leaves are ``Any``, taken as decoded (the domain's parser checks each type, as for a
``cob``: ``"valorPerc": 2`` is refused, not coerced). A body's members map onto
``pixcore.charges.cobv``' fields in :mod:`pixinfra.due_terms`, which also writes and reads the same
JSON form in the ``charges.terms`` column.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar.openapi.spec import OpenAPIType

from pixcore.charges.cob import ABSENT
from pixcore.charges.cobv import DEFAULT_DAYS_AFTER_DUE
from pixcore.charges.cobv_requests import DueCalendarChange, DueValueChange
from pixcore.money import AMOUNT_STRING_PATTERN
from pixinfra.due_terms import discount_fields, given, rate_fields
from pixweb.api.fields import MAX_AMOUNT_TEXT, doc, raw

__all__ = [
    "CalendarioVIn",
    "DescontoIn",
    "RateIn",
    "ValorVIn",
    "calendar_change",
    "value_change",
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


def calendar_change(calendar: CalendarioVIn | None) -> DueCalendarChange | None:
    """``calendario`` of a ``PATCH``: each member left out keeps the charge's."""
    if calendar is None:
        return None
    return DueCalendarChange(given(calendar.data_de_vencimento), given(calendar.validade_apos_vencimento))


def value_change(value: ValorVIn | None) -> DueValueChange | None:
    """``valor`` of a ``PATCH``: each member left out (or ``null``) keeps the charge's."""
    if value is None:
        return None

    def kept(part: Any, fields: Any) -> Any:
        return ABSENT if part is None else fields

    return DueValueChange(
        given(value.original),
        kept(value.multa, rate_fields(value.multa)),
        kept(value.juros, rate_fields(value.juros)),
        kept(value.abatimento, rate_fields(value.abatimento)),
        kept(value.desconto, discount_fields(value.desconto)),
    )
