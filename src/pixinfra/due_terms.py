"""A ``cobv``'s terms as the API's JSON (``calendario`` and ``valor``) onto ``pixcore.charges.cobv``'
fields and back, and as the ``charges.terms`` column keeps them.

The API's bodies carry the wire form (``pixweb.charges.schemas`` decode each body with Structs that
also document it, then map them here). The mapping takes any object with the members' names
(:class:`CalendarForm`, :class:`ValueForm`), their leaves as decoded (the structs take any JSON
value there, so that a wrong type is the rule's own message): each leaf's type is judged here
(:func:`text`, :func:`whole`: another type is ``INVALID``) and the domain's parser gets typed
values; :func:`terms_wire` writes the terms back in that form. The column keeps the
domain's own form instead (:func:`terms_text`, read back by the charges' adapter with
:func:`stored_terms`): the fields of :class:`pixcore.charges.terms.DueTerms` under their own names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from pixcore.charges.cob import ABSENT
from pixcore.charges.cobv import (
    DiscountDateFields,
    DiscountFields,
    DueAmount,
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    RateFields,
)
from pixcore.charges.parts import Text, Whole
from pixcore.money import format_amount_string
from pixcore.validation import INVALID, Absent, Invalid

__all__ = [
    "CalendarForm",
    "DiscountForm",
    "RateForm",
    "ValueForm",
    "calendar_fields",
    "discount_fields",
    "given",
    "parts_text",
    "rate_fields",
    "stored_parts",
    "stored_terms",
    "terms_text",
    "terms_wire",
    "text",
    "value_fields",
    "whole",
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


def text(value: Any) -> Text:
    """A text leaf as decoded: null or left out is None, any other type ``INVALID``."""
    if value is None or value is msgspec.UNSET:
        return None
    return value if isinstance(value, str) else INVALID


def whole(value: Any) -> Whole:
    """An integer leaf as decoded (``true`` is no integer): null or left out is None, any other
    type ``INVALID``."""
    if value is None or value is msgspec.UNSET:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else INVALID


def given(value: Any, leaf: Callable[[Any], Any] = text) -> Any:
    """A leaf of a change, or with a default, by ``leaf``'s type: left out is ``ABSENT``."""
    return ABSENT if value is msgspec.UNSET else leaf(value)


def whole_or_absent(value: Any) -> int | Absent | Invalid:
    """An integer leaf with a default: left out is ``ABSENT``, null or another type ``INVALID``."""
    if value is msgspec.UNSET:
        return ABSENT
    judged = whole(value)
    return INVALID if judged is None else judged


def rate_fields(rate: RateForm | None) -> RateFields | None:
    return None if rate is None else RateFields(whole(rate.modalidade), text(rate.valor_perc))


def discount_fields(discount: DiscountForm | None) -> DiscountFields | None:
    if discount is None:
        return None
    dates: list[DiscountDateForm] | None = discount.desconto_data_fixa
    return DiscountFields(
        whole(discount.modalidade),
        text(discount.valor_perc),
        None if dates is None else tuple(DiscountDateFields(text(d.data), text(d.valor_perc)) for d in dates),
    )


def calendar_fields(calendar: CalendarForm | None) -> DueCalendarFields | None:
    if calendar is None:
        return None
    return DueCalendarFields(
        text(calendar.data_de_vencimento), whole_or_absent(calendar.validade_apos_vencimento)
    )


def value_fields(value: ValueForm | None) -> DueValueFields | None:
    if value is None:
        return None
    return DueValueFields(
        text(value.original),
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


def stored_parts(stored: str) -> DueAmount:
    """The parts of a ``cobv``'s payment as the charge keeps them (:func:`parts_text`'s form)."""
    return _STORED_PARTS.decode(stored)


def parts_text(parts: DueAmount) -> str:
    """The parts of the amount a ``cobv`` was paid, as the ``charges.paid_parts`` column keeps
    them: centavos under the domain's names (``{"original": 10000, "rebate": 0, "discount": 0,
    "fine": 300, "interest": 200}``)."""
    return _STORED_ENCODER.encode(parts).decode()


_STORED_PARTS = msgspec.json.Decoder(DueAmount)


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
