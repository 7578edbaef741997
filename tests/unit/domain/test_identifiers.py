"""End-to-end ids, return ids, txids, refund ids and ISPBs."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.errors import InvalidIdentifier
from pixcore.identifiers import (
    is_end_to_end_id,
    is_return_id,
    looks_like_end_to_end_id,
    new_end_to_end_id,
    new_return_id,
    new_txid,
    validate_e2eid_path,
    validate_end_to_end_id,
    validate_ispb,
    validate_refund_id,
    validate_return_id,
    validate_txid,
)

ALPHANUMERIC = string.ascii_letters + string.digits
ispbs = st.text(alphabet=string.digits, min_size=8, max_size=8)
offsets = st.integers(min_value=-23 * 60 - 59, max_value=23 * 60 + 59).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
moments = st.datetimes(
    min_value=datetime(1000, 1, 2),  # noqa: DTZ001 - bounds of a naive strategy, zones come from `offsets`
    max_value=datetime(9999, 12, 30),  # noqa: DTZ001
    timezones=offsets,
)
alphanumerics = st.text(alphabet=ALPHANUMERIC, min_size=1, max_size=60)
NOT_ALPHANUMERIC = st.characters().filter(lambda c: c not in ALPHANUMERIC)

E2E_ID = "E12345678202611211505AbCdEfGh123"  # ISPB 12345678, 2026-11-21 15:05 UTC


def _minute(at: datetime) -> str:
    utc = at.astimezone(UTC)
    return f"{utc.year:04d}{utc.month:02d}{utc.day:02d}{utc.hour:02d}{utc.minute:02d}"


# -- end-to-end and return ids --------------------------------------------------------


class SpiId(NamedTuple):
    """The functions of one kind of SPI identifier."""

    prefix: str
    new: Callable[[str, datetime], str]
    check: Callable[[str], bool]
    validate: Callable[[str], str]


SPI_IDS = [
    SpiId("E", new_end_to_end_id, is_end_to_end_id, validate_end_to_end_id),
    SpiId("D", new_return_id, is_return_id, validate_return_id),
]


@pytest.mark.parametrize("kind", SPI_IDS, ids=lambda kind: kind.prefix)
@given(ispb=ispbs, at=moments)
def test_generated_ids_validate_and_carry_ispb_and_minute(kind: SpiId, ispb: str, at: datetime) -> None:
    identifier = kind.new(ispb, at)
    assert len(identifier) == 32
    assert re.fullmatch(r"[A-Za-z0-9]{32}", identifier)
    assert identifier[0] == kind.prefix
    assert identifier[1:9] == ispb
    assert identifier[9:21] == _minute(at)
    assert kind.check(identifier)
    assert kind.validate(identifier) == identifier
    assert looks_like_end_to_end_id(identifier) is (kind.prefix == "E")
    assert validate_e2eid_path(identifier) == identifier


def test_end_to_end_id_is_in_utc() -> None:
    at = datetime(2026, 11, 21, 12, 5, tzinfo=timezone(timedelta(hours=-3)))
    assert new_end_to_end_id("12345678", at)[:21] == "E12345678202611211505"


def test_return_id_and_end_to_end_id_are_told_apart() -> None:
    assert is_end_to_end_id(E2E_ID)
    assert not is_return_id(E2E_ID)
    assert is_return_id("D" + E2E_ID[1:])
    assert not is_end_to_end_id("D" + E2E_ID[1:])


def test_generated_ids_differ() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    assert len({new_end_to_end_id("12345678", at) for _ in range(200)}) == 200


def test_new_id_needs_an_aware_moment() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        new_end_to_end_id("12345678", datetime(2026, 1, 1))  # noqa: DTZ001 - naive on purpose


@pytest.mark.parametrize(
    "ispb", ["", "1234567", "123456789", "1234567a", "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668"]
)
def test_new_id_needs_a_valid_ispb(ispb: str) -> None:
    with pytest.raises(InvalidIdentifier):
        new_return_id(ispb, datetime(2026, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    "text",
    [
        "",
        E2E_ID[:-1],  # 31 characters
        E2E_ID + "A",  # 33 characters
        "e" + E2E_ID[1:],  # lower-case prefix
        "X" + E2E_ID[1:],
        "E1234567A202611211505AbCdEfGh123",  # a letter in the ISPB
        "E12345678202613211505AbCdEfGh123",  # month 13
        "E12345678202600211505AbCdEfGh123",  # month 0
        "E12345678202602301505AbCdEfGh123",  # 30 February
        "E12345678202502291505AbCdEfGh123",  # 29 February of a common year
        "E12345678202611212405AbCdEfGh123",  # hour 24
        "E12345678202611211560AbCdEfGh123",  # minute 60
        "E12345678000011211505AbCdEfGh123",  # year 0
        "E12345678202611211505AbCdEfGh12-",
        "E12345678202611211505AbCdEfGh12\u00e9",
        "E12345678202611211505AbCdEfGh12\n",
        "E\uff112345678202611211505AbCdEfGh123",  # a full-width digit
    ],
)
def test_malformed_end_to_end_ids_are_rejected(text: str) -> None:
    assert not is_end_to_end_id(text)
    with pytest.raises(InvalidIdentifier):
        validate_end_to_end_id(text)


@given(ispbs, moments, st.data())
def test_any_non_alphanumeric_character_is_rejected(ispb: str, at: datetime, data: st.DataObject) -> None:
    identifier = new_end_to_end_id(ispb, at)
    position = data.draw(st.integers(min_value=0, max_value=31))
    mutated = identifier[:position] + data.draw(NOT_ALPHANUMERIC) + identifier[position + 1 :]
    assert not is_end_to_end_id(mutated)
    assert not looks_like_end_to_end_id(mutated)
    with pytest.raises(InvalidIdentifier):
        validate_e2eid_path(mutated)


@given(ispbs, moments, st.integers(min_value=0, max_value=31), st.integers(min_value=1, max_value=5))
def test_wrong_length_is_rejected(ispb: str, at: datetime, cut: int, extra: int) -> None:
    identifier = new_end_to_end_id(ispb, at)
    for mutated in (identifier[:cut], identifier + "A" * extra):
        assert not is_end_to_end_id(mutated)
        assert not looks_like_end_to_end_id(mutated)
        with pytest.raises(InvalidIdentifier):
            validate_e2eid_path(mutated)


@given(ispbs, moments, st.sampled_from(string.ascii_letters), st.integers(min_value=9, max_value=20))
def test_a_letter_in_the_date_is_rejected(ispb: str, at: datetime, letter: str, position: int) -> None:
    identifier = new_end_to_end_id(ispb, at)
    mutated = identifier[:position] + letter + identifier[position + 1 :]
    assert not is_end_to_end_id(mutated)
    assert looks_like_end_to_end_id(mutated)  # the lookup rule is looser on purpose


@given(ispbs, st.integers(min_value=13, max_value=99), st.integers(min_value=32, max_value=99))
def test_an_impossible_date_is_rejected(ispb: str, month: int, day: int) -> None:
    for date in (f"2026{month:02d}01", f"202601{day:02d}"):
        assert not is_end_to_end_id(f"E{ispb}{date}1200AbCdEfGh123")


@given(st.text(alphabet=ALPHANUMERIC, min_size=31, max_size=31))
def test_lookup_rule(tail: str) -> None:
    assert looks_like_end_to_end_id("E" + tail)
    assert not looks_like_end_to_end_id("D" + tail)
    assert not looks_like_end_to_end_id("e" + tail)


# -- txid, refund id, ISPB -------------------------------------------------------------------


@pytest.mark.parametrize(("length", "ok"), [(0, False), (25, False), (26, True), (35, True), (36, False)])
def test_txid_length_bounds(length: int, ok: bool) -> None:
    text = "a1B2" * 9
    if ok:
        assert validate_txid(text[:length]) == text[:length]
    else:
        with pytest.raises(InvalidIdentifier):
            validate_txid(text[:length])


@pytest.mark.parametrize(("length", "ok"), [(0, False), (1, True), (35, True), (36, False)])
def test_refund_id_length_bounds(length: int, ok: bool) -> None:
    text = "Z9y8" * 9
    if ok:
        assert validate_refund_id(text[:length]) == text[:length]
    else:
        with pytest.raises(InvalidIdentifier):
            validate_refund_id(text[:length])


@given(alphanumerics)
def test_txid_and_refund_id_accept_alphanumerics_in_range(text: str) -> None:
    for validate, low, high in ((validate_txid, 26, 35), (validate_refund_id, 1, 35)):
        if low <= len(text) <= high:
            assert validate(text) == text
        else:
            with pytest.raises(InvalidIdentifier):
                validate(text)


@given(st.text(alphabet=ALPHANUMERIC, min_size=26, max_size=34), NOT_ALPHANUMERIC, st.data())
def test_txid_and_refund_id_reject_other_characters(text: str, bad: str, data: st.DataObject) -> None:
    position = data.draw(st.integers(min_value=0, max_value=len(text)))
    mutated = text[:position] + bad + text[position:]
    for validate in (validate_txid, validate_refund_id):
        with pytest.raises(InvalidIdentifier):
            validate(mutated)


def test_new_txid() -> None:
    txids = {new_txid() for _ in range(200)}
    assert len(txids) == 200
    for txid in txids:
        assert len(txid) == 32
        assert validate_txid(txid) == txid


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1234567",
        "123456789",
        "1234567a",
        "1234 678",
        "\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18",
        "12345678\n",
    ],
)
def test_invalid_ispbs(text: str) -> None:
    with pytest.raises(InvalidIdentifier):
        validate_ispb(text)


@given(ispbs)
def test_valid_ispbs(text: str) -> None:
    assert validate_ispb(text) == text


@pytest.mark.parametrize("text", ["", "E" * 31, "E" * 33, "é" * 32, "Ab1" * 10 + "A-"])
def test_e2eid_path_rejects(text: str) -> None:
    with pytest.raises(InvalidIdentifier):
        validate_e2eid_path(text)


def test_random_characters_drop_the_bytes_that_would_favour_some_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """248 = 4 x 62: bytes 0..247 map onto the 62 characters evenly; 248..255 would make the first
    eight likelier, so they are dropped and more bytes read."""
    from pixcore import identifiers

    reads = iter([bytes([255, 248, 0, 61, 62, 247]) + bytes(8), bytes([1]) * 16])
    monkeypatch.setattr(identifiers.secrets, "token_bytes", lambda n: next(reads)[:n])
    alphabet = string.ascii_letters + string.digits
    assert identifiers._random_alphanumeric(6) == "a9a9aa"  # 0, 61, 62 % 62, 247 % 62, then zeros
    reads = iter([bytes([250]) * 9, bytes([1]) * 9])
    assert identifiers._random_alphanumeric(1) == alphabet[1]  # a whole read dropped: read again


def test_random_characters_cover_the_alphabet() -> None:
    from pixcore import identifiers

    seen = Counter(identifiers._random_alphanumeric(62 * 200))
    assert set(seen) == set(string.ascii_letters + string.digits)
    assert min(seen.values()) > 100  # 200 expected each: a skewed map would starve some
