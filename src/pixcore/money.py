"""Money: integer centavos inside, two wire forms at the edge.

Inside the service an amount is a plain ``int`` of centavos. The wire carries
amounts either as a string matching ``^[0-9]{1,10}\\.[0-9]{2}$`` (ASCII digits
only) or as a JSON number with at most 2 decimals. Parsing either form gives
centavos; formatting gives the string form or an exact ``Decimal`` that the web
layer emits as a JSON number. No float arithmetic happens on a money path: the
web layer reads a JSON number as the exact ``Decimal`` of its text (so
``1.99999999999999999999`` is refused, not rounded to 2.00); a float handed in
by other callers is read through its shortest round-trip text (``repr``).

Every amount with at most 10 integer digits (``0 <= cents <= MAX_CENTS``, 12
significant digits) survives the trip ``float(format_amount_string(c))``
exactly: doubles hold any decimal of up to 15 significant digits, so
``parse_amount_number`` accepts the whole range given as floats.
"""

from __future__ import annotations

import re
from decimal import Decimal

from pixcore.errors import InvalidAmount

__all__ = [
    "AMOUNT_STRING_PATTERN",
    "MAX_CENTS",
    "cents_to_decimal",
    "format_amount_string",
    "parse_amount_number",
    "parse_amount_string",
    "require_positive",
]

MAX_CENTS = 999_999_999_999
"""The largest amount: ``9999999999.99`` (10 integer digits)."""

AMOUNT_STRING_PATTERN = r"[0-9]{1,10}\.[0-9]{2}"
"""The string wire form of an amount (matched whole), ``"1234.50"``."""
_AMOUNT_STRING = re.compile(AMOUNT_STRING_PATTERN)


def parse_amount_string(text: str) -> int:
    """Centavos from the string wire form ``"1234.50"``; zero is accepted.

    Exactly 1 to 10 ASCII digits, a dot, 2 ASCII digits: no sign, no spaces,
    no thousands separators, no trailing newline.
    """
    if not isinstance(text, str) or _AMOUNT_STRING.fullmatch(text) is None:
        raise InvalidAmount(details=["amount must match ^[0-9]{1,10}\\.[0-9]{2}$"])
    return int(text.replace(".", "", 1))


def parse_amount_number(value: object) -> int:
    """Centavos from the JSON-number wire form: an ``int``, ``Decimal`` or ``float``.

    The value must be finite, non-negative, at most :data:`MAX_CENTS` centavos
    and carry at most 2 decimals *by value* (``Decimal("10.100")`` is 1010
    centavos, as the float ``10.1`` is). A float counts only when its shortest
    round-trip text has at most 2 decimals: ``10.1`` is 1010, ``10.123`` and
    ``1e-7`` are refused. Negative zero is zero. ``bool`` is not a number here.
    """
    if isinstance(value, bool):
        raise InvalidAmount(details=["amount must be a number"])
    if isinstance(value, int):
        if value < 0:
            raise InvalidAmount(details=["amount must not be negative"])
        if value > MAX_CENTS // 100:
            raise InvalidAmount(details=["amount out of range"])
        return value * 100
    if isinstance(value, float):
        number = Decimal(repr(value))  # the shortest text that reads back as this float
        if number.is_finite() and float(number) != value:
            raise InvalidAmount(details=["amount must have at most 2 decimals"])
        return _decimal_to_cents(number)
    if isinstance(value, Decimal):
        return _decimal_to_cents(value)
    raise InvalidAmount(details=["amount must be a number"])


def _decimal_to_cents(number: Decimal) -> int:
    """Exact centavos of a ``Decimal``, from its digits only: no context, no rounding, and no
    integer built from more than 12 digits (a body may hold a number of thousands of digits)."""
    sign, digits, exponent = number.as_tuple()
    if not isinstance(exponent, int):  # NaN, sNaN, Infinity
        raise InvalidAmount(details=["amount must be finite"])
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return 0  # zero, whatever its sign or exponent
    if sign:
        raise InvalidAmount(details=["amount must not be negative"])
    significant = text.rstrip("0")
    exponent += len(text) - len(significant)  # 10.100 is 101E-1: trailing zeros change nothing
    if exponent < -2:  # its last non-zero digit is below a centavo
        raise InvalidAmount(details=["amount must have at most 2 decimals"])
    if len(significant) + exponent + 2 > len(str(MAX_CENTS)):  # 10**12 centavos or more
        raise InvalidAmount(details=["amount out of range"])
    multiplier: int = 10 ** (exponent + 2)
    cents = int(significant) * multiplier
    if cents > MAX_CENTS:
        raise InvalidAmount(details=["amount out of range"])
    return cents


def require_positive(cents: int) -> int:
    """Return ``cents`` if it is above zero; raise :class:`InvalidAmount` otherwise."""
    if cents <= 0:
        raise InvalidAmount(details=["amount must be greater than zero"])
    return cents


def format_amount_string(cents: int) -> str:
    """The string wire form: ``123450`` -> ``"1234.50"``.

    Negative amounts have no string form (``ValueError``). Amounts above
    :data:`MAX_CENTS` are formatted all the same (a balance may grow past it)
    but no longer match the 10-digit wire pattern.
    """
    if cents < 0:
        raise ValueError("amounts in the string form are never negative")
    reais, centavos = divmod(cents, 100)
    return f"{reais}.{centavos:02d}"


def cents_to_decimal(cents: int) -> Decimal:
    """An exact ``Decimal`` with 2 decimal places: ``123450`` -> ``Decimal("1234.50")``.

    Built from text, so no context precision or rounding applies.
    """
    return Decimal(f"{cents}E-2")
