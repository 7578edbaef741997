"""The edge's text rules (``pixweb.edge``), as pure functions of bytes and strings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixweb.edge import (
    MAX_DEPTH,
    body_problem,
    bytes_problem,
    json_problem,
    json_value_problem,
    text_problem,
    url_encoded_problem,
)

_no_nul_text = st.text(st.characters(exclude_characters="\x00", exclude_categories=["Cs"]))
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _no_nul_text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_no_nul_text, children, max_size=3),
    max_leaves=20,
)


def nested(depth: int, *, inner: Any = 1) -> Any:
    value = inner
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


@given(_no_nul_text)
def test_text_without_nul_or_surrogates_is_fine(text: str) -> None:
    assert text_problem(text) is None
    assert bytes_problem(text.encode()) is None


@pytest.mark.parametrize(("text", "problem"), [("a\x00", "NUL"), ("\x00", "NUL"), ("a\ud800b", "surrogate")])
def test_a_nul_or_a_lone_surrogate_is_refused(text: str, problem: str) -> None:
    assert problem in (text_problem(text) or "")


@pytest.mark.parametrize(
    "raw",
    [b"\xff", b"a\xc3", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"],
    ids=["ff", "truncated", "overlong-nul", "surrogate", "above-10ffff", "truncated-3"],
)
def test_invalid_utf8_is_refused(raw: bytes) -> None:
    assert bytes_problem(raw) == "is not valid UTF-8"


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        (b"externalId=abc&page=2", False),
        (b"name=Jo%C3%A3o+Silva", False),
        (b"externalId=a%00", True),
        (b"a%00=1", True),
        (b"x=%FF", True),
        (b"x=%C3&y=%A9", True),  # a sequence split by '&' is invalid on both sides
        (b"x=%ED%A0%80", True),
        (b"x=%zz", False),  # not an escape: taken as the text it is
    ],
)
def test_url_encoded_text_is_judged_after_decoding(query: bytes, refused: bool) -> None:
    assert (url_encoded_problem(query) is not None) is refused


@given(_json_values)
def test_ordinary_json_passes(value: Any) -> None:
    assert json_problem(json.dumps(value).encode()) is None
    assert json_problem(json.dumps(value, ensure_ascii=False).encode()) is None


def test_nesting_is_refused_one_level_past_the_limit() -> None:
    assert json_value_problem(nested(MAX_DEPTH)) is None
    assert json_problem(json.dumps(nested(MAX_DEPTH)).encode()) is None
    assert json_value_problem(nested(MAX_DEPTH + 1)) == f"nests JSON deeper than {MAX_DEPTH} levels"
    assert json_problem(json.dumps(nested(MAX_DEPTH + 1)).encode()) is not None


def test_nesting_too_deep_for_the_decoder_is_refused_without_recursion() -> None:
    assert json_problem(b"[" * 200_000 + b"]" * 200_000) is not None
    assert json_value_problem(nested(100_000)) is not None


def test_many_brackets_side_by_side_are_not_depth() -> None:
    wide = {"items": [[1], [2], {"a": [3]}] * 100}
    assert json_problem(json.dumps(wide).encode()) is None


def test_brackets_inside_strings_are_not_depth() -> None:
    assert json_problem(json.dumps({"a": "[" * 1000}).encode()) is None


@pytest.mark.parametrize(
    "value",
    [{"a": "x\x00"}, {"a\x00": 1}, ["ok", ["deeper", "\x00"]], "\x00"],
    ids=["value", "key", "list", "top"],
)
def test_a_nul_anywhere_in_json_is_refused(value: Any) -> None:
    assert json_problem(json.dumps(value).encode()) == "contains a NUL character"


def test_an_escaped_backslash_before_u0000_is_no_nul() -> None:
    text = json.dumps({"a": "\\u0000"}).encode()  # the six characters \u0000, not a NUL
    assert b"\\\\u0000" in text
    assert json_problem(text) is None


def test_malformed_json_is_left_to_the_handler() -> None:
    assert json_problem(b'{"a": ' + b"[" * 100) is None
    assert json_problem(b"not json") is None


def test_bodies_by_content_type() -> None:
    assert body_problem(b"", "application/json") is None
    assert body_problem(b"client_id=%00", "application/x-www-form-urlencoded") == (
        "the body contains a NUL character"
    )
    assert body_problem(b'{"a": "\\u0000"}', "application/json") == "the body contains a NUL character"
    assert body_problem(b"\xff", "text/plain") == "the body is not valid UTF-8"
