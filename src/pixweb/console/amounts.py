"""Amounts as people type them in the console's forms, read into integer centavos.

``42,90``, ``42.90``, ``1.234,56`` and ``1,234.56`` are all R$ 42,90 or R$ 1.234,56: Babel reads
the text strictly in the console's language first (so ``1.234`` is a thousand two hundred and
thirty-four reais in Portuguese, and ``1,234`` the same in English), then in the other one. Never a
float; more than two decimals, a sign, an exponent or anything but digits and separators is
refused with the field's own message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from babel.numbers import NumberFormatError, parse_decimal

from pixcore.money import cents_to_decimal, format_amount_string
from pixweb.console.language import LANGUAGES, noop

__all__ = ["TOO_PRECISE", "UNREADABLE", "TypedAmount", "UnreadableAmount", "read_amount"]

UNREADABLE = noop("Type an amount in reais, as 42.90 or 1,234.56.")
TOO_PRECISE = noop("At most two decimals (centavos), as 42.90.")
_SHAPE = re.compile(r"[0-9][0-9.,]{0,24}|[.,][0-9]{1,2}")  # digits and separators, nothing else
_CURRENCY = re.compile(r"^R\$\s*")


class UnreadableAmount(ValueError):
    """A typed amount that is no amount of money; ``message`` (a catalog text) says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _decimal(text: str, code: str) -> Decimal:
    """``text`` read strictly in ``code``'s number format, else in another language's."""
    for locale in (code, *(other for other in LANGUAGES if other != code)):
        try:
            return parse_decimal(text, locale=locale, strict=True)
        except NumberFormatError:
            continue
    raise UnreadableAmount(UNREADABLE)


def read_amount(text: str, code: str) -> int:
    """The centavos of ``text`` typed by a reader of language ``code`` (``"42,90"`` -> 4290)."""
    bare = _CURRENCY.sub("", text.strip())
    if not _SHAPE.fullmatch(bare):
        raise UnreadableAmount(UNREADABLE)
    number = _decimal(bare, code)
    cents = number * 100
    if cents != cents.to_integral_value():
        raise UnreadableAmount(TOO_PRECISE)
    return int(cents)


@dataclass(frozen=True, slots=True)
class TypedAmount:
    """A form's amount as typed, and what the console read in it: ``cents``, or ``problem`` (a
    catalog text for beside the field). An unreadable amount goes to the use case as a value its
    rules refuse, so the form's other fields are judged too, and nothing moves."""

    text: str
    cents: int | None = None
    problem: str | None = None

    @classmethod
    def read(cls, text: str, code: str) -> TypedAmount:
        """``text`` typed by a reader of language ``code``; empty stays empty, for the rules to
        say it is required."""
        if not text:
            return cls(text)
        try:
            return cls(text, cents=read_amount(text, code))
        except UnreadableAmount as unread:
            return cls(text, problem=unread.message)

    def number(self) -> Decimal | str:
        """For a use case that takes the API's JSON number: exact reais (never a float); a text
        (empty or unreadable) otherwise, which no number rule accepts."""
        return cents_to_decimal(self.cents) if self.cents is not None else self.text

    def string(self) -> str | None:
        """For a use case that takes the standard's text (``"1234.56"``); empty as typed; None
        (required, so refused) for an unreadable one."""
        if self.cents is not None:
            return format_amount_string(self.cents)
        return None if self.problem else self.text
