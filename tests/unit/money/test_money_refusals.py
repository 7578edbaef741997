"""What an amount's refusal says (its ``details`` reach the client in the 400), and Decimal
amounts written with more than two places that are still whole centavos.

Found by ``make mutate`` (docs/testing.md): the fast suites checked that bad amounts are
refused, not why; and ``Decimal("1.0000")`` (four places, one real) was never parsed.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from pixcore.errors import InvalidAmount
from pixcore.money import parse_amount_number, parse_amount_string

PATTERN = "amount must match ^[0-9]{1,10}\\.[0-9]{2}$"


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        (True, "amount must be a number"),
        ("10.00", "amount must be a number"),
        (-1, "amount must not be negative"),
        (10_000_000_000, "amount out of range"),
        (10.123, "amount must have at most 2 decimals"),
        (Decimal("NaN"), "amount must be finite"),
        (Decimal("-0.01"), "amount must not be negative"),
        (Decimal("1E+11"), "amount out of range"),
        (Decimal("1E+20"), "amount out of range"),
        (Decimal("0.001"), "amount must have at most 2 decimals"),
        (Decimal("0.0001"), "amount must have at most 2 decimals"),
        (Decimal("1.005"), "amount must have at most 2 decimals"),
        (Decimal("10000000000.00"), "amount out of range"),
    ],
)
def test_a_refused_number_says_why(value: object, detail: str) -> None:
    with pytest.raises(InvalidAmount) as refused:
        parse_amount_number(value)

    assert refused.value.details == [detail]


@pytest.mark.parametrize("text", ["1.5", "01.005", "-1.00", ""])
def test_a_refused_string_names_the_pattern(text: str) -> None:
    with pytest.raises(InvalidAmount) as refused:
        parse_amount_string(text)

    assert refused.value.details == [PATTERN]


@pytest.mark.parametrize(
    ("number", "cents"),
    [
        (Decimal("1.0000"), 100),
        (Decimal("10.1000"), 1010),
        (Decimal("0.0100"), 1),
        (Decimal("123.45000"), 12345),
        (Decimal("7.000000"), 700),
    ],
)
def test_trailing_zeros_past_the_centavos_change_nothing(number: Decimal, cents: int) -> None:
    assert parse_amount_number(number) == cents
