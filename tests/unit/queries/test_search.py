"""The console search's reading of a text: an amount as people type it, an end-to-end id, a txid,
and what it refuses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.errors import InvalidQuery
from pixcore.queries.search import MAX_SEARCH, parse_search


@pytest.mark.parametrize(
    ("typed", "cents"),
    [
        ("42,90", 4290),
        ("42.90", 4290),
        ("42,9", 4290),
        ("42", 4200),
        ("R$ 42,90", 4290),
        ("R$42.90", 4290),
        ("1.234,56", 123456),
        ("1,234.56", 123456),
        ("1.234.567", 123456700),
        ("0,01", 1),
    ],
)
def test_an_amount_is_read_as_typed(typed: str, cents: int) -> None:
    terms = parse_search(typed)
    assert terms.amount == cents
    assert terms.end_to_end_id is None
    assert terms.txid is None


@given(st.integers(min_value=0, max_value=10**12))
def test_every_way_of_writing_an_amount_gives_it_back(cents: int) -> None:
    reais, centavos = divmod(cents, 100)
    grouped = f"{reais:,}"
    for typed in (
        f"{reais},{centavos:02d}",
        f"{reais}.{centavos:02d}",
        f"{grouped}.{centavos:02d}",
        f"{grouped.replace(',', '.')},{centavos:02d}",
        f"R$ {reais},{centavos:02d}",
    ):
        assert parse_search(typed).amount == cents, typed


def test_an_end_to_end_id_is_also_a_possible_txid_and_a_txid_alone_is_not_an_id() -> None:
    e2e = "E" + "1234567890ABCDEF" * 2
    e2e = e2e[:32]
    terms = parse_search(f"  {e2e} ")
    assert (terms.end_to_end_id, terms.txid, terms.amount) == (e2e, e2e, None)
    txid = "a" * 30
    assert (parse_search(txid).end_to_end_id, parse_search(txid).txid) == (None, txid)


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("", "Type an end-to-end id"),
        ("   ", "Type an end-to-end id"),
        ("E12\x00", "control characters"),
        ("\x00", "control characters"),
        ("4\n2", "control characters"),
        ("9" * (MAX_SEARCH + 1), f"at most {MAX_SEARCH} characters"),
        ("hello", "Not an end-to-end id"),
        ("42,901,5", "Not an end-to-end id"),
        ("-42,90", "Not an end-to-end id"),
        ("١٢", "Not an end-to-end id"),  # digits of another script are no amount
        ("9" * 16, "Not an end-to-end id"),  # more reais than any account holds
    ],
)
def test_what_is_refused_says_why(typed: str, words: str) -> None:
    with pytest.raises(InvalidQuery) as refused:
        parse_search(typed)
    assert words in refused.value.message
