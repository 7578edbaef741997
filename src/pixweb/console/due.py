"""A due-date charge (``cobv``) on its console page: the amount due today, its parts, and its
terms in words (``pixcore.charges.cobv.standing`` computes; this only writes it for a person, in
the page's language)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from babel.numbers import format_decimal

from pixcore.charges.cobv import (
    Discount,
    DueStanding,
    DueTerms,
    FineModality,
    InterestModality,
    RebateModality,
    standing,
)
from pixweb.console.language import Language, noop

__all__ = ["DueView", "due_view"]

_MINUS = "\N{MINUS SIGN}"


@dataclass(frozen=True, slots=True)
class DueView:
    """What the page shows of a ``cobv``: each a ``(label, text)`` line in the page's language."""

    standing: DueStanding
    today: str
    """The amount due today, written (or why it can no longer be paid)."""
    parts: tuple[tuple[str, str], ...]
    """The amount's parts that are not zero: the original, and what takes or adds."""
    terms: tuple[tuple[str, str], ...]
    """The fine, interest, rebate and discount as agreed."""


def due_view(terms: DueTerms, now: datetime, language: Language) -> DueView:
    """``terms`` at ``now`` (the payer's day, Brasília's) for the page in ``language``."""
    state = standing(terms, now)
    if state.due is None:
        today = language.gettext(
            "No longer payable: the last day was %(day)s.", day=language.day(state.last_payable_day)
        )
        parts: tuple[tuple[str, str], ...] = ()
    else:
        due = state.due
        today = language.money(due.final)
        rows = [
            (noop("Original value"), due.original, ""),
            (noop("Rebate"), due.rebate, _MINUS),
            (noop("Discount"), due.discount, _MINUS),
            (noop("Fine"), due.fine, "+"),
            (noop("Interest"), due.interest, "+"),
        ]
        parts = tuple(
            (language.gettext(label), sign + language.money(cents)) for label, cents, sign in rows if cents
        )
    return DueView(state, today, parts, _terms(terms, language))


def _percent(hundredths: int, language: Language) -> str:
    """``250`` hundredths of a percent as ``2,50%`` (``2.50%``)."""
    return format_decimal(Decimal(hundredths) / 100, format="#,##0.00", locale=language.code) + "%"


def _terms(terms: DueTerms, language: Language) -> tuple[tuple[str, str], ...]:
    lines: list[tuple[str, str]] = []
    if terms.fine is not None:
        fine = terms.fine
        amount = (
            language.money(fine.value)
            if fine.modality is FineModality.FIXED
            else language.gettext("%(rate)s of the value", rate=_percent(fine.value, language))
        )
        lines.append(
            (
                language.gettext("Fine"),
                language.gettext("%(amount)s, once, after the due date", amount=amount),
            )
        )
    if terms.interest is not None:
        lines.append(
            (language.gettext("Interest"), _interest(terms.interest.modality, terms.interest.value, language))
        )
    if terms.rebate is not None:
        rebate = terms.rebate
        amount = (
            language.money(rebate.value)
            if rebate.modality is RebateModality.FIXED
            else language.gettext("%(rate)s of the value", rate=_percent(rebate.value, language))
        )
        lines.append((language.gettext("Rebate"), amount))
    if terms.discount is not None:
        lines.append((language.gettext("Discount"), _discount(terms.discount, language)))
    return tuple(lines)


_INTEREST = {
    InterestModality.VALUE_CALENDAR_DAYS: noop("%(amount)s per calendar day late"),
    InterestModality.PERCENT_PER_DAY_CALENDAR_DAYS: noop("%(amount)s per calendar day late"),
    InterestModality.PERCENT_PER_MONTH_CALENDAR_DAYS: noop("%(amount)s a month, counted in calendar days"),
    InterestModality.PERCENT_PER_YEAR_CALENDAR_DAYS: noop("%(amount)s a year, counted in calendar days"),
    InterestModality.VALUE_BUSINESS_DAYS: noop("%(amount)s per business day late"),
    InterestModality.PERCENT_PER_DAY_BUSINESS_DAYS: noop("%(amount)s per business day late"),
    InterestModality.PERCENT_PER_MONTH_BUSINESS_DAYS: noop("%(amount)s a month, counted in business days"),
    InterestModality.PERCENT_PER_YEAR_BUSINESS_DAYS: noop("%(amount)s a year, counted in business days"),
}


def _interest(modality: InterestModality, value: int, language: Language) -> str:
    percent = modality.days_per_period is not None
    amount = _percent(value, language) if percent else language.money(value)
    return language.gettext(_INTEREST[modality], amount=amount)


def _discount(discount: Discount, language: Language) -> str:

    def amount(value: int) -> str:
        return _percent(value, language) if discount.modality.percent else language.money(value)

    if discount.modality.fixed_dates:
        return "; ".join(
            language.gettext(
                "%(amount)s until %(day)s", amount=amount(each.value), day=language.day(each.until)
            )
            for each in discount.dates
        )
    if discount.modality.business_days:
        return language.gettext("%(amount)s per business day paid early", amount=amount(discount.value))
    return language.gettext("%(amount)s per calendar day paid early", amount=amount(discount.value))
