"""CPF and CNPJ: check digits, the alphanumeric CNPJ, masking.

What a single substitution can slip past (derived here, asserted below). A check
digit is ``0`` for a weighted-sum remainder of 0 *or* 1 modulo 11 and otherwise
``11 - remainder``, so two things let a changed character keep both check digits:

* the change times the weight is a multiple of 11. CPF weights are 2..11 and digit
  changes are at most 9, so only the weight 11 (position 0, second check digit)
  does it. CNPJ weights are 2..9 but alphanumeric values differ by up to 42, so
  any change by 11, 22 or 33 (``'6'`` <-> ``'A'``, ``'A'`` <-> ``'L'``...) is
  invisible to both check digits;
* the remainder moves between 0 and 1. For both check digits at once this needs
  the two weights of the position to be congruent up to sign modulo 11: CPF
  positions 0 and 5, CNPJ positions 0, 4 and 8.

A change to a check digit itself is always detected.
"""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.documents import (
    Document,
    DocumentKind,
    cnpj_check_digits,
    cpf_check_digits,
    is_valid_cnpj,
    is_valid_cpf,
    mask_document,
    parse_document,
)
from pixcore.errors import InvalidDocument
from tests.strategies import CNPJ_BODY_ALPHABET, valid_cnpjs, valid_cpfs

CPF_WEIGHTS_1 = (10, 9, 8, 7, 6, 5, 4, 3, 2)
CPF_WEIGHTS_2 = (11, 10, 9, 8, 7, 6, 5, 4, 3, 2)
CNPJ_WEIGHTS_1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
CNPJ_WEIGHTS_2 = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


def _value(char: str) -> int:
    return ord(char) - ord("0")


def _remainder(text: str, weights: tuple[int, ...]) -> int:
    return sum(_value(c) * w for c, w in zip(text, weights, strict=False)) % 11


def _oracle_digit(text: str, weights: tuple[int, ...]) -> str:
    # The classic formulation, written independently of the module's.
    return str(sum(_value(c) * w for c, w in zip(text, weights, strict=False)) * 10 % 11 % 10)


def _substitute(text: str, position: int, char: str) -> str:
    return text[:position] + char + text[position + 1 :]


# -- known documents -------------------------------------------------------------


@pytest.mark.parametrize("cpf", ["52998224725", "12345678909", "11144477735"])
def test_known_cpfs_are_valid(cpf: str) -> None:
    assert is_valid_cpf(cpf)
    assert parse_document(cpf) == Document(DocumentKind.CPF, cpf)


@pytest.mark.parametrize("cnpj", ["11222333000181", "00000000000191", "12345678000195", "12ABC34501DE35"])
def test_known_cnpjs_are_valid(cnpj: str) -> None:
    assert is_valid_cnpj(cnpj)
    assert parse_document(cnpj) == Document(DocumentKind.CNPJ, cnpj)


def test_official_alphanumeric_example_by_hand() -> None:
    # 12ABC34501DE: values 1 2 17 18 19 3 4 5 0 1 20 21
    # first:  5+8+51+36+171+24+28+30+0+4+60+42 = 459, 459 % 11 = 8, 11 - 8 = 3
    # second: 6+10+68+54+38+27+32+35+0+5+80+63 + 3*2 = 424, 424 % 11 = 6, 11 - 6 = 5
    assert cnpj_check_digits("12ABC34501DE") == "35"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "52998224726",  # wrong second check digit
        "52998224735",  # wrong first check digit
        "529.982.247-25",
        "5299822472",
        "529982247250",
        "11.222.333/0001-81",
        "11222333000182",
        "12abc34501de35",  # lower case is refused, not upper-cased
        "12ABC34501DE3A",  # check digits are digits
        "12ABC34501DE36",
        " 52998224725",
        "52998224725\n",
        "\uff15\uff12\uff19\uff19\uff18\uff12\uff12\uff14\uff17\uff12\uff15",  # full-width digits
        "00000000000000",
        "AAAAAAAAAAAA00",
    ],
)
def test_invalid_documents_are_rejected(text: str) -> None:
    assert not is_valid_cpf(text)
    assert not is_valid_cnpj(text)
    with pytest.raises(InvalidDocument):
        parse_document(text)


