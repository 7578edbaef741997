"""A ``cobv``'s terms as the API's JSON (``calendario`` and ``valor``) onto ``pixcore.charges.cobv``'
fields and back, and as the ``charges.terms`` column keeps them.

The API's bodies carry the wire form (``pixweb.charges.schemas`` decode each body with Structs that
also document it, then map them here). The mapping takes any object with the members' names
(:class:`CalendarForm`, :class:`ValueForm`): a leaf is taken as decoded, and the domain's parser
checks each type; :func:`terms_wire` writes the terms back in that form. The column keeps the
domain's own form instead (:func:`terms_text`, read back by the charges' adapter with
:func:`stored_terms`): the fields of :class:`pixcore.charges.terms.DueTerms` under their own names.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from pixcore.charges.cob import ABSENT
from pixcore.charges.cobv import (
    DiscountDateFields,
    DiscountFields,
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    RateFields,
)
from pixcore.money import format_amount_string

__all__ = [
    "CalendarForm",
    "DiscountForm",
    "RateForm",
    "ValueForm",
    "calendar_fields",
    "discount_fields",
    "given",
    "rate_fields",
    "stored_terms",
    "terms_text",
    "terms_wire",
    "value_fields",
]


class CalendarForm(Protocol):
    @property
    def data_de_vencimento(self) -> Any: ...
    @property
    def validade_apos_vencimento(self) -> Any: ...


class RateForm(Protocol):
    @property
    def modalidade(self) -> Any: ...
    @property
    def valor_perc(self) -> Any: ...


class DiscountDateForm(Protocol):
    @property
    def data(self) -> Any: ...
    @property
    def valor_perc(self) -> Any: ...


class DiscountForm(Protocol):
    @property
    def modalidade(self) -> Any: ...
    @property
    def valor_perc(self) -> Any: ...
    @property
    def desconto_data_fixa(self) -> Any: ...


class ValueForm(Protocol):
    @property
    def original(self) -> Any: ...
    @property
    def multa(self) -> RateForm | None: ...
    @property
    def juros(self) -> RateForm | None: ...
    @property
    def abatimento(self) -> RateForm | None: ...
    @property
    def desconto(self) -> DiscountForm | None: ...


def _leaf(value: Any) -> object:
    """A leaf without a default: left out reads as ``None``."""
    return None if value is msgspec.UNSET else value


def given(value: Any) -> object:
    """A leaf of a change, or with a default: left out is ``ABSENT``."""
    return ABSENT if value is msgspec.UNSET else value


def rate_fields(rate: RateForm | None) -> RateFields | None:
    return None if rate is None else RateFields(_leaf(rate.modalidade), _leaf(rate.valor_perc))


def discount_fields(discount: DiscountForm | None) -> DiscountFields | None:
    if discount is None:
        return None
    dates: list[DiscountDateForm] | None = discount.desconto_data_fixa
    return DiscountFields(
        _leaf(discount.modalidade),
        _leaf(discount.valor_perc),
        None
        if dates is None
        else tuple(DiscountDateFields(_leaf(d.data), _leaf(d.valor_perc)) for d in dates),
    )


def calendar_fields(calendar: CalendarForm | None) -> DueCalendarFields | None:
    if calendar is None:
        return None
    return DueCalendarFields(_leaf(calendar.data_de_vencimento), given(calendar.validade_apos_vencimento))


def value_fields(value: ValueForm | None) -> DueValueFields | None:
    if value is None:
        return None
    return DueValueFields(
        _leaf(value.original),
        rate_fields(value.multa),
        rate_fields(value.juros),
        rate_fields(value.abatimento),
        discount_fields(value.desconto),
    )


def stored_terms(stored: str) -> DueTerms:
    """The terms a charge keeps (the ``terms`` column's JSON text, :func:`terms_text`'s form)."""
    return _STORED.decode(stored)


def terms_text(terms: DueTerms) -> str:
    """The terms as the ``terms`` column keeps them: the domain's own fields under their own names,
    amounts and percentages as integers, dates as ``YYYY-MM-DD``
    (``{"original": 12345, "due_date": "2026-12-10", "days_after_due": 30, "fine": {"modality": 2,
    "value": 200}, "interest": null, "rebate": null, "discount": null}``)."""
    return _STORED_ENCODER.encode(terms).decode()


_STORED = msgspec.json.Decoder(DueTerms)
_STORED_ENCODER = msgspec.json.Encoder()


def terms_wire(terms: DueTerms) -> tuple[dict[str, Any], dict[str, Any]]:
    """``calendario`` (without ``criacao``) and ``valor`` of ``terms`` as the standard writes them."""
    calendar: dict[str, Any] = {
        "dataDeVencimento": terms.due_date.isoformat(),
        "validadeAposVencimento": terms.days_after_due,
    }
    value: dict[str, Any] = {"original": format_amount_string(terms.original)}
    if terms.fine is not None:
        value["multa"] = _rate_wire(terms.fine.modality, terms.fine.value)
    if terms.interest is not None:
        value["juros"] = _rate_wire(terms.interest.modality, terms.interest.value)
    if terms.rebate is not None:
        value["abatimento"] = _rate_wire(terms.rebate.modality, terms.rebate.value)
    if terms.discount is not None:
        discount: dict[str, Any] = {"modalidade": int(terms.discount.modality)}
        if terms.discount.modality.fixed_dates:
            discount["descontoDataFixa"] = [
                {"data": item.until.isoformat(), "valorPerc": format_amount_string(item.value)}
                for item in terms.discount.dates
            ]
        else:
            discount["valorPerc"] = format_amount_string(terms.discount.value)
        value["desconto"] = discount
    return calendar, value


def _rate_wire(modality: int, value: int) -> dict[str, Any]:
    return {"modalidade": int(modality), "valorPerc": format_amount_string(value)}
