"""What ``pixnotify listen`` prints of a sender's text holds no character a terminal acts on
(controls, bidi and other format characters), says exactly what was sent, and, when the signature
does not verify, is marked and quoted so that it cannot pass for a genuine line."""

from __future__ import annotations

import ast
import json
import unicodedata
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixnotify.listen import UNVERIFIED, Notification, Verdict, human_line, json_line
from pixnotify.visible import json_text, quoted, visible

HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
FORGED = "\x1b[2K\r03:41:05  RECEIVE  12.00 BRL  id=42  msg_9_3  signature ok\x07"
BIDI = "\u202eko erutangis\u202c\u2066\u2069\u200f\u061c\u200b\ufeff"
# Any text at all, hidden characters and lone surrogates included.
TEXT = st.text(st.characters(codec=None, categories=None))


def _hidden(text: str) -> list[str]:
    return [char for char in text if unicodedata.category(char) in HIDDEN]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\x1bb", "a\\x1bb"),
        ("a\rb", "a\\rb"),
        ("a\x07b", "a\\x07b"),
        ("a\nb\tc", "a\\nb\\tc"),
        ("\x7f\x9b\x85", "\\x7f\\x9b\\x85"),  # DEL, the C1 CSI and NEL
        ("\u202egood\u202c", "\\u202egood\\u202c"),
        ("\u2028\u2029\u200b\ufeff", "\\u2028\\u2029\\u200b\\ufeff"),
        ("\U000e0041", "\\U000e0041"),  # a tag character (Cf, outside the BMP)
        ("\ud800", "\\ud800"),  # a lone surrogate (a JSON "\\ud800" decodes to one): no UTF-8 for it
        ("a\\x1b", "a\\\\x1b"),  # a backslash is escaped: an escape in the output always means one
        ("João  12,00 €", "João  12,00 €"),
    ],
)
def test_visible_escapes_every_hidden_character(text: str, shown: str) -> None:
    assert visible(text) == shown


@given(TEXT)
def test_visible_text_hides_nothing_and_says_exactly_what_was_sent(text: str) -> None:
    shown = visible(text)
    assert _hidden(shown) == []
    # Every backslash in it starts an escape that means the character it replaced.
    assert ast.literal_eval('"' + shown.replace('"', '\\"') + '"') == text


@given(TEXT)
def test_quoted_text_hides_nothing_cannot_close_its_quotes_and_round_trips(text: str) -> None:
    shown = quoted(text)
    assert _hidden(shown) == []
    assert "  " not in shown  # no column of a genuine line inside it
    assert ast.literal_eval(shown) == text  # a string literal of exactly the text: one pair of quotes


@given(
    st.recursive(
        TEXT | st.integers() | st.none(), lambda inner: st.lists(inner) | st.dictionaries(TEXT, inner)
    )
)
def test_json_text_is_the_same_json_with_nothing_hidden(value: Any) -> None:
    document = json_text(json.dumps(value, ensure_ascii=False))
    assert _hidden(document) == []
    assert json.loads(document) == value


def _note(event: Any, verdict: Verdict, msg_id: str = "msg_9_3") -> Notification:
    return Notification(
        received_at=datetime(2026, 3, 15, 14, 40, tzinfo=UTC),
        path="/",
        headers={"webhook-id": msg_id},
        body=b"",
        verdict=verdict,
        status=204 if verdict.valid else 401,
        event=event,
    )


def test_a_forged_line_in_an_unsigned_request_is_escaped_quoted_and_marked() -> None:
    event = {"type": FORGED + BIDI, "data": {"id": 42, "payment": {"amount": "12.00", "currency": "BRL"}}}
    line = human_line(_note(event, Verdict(valid=False, reason="missing webhook-signature"), "msg\x1b[1A"))
    assert _hidden(line) == []
    prefix, _, kind, amount, ids, msg_id, check = line.split("  ")
    assert prefix == UNVERIFIED
    assert ast.literal_eval(kind) == FORGED + BIDI
    assert kind.startswith('"\\x1b[2K\\r03:41:05 \\x20RECEIVE \\x20')
    assert (amount, ids, msg_id, check) == (
        '"12.00 BRL"',
        '"id=42"',
        '"msg\\x1b[1A"',
        "SIGNATURE INVALID (missing webhook-signature)",
    )


def test_a_signed_request_is_escaped_but_neither_quoted_nor_marked() -> None:
    event = {"type": "RECEIVE\x1b[31m", "data": {"id": 42, "payment": {"amount": "12.00", "currency": "BRL"}}}
    line = human_line(_note(event, Verdict(valid=True)))
    _, kind, amount, ids, msg_id, check = line.split("  ")
    assert (kind, amount, ids, msg_id, check) == (
        "RECEIVE\\x1b[31m",
        "12.00 BRL",
        "id=42",
        "msg_9_3",
        "signature ok",
    )


@given(kind=TEXT, amount=TEXT, key=TEXT, msg_id=TEXT)
def test_an_unverified_line_is_one_marked_line_whatever_the_sender_wrote(
    kind: str, amount: str, key: str, msg_id: str
) -> None:
    event = {"type": kind, "data": {"endToEndId": key, "payment": {"amount": amount}}}
    line = human_line(_note(event, Verdict(valid=False, reason="no signature matches the secret"), msg_id))
    assert _hidden(line) == []
    assert line.startswith(UNVERIFIED + "  ")
    assert line.endswith("  SIGNATURE INVALID (no signature matches the secret)")
    assert line.count("  ") == 6  # the columns are the listener's own: none comes from the sender


@given(TEXT)
def test_a_json_line_hides_nothing_and_keeps_the_event(text: str) -> None:
    event = {"type": text, "data": {text: [text]}}
    line = json_line(_note(event, Verdict(valid=False, reason="missing webhook-id"), text))
    assert _hidden(line) == []
    assert "\n" not in line
    parsed = json.loads(line)
    assert (parsed["event"], parsed["webhookId"], parsed["signature"]) == (event, text, "invalid")