@pytest.mark.parametrize("digit", string.digits)
def test_all_equal_digits_are_rejected_although_their_check_digits_fit(digit: str) -> None:
    cpf = digit * 11
    assert cpf_check_digits(cpf[:9]) == cpf[9:]
    assert not is_valid_cpf(cpf)
    assert not is_valid_cnpj(digit * 14)


def test_all_zero_cnpj_is_rejected_although_its_check_digits_fit() -> None:
    assert cnpj_check_digits("0" * 12) == "00"
    assert not is_valid_cnpj("0" * 14)


@pytest.mark.parametrize(
    "body",
    ["", "12345678", "1234567890", "12345678a", "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"],
)
def test_cpf_check_digits_needs_nine_ascii_digits(body: str) -> None:
    with pytest.raises(ValueError, match="9 ASCII digits"):
        cpf_check_digits(body)


@pytest.mark.parametrize("body", ["", "12ABC34501D", "12ABC34501DEF", "12abc34501de", "12ABC-4501DE"])
def test_cnpj_check_digits_needs_twelve_characters(body: str) -> None:
    with pytest.raises(ValueError, match="12 characters"):
        cnpj_check_digits(body)


# -- generated documents -------------------------------------------------------------


@given(st.text(alphabet=string.digits, min_size=9, max_size=9))
def test_cpf_check_digits_match_an_independent_formula(body: str) -> None:
    first = _oracle_digit(body, CPF_WEIGHTS_1)
    assert cpf_check_digits(body) == first + _oracle_digit(body + first, CPF_WEIGHTS_2)


@given(st.text(alphabet=CNPJ_BODY_ALPHABET, min_size=12, max_size=12))
def test_cnpj_check_digits_match_an_independent_formula(body: str) -> None:
    first = _oracle_digit(body, CNPJ_WEIGHTS_1)
    assert cnpj_check_digits(body) == first + _oracle_digit(body + first, CNPJ_WEIGHTS_2)


@given(valid_cpfs())
def test_generated_cpfs_are_valid(cpf: str) -> None:
    assert is_valid_cpf(cpf)
    assert not is_valid_cnpj(cpf)
    assert parse_document(cpf).kind is DocumentKind.CPF


@given(valid_cnpjs())
def test_generated_cnpjs_are_valid(cnpj: str) -> None:
    assert is_valid_cnpj(cnpj)
    assert not is_valid_cpf(cnpj)
    assert parse_document(cnpj) == Document(DocumentKind.CNPJ, cnpj)


@given(valid_cnpjs(alphanumeric=True))
def test_lower_case_cnpjs_are_rejected(cnpj: str) -> None:
    lowered = cnpj.lower()
    if lowered != cnpj:
        assert not is_valid_cnpj(lowered)


# -- single substitutions ----------------------------------------------------------------


@given(valid_cpfs(), st.sampled_from([9, 10]), st.sampled_from(string.digits))
def test_cpf_check_digit_substitution_is_always_detected(cpf: str, position: int, char: str) -> None:
    if char != cpf[position]:
        assert not is_valid_cpf(_substitute(cpf, position, char))


@given(valid_cpfs(), st.integers(min_value=0, max_value=8), st.sampled_from(string.digits))
def test_cpf_body_substitution_slips_through_only_as_derived(cpf: str, position: int, char: str) -> None:
    if char == cpf[position]:
        return
    mutated = _substitute(cpf, position, char)
    if is_valid_cpf(mutated):
        assert position in {0, 5}
        assert {_remainder(cpf, CPF_WEIGHTS_1), _remainder(mutated, CPF_WEIGHTS_1)} == {0, 1}


@pytest.mark.parametrize(("cpf", "mutated"), [("70499962206", "80499962206"), ("92947822200", "92947622200")])
def test_cpf_substitutions_that_slip_through_exist(cpf: str, mutated: str) -> None:
    assert is_valid_cpf(cpf)
    assert is_valid_cpf(mutated)


