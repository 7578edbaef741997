"""Amounts sent as JSON numbers are read exactly: the request body decoder hands ``pixcore.money``
the digits the client sent (a ``Decimal``), never the float nearest them, so a number with more
than two decimals is refused whatever its binary value."""

from __future__ import annotations

import json
from decimal import MAX_EMAX, MIN_EMIN, Decimal, Inexact, Rounded, localcontext
from typing import Any

import msgspec
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pixcore.errors import InvalidAmount
from pixcore.money import MAX_CENTS, format_amount_string, parse_amount_number
from pixweb.wire import decode_body

DECIMALS = "amount must have at most 2 decimals"
RANGE = "amount out of range"


def _cents(text: str) -> int:
    """Centavos of a JSON number, as the API reads it: the body decoder, then the parser."""
    return parse_amount_number(decode_body(text.encode()))


def _refusal(text: str) -> list[str]:
    with pytest.raises(InvalidAmount) as caught:
        _cents(text)
    return list(caught.value.details)


@pytest.mark.parametrize(
    "text",
    [
        "1.99999999999999999999",  # the float nearest it is 2.0
        "0.009999999999999999999",  # the float nearest it is 0.01
        "10.0000000000000000001",  # the float nearest it is 10.0
        "0.0000000000000000000000001",
        "1.005",
        "1" + "0" * 5000 + "1E-5002",  # 5002 digits: more than Python turns into an int from text
        "0." + "0" * 9000 + "1",
        "1E-400",  # below the smallest float: 0.0 as a float
        "1.999e0",
    ],
)
def test_a_number_with_more_than_two_decimals_is_refused_whatever_its_float(text: str) -> None:
    assert _refusal(text) == [DECIMALS]


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("1e2", 10000),
        ("1.5E1", 1500),
        ("1E+2", 10000),
        ("1e-2", 1),
        ("15e-1", 150),
        ("10.100", 1010),  # at most 2 decimals by value: trailing zeros change nothing
        ("10.1" + "0" * 5000, 1010),
        ("0.10", 10),
        ("2", 200),
        ("9999999999.99", MAX_CENTS),
        ("9999999999.990000", MAX_CENTS),
        ("-0", 0),  # zero whatever its sign; a transfer then refuses it as zero
        ("-0.0", 0),
        ("0e-9", 0),
        ("-0E+400", 0),
    ],
)
def test_exact_forms_give_their_exact_centavos(text: str, cents: int) -> None:
    assert _cents(text) == cents


@pytest.mark.parametrize(
    "text",
    ["10000000000", "10000000000.00", "1e10", "9999999999.995e1", "1E+400", "1" + "0" * 5000 + ".5"],
)
def test_a_number_of_ten_billion_or_more_is_out_of_range(text: str) -> None:
    assert _refusal(text) == [RANGE]


@pytest.mark.parametrize("text", ["-1.5", "-0.001", "-1e2"])
def test_a_negative_number_is_refused(text: str) -> None:
    assert _refusal(text) == ["amount must not be negative"]


@pytest.mark.parametrize("text", ["01", "01.5", "00.1", "1.", ".5", "+1", "1e", "NaN", "Infinity", "0x10"])
def test_malformed_numbers_stay_malformed_json(text: str) -> None:
    with pytest.raises(msgspec.DecodeError):
        decode_body(text.encode())


def _floats_in(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for item in value.values() for f in _floats_in(item)]
    if isinstance(value, list):
        return [f for item in value for f in _floats_in(item)]
    return []


@given(st.recursive(st.floats(allow_nan=False, allow_infinity=False) | st.integers() | st.text(), st.lists))
def test_the_body_decoder_never_yields_a_float(value: Any) -> None:
    body = {"payment": {"amount": value}, "amount": [value, value]}
    assert _floats_in(decode_body(json.dumps(body).encode())) == []


@given(
    reais=st.integers(0, MAX_CENTS // 100),
    fraction=st.text("0123456789", min_size=2),
    last=st.sampled_from("123456789"),
    exponent=st.integers(-5, 5),
)
def test_any_decimal_text_with_more_than_two_decimals_is_refused(
    reais: int, fraction: str, last: str, exponent: int
) -> None:
    """A number whose last non-zero digit lies below the centavos, in plain or exponent form."""
    digits = f"{reais}{fraction}{last}"  # reais, then 3 or more decimals, the last one not zero
    point = len(str(reais)) + exponent  # where the point goes when the text carries E-exponent
    leading_zero = digits[0] == "0" and point > 1  # "05.1E-1": JSON forbids a leading zero
    text = (
        f"{digits[:point]}.{digits[point:]}E{-exponent}"
        if 0 < point < len(digits) and not leading_zero
        else f"{reais}.{fraction}{last}"
    )
    assert _refusal(text) == [DECIMALS]


@given(
    cents=st.integers(0, MAX_CENTS),
    zeros=st.integers(0, 30),
    form=st.sampled_from(["plain", "exponent", "reais"]),
)
@example(cents=0, zeros=1, form="exponent")
def test_any_decimal_text_with_at_most_two_decimals_is_its_exact_centavos(
    cents: int, zeros: int, form: str
) -> None:
    if form == "plain":
        text = format_amount_string(cents) + "0" * zeros  # "1234.50", "1234.50000"
    elif form == "exponent":
        # "123450E-2", "1234500E-3"; zero is "0E-3" (JSON allows no leading zero: "00E-3" is malformed)
        text = f"{cents}{'0' * zeros}E-{2 + zeros}" if cents else f"0E-{2 + zeros}"
    else:
        reais, centavos = divmod(cents, 100)
        text = f"{reais}.{centavos:02d}".rstrip("0").rstrip(".") or "0"  # "1234.5", "1234"
    assert _cents(text) == cents


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_a_json_number_is_refused_or_exactly_its_value_in_centavos(number: Decimal) -> None:
    """The oracle is exact decimal arithmetic on the text sent, wide enough never to round."""
    text = str(number)
    with localcontext() as context:
        context.prec, context.Emax, context.Emin = 10_000, MAX_EMAX, MIN_EMIN
        context.traps[Inexact] = context.traps[Rounded] = True
        scaled = Decimal(text) * 100
    if scaled == scaled.to_integral_value() and 0 <= scaled <= MAX_CENTS:
        assert Decimal(_cents(text)) == scaled
    else:
        with pytest.raises(InvalidAmount):
            _cents(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("618.0", 618), ("1e2", 100), ("-5.00", -5), ("9999999999999999999.0", 9999999999999999999)],
)
def test_a_whole_number_written_with_a_fraction_or_exponent_is_an_int(text: str, value: int) -> None:
    """An integer field takes ``618.0`` as it took the float it once was."""
    decoded = decode_body(text.encode())
    assert type(decoded) is int
    assert decoded == value


@pytest.mark.parametrize("text", ["1e19", "1.5", "1e400"])
def test_a_fraction_or_a_huge_number_stays_an_exact_decimal(text: str) -> None:
    decoded = decode_body(text.encode())
    assert isinstance(decoded, Decimal)
    assert decoded == Decimal(text)
