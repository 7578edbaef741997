"""PIX keys: type detection, validation and the canonical form."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.errors import InvalidPixKey
from pixcore.keys import MAX_KEY_LENGTH, PixKey, PixKeyType, new_evp, parse_pix_key
from tests.strategies import (
    valid_cnpjs,
    valid_cpfs,
    valid_emails,
    valid_evps,
    valid_phones,
    valid_pix_keys,
)


@given(valid_pix_keys())
def test_canonical_keys_parse_to_themselves(raw: str) -> None:
    assert parse_pix_key(raw).value == raw


@given(valid_pix_keys())
def test_parse_is_idempotent(raw: str) -> None:
    key = parse_pix_key(raw)
    assert parse_pix_key(key.value) == key


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (valid_cpfs(), PixKeyType.CPF),
        (valid_cnpjs(), PixKeyType.CNPJ),
        (valid_emails(), PixKeyType.EMAIL),
        (valid_phones(), PixKeyType.PHONE),
        (valid_evps(), PixKeyType.EVP),
    ],
)
@given(data=st.data())
def test_type_is_detected(
    strategy: st.SearchStrategy[str], expected: PixKeyType, data: st.DataObject
) -> None:
    assert parse_pix_key(data.draw(strategy)).type is expected


@given(st.one_of(valid_emails(), valid_evps()))
def test_upper_case_emails_and_evps_are_lowered(raw: str) -> None:
    assert parse_pix_key(raw.upper()) == parse_pix_key(raw)


@given(valid_pix_keys(), st.sampled_from([" ", "\t", "\n", "\r\n", "\u00a0"]), st.booleans())
def test_surrounding_whitespace_is_rejected(raw: str, space: str, in_front: bool) -> None:
    with pytest.raises(InvalidPixKey):
        parse_pix_key(space + raw if in_front else raw + space)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("52998224725", PixKey(PixKeyType.CPF, "52998224725")),
        ("11222333000181", PixKey(PixKeyType.CNPJ, "11222333000181")),
        ("12ABC34501DE35", PixKey(PixKeyType.CNPJ, "12ABC34501DE35")),
        ("+5511987654321", PixKey(PixKeyType.PHONE, "+5511987654321")),
        ("+551133334444", PixKey(PixKeyType.PHONE, "+551133334444")),
        ("pix@bcb.gov.br", PixKey(PixKeyType.EMAIL, "pix@bcb.gov.br")),
        ("Pix@BCB.gov.BR", PixKey(PixKeyType.EMAIL, "pix@bcb.gov.br")),
        ("a@b", PixKey(PixKeyType.EMAIL, "a@b")),  # the DICT pattern does not ask for a dot
        ("o'hara+pix@x-y.com", PixKey(PixKeyType.EMAIL, "o'hara+pix@x-y.com")),
        (
            "123e4567-e89b-12d3-a456-426655440000",
            PixKey(PixKeyType.EVP, "123e4567-e89b-12d3-a456-426655440000"),
        ),
        (
            "123E4567-E89B-12D3-A456-426655440000",
            PixKey(PixKeyType.EVP, "123e4567-e89b-12d3-a456-426655440000"),
        ),
    ],
)
def test_examples(raw: str, expected: PixKey) -> None:
    assert parse_pix_key(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        " ",
        "11987654321",  # 11 digits are a CPF, and this one is not valid: never a phone
        "52998224726",
        "11222333000182",
        "12abc34501de35",  # lower-case CNPJ
        "+55119876543",  # 9 digits after +55
        "+55119876543210",  # 12 digits
        "+1415555123",
        "5511987654321",
        "+55 11987654321",
        "+55(11)987654321",
        "@bcb.gov.br",
        "pix@",
        "pix@@bcb.gov.br",
        "pix@bcb..gov.br",
        "pix@-bcb.gov.br",
        "pix@bcb-.gov.br",
        "pix@bcb.gov.br.",
        "p ix@bcb.gov.br",
        "pix%x@bcb.gov.br",  # '%' is not in the DICT pattern
        "pix@bcb.gov.br\n",
        "pix@\u212a.com",  # KELVIN SIGN, which str.lower() turns into an ASCII 'k'
        "jos\u00e9@bcb.gov.br",
        "123e4567e89b12d3a456426655440000",  # a UUID without dashes
        "{123e4567-e89b-12d3-a456-426655440000}",
        "123e4567-e89b-12d3-a456-42665544000g",
        "hello",
        "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19\uff10",  # full-width digits
    ],
)
def test_invalid_keys_are_rejected(raw: str) -> None:
    with pytest.raises(InvalidPixKey):
        parse_pix_key(raw)


def test_email_length_limit() -> None:
    domain = "@bcb.gov.br"
    longest = "a" * (MAX_KEY_LENGTH - len(domain)) + domain
    assert len(longest) == 77
    assert parse_pix_key(longest).type is PixKeyType.EMAIL
    with pytest.raises(InvalidPixKey):
        parse_pix_key("a" + longest)


@given(st.text(min_size=MAX_KEY_LENGTH + 1))
def test_anything_over_77_characters_is_rejected(raw: str) -> None:
    with pytest.raises(InvalidPixKey):
        parse_pix_key(raw)


@given(st.text(max_size=40))
def test_arbitrary_text_is_a_canonical_key_or_rejected(raw: str) -> None:
    try:
        key = parse_pix_key(raw)
    except InvalidPixKey:
        return
    assert key.value.isascii()
    assert parse_pix_key(key.value) == key


def test_new_evp_is_a_lower_case_uuid4() -> None:
    evps = {new_evp() for _ in range(100)}
    assert len(evps) == 100
    for evp in evps:
        assert uuid.UUID(evp).version == 4
        assert parse_pix_key(evp) == PixKey(PixKeyType.EVP, evp)


def test_key_type_values() -> None:
    assert [t.value for t in PixKeyType] == ["CPF", "CNPJ", "EMAIL", "PHONE", "EVP"]
    assert PixKeyType("EVP") is PixKeyType.EVP