@given(valid_cnpjs(), st.sampled_from([12, 13]), st.sampled_from(CNPJ_BODY_ALPHABET))
def test_cnpj_check_digit_substitution_is_always_detected(cnpj: str, position: int, char: str) -> None:
    if char != cnpj[position]:
        assert not is_valid_cnpj(_substitute(cnpj, position, char))


@given(valid_cnpjs(), st.integers(min_value=0, max_value=11), st.sampled_from(CNPJ_BODY_ALPHABET))
def test_cnpj_body_substitution_slips_through_only_as_derived(cnpj: str, position: int, char: str) -> None:
    if char == cnpj[position]:
        return
    mutated = _substitute(cnpj, position, char)
    difference = _value(char) - _value(cnpj[position])
    if is_valid_cnpj(mutated) and (difference * CNPJ_WEIGHTS_1[position]) % 11 != 0:
        assert position in {0, 4, 8}
        assert {_remainder(cnpj, CNPJ_WEIGHTS_1), _remainder(mutated, CNPJ_WEIGHTS_1)} == {0, 1}


@given(valid_cnpjs(alphanumeric=True), st.integers(min_value=0, max_value=11), st.data())
def test_cnpj_substitution_by_a_multiple_of_eleven_is_never_detected(
    cnpj: str, position: int, data: st.DataObject
) -> None:
    original = _value(cnpj[position])
    twins = [c for c in CNPJ_BODY_ALPHABET if c != cnpj[position] and (_value(c) - original) % 11 == 0]
    assert twins  # every allowed character has one: '0' (0) <-> 'F' (22), 'A' (17) <-> 'L' (28)...
    mutated = _substitute(cnpj, position, data.draw(st.sampled_from(twins)))
    assert is_valid_cnpj(mutated) or len(set(mutated)) == 1


@pytest.mark.parametrize(
    ("cnpj", "mutated"),
    [
        ("12ABC34501DE35", "12LBC34501DE35"),  # 'A' (17) -> 'L' (28)
        ("WWV7S5MN6S1U00", "8WV7S5MN6S1U00"),  # remainder 0 <-> 1 at position 0
        ("WWV7S5MN6S1U00", "WWV785MN6S1U00"),  # ... at position 4
        ("WWV7S5MN6S1U00", "WWV7S5MN8S1U00"),  # ... at position 8
    ],
)
def test_cnpj_substitutions_that_slip_through_exist(cnpj: str, mutated: str) -> None:
    assert is_valid_cnpj(cnpj)
    assert is_valid_cnpj(mutated)


# -- masking ---------------------------------------------------------------------------------


def test_mask_examples() -> None:
    assert mask_document("12345678909") == "***.456.789-**"
    assert mask_document("12345678000195") == "**.345.678/0001-**"
    assert mask_document("12ABC34501DE35") == "**.ABC.345/01DE-**"
    assert parse_document("52998224725").masked == "***.982.247-**"


@given(valid_cpfs())
def test_cpf_mask_shows_only_the_middle_six_digits(cpf: str) -> None:
    masked = mask_document(cpf)
    assert re.fullmatch(r"\*\*\*\.[0-9]{3}\.[0-9]{3}-\*\*", masked)
    assert re.sub(r"[^0-9A-Z]", "", masked) == cpf[3:9]


@given(valid_cnpjs())
def test_cnpj_mask_shows_only_the_middle_ten_characters(cnpj: str) -> None:
    masked = mask_document(cnpj)
    assert re.fullmatch(r"\*\*\.[0-9A-Z]{3}\.[0-9A-Z]{3}/[0-9A-Z]{4}-\*\*", masked)
    assert re.sub(r"[^0-9A-Z]", "", masked) == cnpj[2:12]


@pytest.mark.parametrize("text", ["", "52998224726", "11222333000182", "529.982.247-25"])
def test_masking_an_invalid_document_raises(text: str) -> None:
    with pytest.raises(InvalidDocument):
        mask_document(text)
