"""Money parsing and formatting: centavos inside, strings and JSON numbers at the edge."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pixcore.errors import InvalidAmount
from pixcore.money import (
    MAX_CENTS,
    cents_to_decimal,
    format_amount_string,
    parse_amount_number,
    parse_amount_string,
    require_positive,
)
from tests.strategies import cents

WIRE_PATTERN = re.compile(r"[0-9]{1,10}\.[0-9]{2}")
NON_ASCII_DIGITS = st.characters(categories=["Nd"]).filter(lambda c: not c.isascii())


# -- the string form --------------------------------------------------------


@given(cents())
@example(0).via("zero")
@example(MAX_CENTS).via("the largest amount")
def test_string_round_trip(value: int) -> None:
    text = format_amount_string(value)
    assert WIRE_PATTERN.fullmatch(text)
    assert parse_amount_string(text) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.00", 0), ("0.01", 1), ("1234.50", 123450), ("0001.00", 100), ("9999999999.99", MAX_CENTS)],
)
def test_parse_amount_string_examples(text: str, expected: int) -> None:
    assert parse_amount_string(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",
        "1.",
        ".50",
        "1.5",
        "1.500",
        "10000000000.00",  # 11 integer digits
        "-1.00",
        "+1.00",
        " 1.00",
        "1.00 ",
        "1.00\n",  # a $-anchored regex would accept this
        "1,00",
        "1,000.00",
        "1_000.00",
        "1e2",
        "\uff11.\uff10\uff10",  # full-width digits
        "\u0661.\u0660\u0660",  # Arabic-Indic digits
        "nan",
    ],
)
def test_parse_amount_string_rejects(text: str) -> None:
    with pytest.raises(InvalidAmount):
        parse_amount_string(text)


@given(cents(), st.integers(min_value=0, max_value=9))
def test_string_with_three_decimals_is_rejected(value: int, digit: int) -> None:
    with pytest.raises(InvalidAmount):
        parse_amount_string(f"{format_amount_string(value)}{digit}")


@given(cents(), st.sampled_from(["-", "+", " ", "\t", "\n", ",", "_", "R$"]), st.booleans())
def test_string_with_sign_space_or_separator_is_rejected(value: int, extra: str, in_front: bool) -> None:
    text = format_amount_string(value)
    with pytest.raises(InvalidAmount):
        parse_amount_string(extra + text if in_front else text + extra)


@given(cents(), st.data())
def test_string_with_a_comma_or_space_inside_is_rejected(value: int, data: st.DataObject) -> None:
    text = format_amount_string(value)
    position = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
    separator = data.draw(st.sampled_from([",", " ", "."]))
    with pytest.raises(InvalidAmount):
        parse_amount_string(text[:position] + separator + text[position:])


@given(cents(), st.data())
def test_string_with_a_non_ascii_digit_is_rejected(value: int, data: st.DataObject) -> None:
    text = format_amount_string(value)
    position = data.draw(st.sampled_from([i for i, c in enumerate(text) if c != "."]))
    digit = data.draw(NON_ASCII_DIGITS)
    with pytest.raises(InvalidAmount):
        parse_amount_string(text[:position] + digit + text[position + 1 :])


def test_format_amount_string_refuses_negative() -> None:
    with pytest.raises(ValueError, match="negative"):
        format_amount_string(-1)


def test_format_amount_string_pads_centavos() -> None:
    assert format_amount_string(5) == "0.05"
    assert format_amount_string(100) == "1.00"


# -- the number form -----------------------------------------------------------


@given(cents())
def test_decimal_round_trip(value: int) -> None:
    number = cents_to_decimal(value)
    assert number.as_tuple().exponent == -2
    assert str(number) == format_amount_string(value)
    assert parse_amount_number(number) == value


@given(cents())
@example(MAX_CENTS).via("the largest amount")
@example(MAX_CENTS - 1).via("just below the largest amount")
@example(1).via("one centavo")
def test_float_of_every_wire_amount_is_exact(value: int) -> None:
    # What a JSON decoder gives for the number 1234.50: every amount up to MAX_CENTS
    # has at most 12 significant digits, fewer than the 15 a double always keeps.
    assert parse_amount_number(float(format_amount_string(value))) == value


@given(st.integers(min_value=0, max_value=MAX_CENTS // 100))
def test_int_is_whole_reais(reais: int) -> None:
    assert parse_amount_number(reais) == reais * 100


@given(cents(), st.integers(min_value=1, max_value=9))
def test_float_with_three_decimals_is_rejected(value: int, digit: int) -> None:
    with pytest.raises(InvalidAmount):
        parse_amount_number(float(f"{format_amount_string(value)}{digit}"))


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_accepted_floats_are_exactly_their_centavos(number: float) -> None:
    try:
        value = parse_amount_number(number)
    except InvalidAmount:
        return
    assert 0 <= value <= MAX_CENTS
    assert float(format_amount_string(value)) == number


@given(st.decimals(allow_nan=True, allow_infinity=True))
def test_accepted_decimals_are_exactly_their_centavos(number: Decimal) -> None:
    try:
        value = parse_amount_number(number)
    except InvalidAmount:
        return
    assert 0 <= value <= MAX_CENTS
    assert cents_to_decimal(value) == number


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (0, 0),
        (10, 1000),
        (9_999_999_999, 999_999_999_900),
        (10.1, 1010),
        (0.01, 1),
        (0.0, 0),
        (-0.0, 0),
        (9999999999.99, MAX_CENTS),
        (Decimal("10.10"), 1010),
        (Decimal("10.100"), 1010),  # at most 2 decimals by value, as the float 10.1 is
        (Decimal("1E+2"), 10000),
        (Decimal("0E-10"), 0),
        (Decimal("-0.00"), 0),
    ],
)
def test_parse_amount_number_examples(number: object, expected: int) -> None:
    assert parse_amount_number(number) == expected


@pytest.mark.parametrize(
    "number",
    [
        True,
        False,
        None,
        "10.00",
        b"10.00",
        [1],
        10.123,
        10.001,
        1e-7,
        0.1 + 0.2,  # 0.30000000000000004: float arithmetic shows through, and is refused
        1e12,
        1e300,
        -0.01,
        -1,
        10_000_000_000,
        math.nan,
        math.inf,
        -math.inf,
        Decimal("NaN"),
        Decimal("sNaN"),
        Decimal("Infinity"),
        Decimal("-Infinity"),
        Decimal("-0.01"),
        Decimal("0.001"),
        Decimal("10000000000.00"),
        Decimal("1E+1000000"),
        Decimal("1E-1000000"),
        Decimal("1.00000000000000000000000000001"),  # more digits than the default context keeps
    ],
)
def test_parse_amount_number_rejects(number: object) -> None:
    with pytest.raises(InvalidAmount):
        parse_amount_number(number)


def test_cents_to_decimal_keeps_two_places() -> None:
    assert str(cents_to_decimal(123450)) == "1234.50"
    assert str(cents_to_decimal(0)) == "0.00"
    assert str(cents_to_decimal(10**40)) == "1" + "0" * 38 + ".00"  # no context rounding


# -- positivity --------------------------------------------------------------------


@given(cents(min_value=1))
def test_require_positive_accepts_positive(value: int) -> None:
    assert require_positive(value) == value


@given(st.integers(max_value=0))
def test_require_positive_rejects_zero_and_negative(value: int) -> None:
    with pytest.raises(InvalidAmount):
        require_positive(value)
