"""Amounts typed in the console's forms, read into integer centavos (never a float)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixweb.console.amounts import TOO_PRECISE, UNREADABLE, TypedAmount, UnreadableAmount, read_amount
from pixweb.console.language import language


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("42,90", 4290),
        ("42.90", 4290),
        ("1.234,56", 123456),
        ("1,234.56", 123456),  # unambiguous: a Portuguese reader's console reads it too
        ("1234,56", 123456),
        ("42", 4200),
        ("0,5", 50),
        ("R$ 42,90", 4290),
        (" 42,90 ", 4290),
        ("1.234", 123400),  # in Portuguese, a dot groups thousands
        ("1.234.567,89", 123456789),
    ],
)
def test_portuguese_readers_amounts(text: str, cents: int) -> None:
    assert read_amount(text, "pt_BR") == cents


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("42,901", TOO_PRECISE),
        ("1,234", TOO_PRECISE),  # in Portuguese, a comma is the decimal point
        ("1.2345", TOO_PRECISE),
        ("abc", UNREADABLE),
        ("", UNREADABLE),
        ("-5", UNREADABLE),
        ("1e5", UNREADABLE),
        ("NaN", UNREADABLE),
        ("Infinity", UNREADABLE),
        ("1.23.4", UNREADABLE),
        ("12,34,56", UNREADABLE),
        ("4 2", UNREADABLE),
        ("٤٢", UNREADABLE),  # digits of another script
        ("1" * 30, UNREADABLE),
    ],
)
def test_refused_with_the_fields_own_message(text: str, message: str) -> None:
    with pytest.raises(UnreadableAmount) as refused:
        read_amount(text, "pt_BR")
    assert refused.value.message == message


def test_english_readers_group_with_commas() -> None:
    assert read_amount("1,234", "en") == 123400
    assert read_amount("42,90", "en") == 4290  # no other reading
    with pytest.raises(UnreadableAmount):
        read_amount("1.234", "en")


@given(st.integers(min_value=0, max_value=999_999_999_999), st.sampled_from(["pt_BR", "en"]))
def test_what_the_console_writes_it_reads_back(cents: int, code: str) -> None:
    written = language(code).money(cents)
    assert read_amount(written.replace("\xa0", " "), code) == cents


def test_a_typed_amount_hands_the_use_case_exact_reais_or_a_refused_value() -> None:
    read = TypedAmount.read("1.234,56", "pt_BR")
    assert (read.cents, read.problem) == (123456, None)
    assert read.number() == Decimal("1234.56")
    assert read.string() == "1234.56"
    unread = TypedAmount.read("42,901", "pt_BR")
    assert (unread.cents, unread.problem) == (None, TOO_PRECISE)
    assert unread.number() == "42,901"  # a text: no number rule accepts it
    assert unread.string() is None  # required: refused
    empty = TypedAmount.read("", "pt_BR")
    assert (empty.cents, empty.problem, empty.number(), empty.string()) == (None, None, "", "")


def test_the_messages_are_in_the_catalog() -> None:
    assert language("pt_BR").gettext(TOO_PRECISE) == "No máximo duas casas decimais (centavos), como 42,90."
    assert language("pt_BR").gettext(UNREADABLE) == "Digite um valor em reais, como 42,90 ou 1.234,56."
