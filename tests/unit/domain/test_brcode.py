"""BR Code codec: the published vectors, round trips, and every malformed code refused cleanly."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.brcode import MAX_LENGTH, BrCode, crc16, decode, encode
from pixcore.errors import InvalidBrCode
from pixcore.money import MAX_CENTS, parse_amount_string
from tests.strategies import cents, valid_pix_keys

VECTORS: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "brcode-vectors.json").read_text(encoding="utf-8")
)
VALID = [vector for vector in VECTORS if not vector.get("negative")]
NEGATIVE = [vector for vector in VECTORS if vector.get("negative")]
VALID_CODES = [vector["code"] for vector in VALID]
BCB_STATIC = VALID_CODES[0]

# Names of the vectors' fields -> BrCode fields.
FIELD_NAMES = {
    "point_of_initiation_method": "point_of_initiation",
    "gui": "gui",
    "pix_key": "key",
    "url": "location",
    "info_adicional": "description",
    "fss": "fss",
    "mcc": "mcc",
    "merchant_name": "merchant_name",
    "merchant_city": "merchant_city",
    "txid": "reference",
    "recurrence_url": "recurrence",
}
CONSTANTS = {"payload_format_indicator": "000201", "currency": "5303986", "country": "5802BR"}


def seal(body: str) -> str:
    """``body`` (without the CRC field) closed with a correct ``6304`` CRC."""
    return body + "6304" + crc16(body + "6304")


def build(*fields: tuple[str, str]) -> str:
    return seal("".join(f"{tag}{len(value):02d}{value}" for tag, value in fields))


def expected_code(expected: dict[str, str]) -> BrCode:
    known = set(FIELD_NAMES) | set(CONSTANTS) | {"amount", "crc"}
    assert set(expected) <= known, f"unmapped vector fields: {set(expected) - known}"
    kwargs: dict[str, Any] = {
        FIELD_NAMES[name]: value for name, value in expected.items() if name in FIELD_NAMES
    }
    kwargs.setdefault("reference", None)
    if "amount" in expected:
        kwargs["amount"] = parse_amount_string(expected["amount"])
    return BrCode(**kwargs)


@pytest.mark.parametrize("vector", VALID, ids=[vector["kind"] for vector in VALID])
def test_vector_decodes_to_its_fields_and_reencodes_byte_for_byte(vector: dict[str, Any]) -> None:
    code = vector["code"]
    assert len(code) == vector["length"]
    assert code[-4:] == vector["expected"]["crc"] == crc16(code[:-4])
    for name, tlv in CONSTANTS.items():
        assert name in vector["expected"]
        assert tlv in code
    decoded = decode(code)
    assert decoded == expected_code(vector["expected"])
    assert encode(decoded) == code


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("bad-crc", "CRC mismatch"),
        ("bad-url-protocol", "without scheme"),
        ("bad-name-length", "merchant name"),
    ],
)
def test_negative_vector_is_refused(kind: str, reason: str) -> None:
    (vector,) = [vector for vector in NEGATIVE if vector["kind"] == kind]
    assert (crc16(vector["code"][:-4]) == vector["code"][-4:]) is vector["valid_crc"]
    with pytest.raises(InvalidBrCode, match=reason):
        decode(vector["code"])


def test_every_negative_vector_is_covered() -> None:
    assert {vector["kind"] for vector in NEGATIVE} == {"bad-crc", "bad-url-protocol", "bad-name-length"}


def test_crc16_is_ccitt_false() -> None:
    assert crc16("123456789") == "29B1"  # the catalogued check value of CRC-16/CCITT-FALSE
    assert crc16("") == "FFFF"
    with pytest.raises(InvalidBrCode):
        crc16("é")


# -- round trips ---------------------------------------------------------------

PRINTABLE = "".join(chr(code) for code in range(0x20, 0x7F))
URLS = st.from_regex(r"[a-z0-9.-]{1,30}/[A-Za-z0-9/._~-]{0,40}", fullmatch=True)
FREE_IDS = [f"{n:02d}" for n in range(100) if f"{n:02d}" not in {"00", "01", "26", "52", "53", "54"}]
FREE_IDS = [tag for tag in FREE_IDS if tag not in {"58", "59", "60", "62", "63", "80"}]


def texts(max_size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=PRINTABLE, min_size=1, max_size=max_size)


@st.composite
def brcodes(draw: st.DrawFn) -> BrCode:
    dynamic = draw(st.booleans())
    key = None if dynamic else draw(valid_pix_keys())
    location = draw(URLS) if dynamic else None
    fss = None if dynamic else draw(st.none() | st.from_regex(r"[0-9]{8}", fullmatch=True))
    used = 18 + 4 + len(key or location or "") + (12 if fss else 0)
    room = 99 - used - 4
    description = draw(st.none() | texts(room)) if room >= 1 else None
    references = st.just("***") if dynamic else st.from_regex(r"[A-Za-z0-9]{1,25}", fullmatch=True)
    extra_tags = draw(st.lists(st.sampled_from(FREE_IDS), max_size=2, unique=True))
    return BrCode(
        merchant_name=draw(texts(25)),
        merchant_city=draw(texts(15)),
        key=key,
        location=location,
        amount=draw(st.none() | cents(1, MAX_CENTS)),
        description=description,
        reference=draw(st.none() | st.just("***") | references),
        point_of_initiation=draw(st.sampled_from([None, "11", "12"])),
        fss=fss,
        recurrence=draw(st.none() | URLS),
        gui=draw(st.sampled_from(["br.gov.bcb.pix", "BR.GOV.BCB.PIX", "Br.Gov.Bcb.Pix"])),
        mcc=draw(st.from_regex(r"[0-9]{4}", fullmatch=True)),
        extra=tuple((tag, draw(texts(40))) for tag in sorted(extra_tags)),
    )


@given(brcodes())
def test_decode_inverts_encode(code: BrCode) -> None:
    text = encode(code)
    assert text.isascii()
    assert len(text) <= MAX_LENGTH
    assert text.startswith("000201")
    assert text[-8:-4] == "6304"
    assert text[-4:] == crc16(text[:-4])
    assert decode(text) == code
    assert encode(decode(text)) == text


# -- malformed codes -------------------------------------------------------------


@pytest.mark.parametrize("code", VALID_CODES, ids=[vector["kind"] for vector in VALID])
def test_every_prefix_is_refused(code: str) -> None:
    for end in range(len(code)):
        with pytest.raises(InvalidBrCode):
            decode(code[:end])


@pytest.mark.parametrize("code", VALID_CODES, ids=[vector["kind"] for vector in VALID])
def test_a_corrupted_crc_is_refused(code: str) -> None:
    for position in range(len(code) - 4, len(code)):
        for digit in "0123456789ABCDEFa":
            if digit != code[position]:
                corrupted = code[:position] + digit + code[position + 1 :]
                with pytest.raises(InvalidBrCode, match="CRC"):
                    decode(corrupted)


def test_a_missing_crc_is_refused() -> None:
    with pytest.raises(InvalidBrCode, match="CRC"):
        decode(BCB_STATIC[:-8])
    with pytest.raises(InvalidBrCode, match="CRC"):
        decode(BCB_STATIC[:-8] + "6305" + BCB_STATIC[-4:] + "0")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (BCB_STATIC[:-8].replace("5913Fulano", "5914Fulano"), r"length|truncated|not 4 digits"),
        (BCB_STATIC[:-8].replace("5913Fulano", "5912Fulano"), r"length|truncated|not 4 digits"),
        (BCB_STATIC[:-8].replace("5913Fulano", "59x3Fulano"), "not 4 digits"),
        (BCB_STATIC[:-8].replace("5913Fulano", "5x13Fulano"), "not 4 digits"),
        (BCB_STATIC[:-8].replace("5913Fulano de Tal", "5900"), "wrong length"),
        (BCB_STATIC[:-8] + "64", "wrong length"),
        (BCB_STATIC[:-8].replace("62070503***", "62090503***05"), "template 62 is truncated"),
    ],
    ids=["long", "short", "letter-in-length", "letter-in-id", "empty", "dangling", "truncated-template"],
)
def test_broken_structure_with_a_good_crc_is_refused(body: str, reason: str) -> None:
    with pytest.raises(InvalidBrCode, match=reason):
        decode(seal(body))


def test_the_txid_is_optional() -> None:
    code = decode(seal(BCB_STATIC[:-8].replace("62070503***", "")))
    assert code.reference is None
    assert encode(code) == seal(BCB_STATIC[:-8].replace("62070503***", ""))


STATIC_FIELDS = [
    ("00", "01"),
    ("26", "0014br.gov.bcb.pix0114arya@stark.com"),
    ("52", "0000"),
    ("53", "986"),
    ("58", "BR"),
    ("59", "Arya"),
    ("60", "Sao Paulo"),
    ("62", "0503***"),
]


def replaced(tag: str, value: str | None) -> list[tuple[str, str]]:
    return [(t, value if t == tag else v) for t, v in STATIC_FIELDS if t != tag or value is not None]


def test_the_static_fields_decode() -> None:
    assert decode(build(*STATIC_FIELDS)) == BrCode(
        merchant_name="Arya", merchant_city="Sao Paulo", key="arya@stark.com"
    )


@pytest.mark.parametrize("tag", ["00", "26", "52", "53", "58", "59", "60"])
def test_a_missing_mandatory_field_is_refused(tag: str) -> None:
    with pytest.raises(InvalidBrCode, match=r"missing|must start"):
        decode(build(*replaced(tag, None)))


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        (replaced("00", "02"), "payload format"),
        ([*STATIC_FIELDS[1:2], *STATIC_FIELDS[:1], *STATIC_FIELDS[2:]], "payload format"),
        (replaced("53", "840"), "currency"),
        (replaced("58", "US"), "country"),
        (replaced("52", "00a0"), "MCC"),
        ([*STATIC_FIELDS, ("01", "13")], "point of initiation"),
        ([*STATIC_FIELDS, ("59", "Arya")], "twice"),
        (replaced("26", "0014br.gov.bcb.xxx0114arya@stark.com"), "GUI"),
        (replaced("26", "0114arya@stark.com"), "GUI"),
        (replaced("26", "0014br.gov.bcb.pix"), "key .* location .* recurrence"),
        (replaced("26", "0014br.gov.bcb.pix0114arya@stark.com2508a.com/qr"), "not both"),
        (replaced("26", "0014br.gov.bcb.pix0114arya@stark.com0401x"), "unknown fields 04"),
        (replaced("26", "0014br.gov.bcb.pix0110not a key!"), "not a PIX key"),
        (replaced("26", "0014br.gov.bcb.pix2518https://a.com/qr/1"), "without scheme"),
        (replaced("26", "0014br.gov.bcb.pix0114arya@stark.com0306123456"), "FSS"),
        (replaced("62", "0503***0702ab"), "unknown fields 07"),
        (replaced("62", "0505a-b-c"), "reference"),
        ([*replaced("26", "0014br.gov.bcb.pix2508a.com/qr"), ("62", "0503abc")], "twice"),
        ([*replaced("62", None), ("26x", "")], r"not 4 digits|length|truncated"),
        ([*STATIC_FIELDS, ("80", "0014br.gov.bcb.pix")], "recurrence template"),
        ([*STATIC_FIELDS, ("80", "0014br.gov.bcb.xxx2505a.com")], "GUI"),
        (replaced("59", "x" * 26), "merchant name"),
        (replaced("60", "x" * 16), "merchant city"),
        (replaced("59", "a\tb"), r"printable|control"),
    ],
)
def test_a_broken_rule_is_refused(fields: list[tuple[str, str]], reason: str) -> None:
    with pytest.raises(InvalidBrCode, match=reason):
        decode(build(*fields))


def test_a_dynamic_code_has_no_txid() -> None:
    fields = replaced("26", "0014br.gov.bcb.pix2508a.com/qr")
    assert decode(build(*fields)).location == "a.com/qr"
    with pytest.raises(InvalidBrCode, match="dynamic"):
        decode(build(*[(t, "0503abc" if t == "62" else v) for t, v in fields]))


@pytest.mark.parametrize(
    "amount", ["10.5", "10", "0.00", "01.00", "-1.00", "1e10", "10,00", " 1.00", "12345678901.00", "1.000"]
)
def test_a_bad_amount_is_refused(amount: str) -> None:
    with pytest.raises(InvalidBrCode, match=r"amount \(54\)"):
        decode(build(*STATIC_FIELDS[:4], ("54", amount), *STATIC_FIELDS[4:]))


def test_the_largest_amount_decodes() -> None:
    code = decode(build(*STATIC_FIELDS[:4], ("54", "9999999999.99"), *STATIC_FIELDS[4:]))
    assert code.amount == MAX_CENTS


def test_non_ascii_is_refused() -> None:
    with pytest.raises(InvalidBrCode, match="ASCII"):
        decode(BCB_STATIC.replace("Fulano", "Fulanó"))
    with pytest.raises(InvalidBrCode, match="ASCII"):
        decode(BCB_STATIC.replace("Fulano", "Fulan\u00a0"))
    with pytest.raises(InvalidBrCode, match="ASCII"):
        encode(BrCode(merchant_name="José", merchant_city="X", key="arya@stark.com"))
    with pytest.raises(InvalidBrCode):
        decode("000201\x00")  # control characters too


def test_a_code_over_512_characters_is_refused() -> None:
    extra = [(tag, "x" * 99) for tag in ("81", "82", "83", "84")]
    text = build(*STATIC_FIELDS, *extra)
    assert len(text) > MAX_LENGTH
    with pytest.raises(InvalidBrCode, match="more than 512"):
        decode(text)
    base = BrCode(merchant_name="Arya", merchant_city="Sao Paulo", key="arya@stark.com")
    with pytest.raises(InvalidBrCode, match="more than 512"):
        encode(BrCode(**{**_fields(base), "extra": tuple(extra)}))


def _fields(code: BrCode) -> dict[str, Any]:
    return {name: getattr(code, name) for name in BrCode.__dataclass_fields__}


def test_unknown_top_level_fields_are_kept_and_written_back() -> None:
    text = build(*STATIC_FIELDS[:7], ("27", "0010com.visa1"), *STATIC_FIELDS[7:], ("64", "0002pt0104Casa"))
    code = decode(text)
    assert code.extra == (("27", "0010com.visa1"), ("64", "0002pt0104Casa"))
    canonical = [*STATIC_FIELDS[:2], ("27", "0010com.visa1"), *STATIC_FIELDS[2:], ("64", "0002pt0104Casa")]
    assert encode(code) == build(*canonical)


def test_decode_accepts_any_order_and_encode_writes_the_canonical_one() -> None:
    shuffled = [STATIC_FIELDS[0], *reversed(STATIC_FIELDS[1:])]
    code = decode(build(*shuffled))
    assert encode(code) == build(*STATIC_FIELDS)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"location": "a.com/qr"}, "not both"),
        ({"key": None}, "needs a key"),
        ({"description": "x" * 80}, "field 26 must have 1 to 99"),
        ({"description": ""}, "description"),
        ({"merchant_name": ""}, "merchant name"),
        ({"amount": 0}, "amount"),
        ({"amount": -5}, "amount"),
        ({"amount": MAX_CENTS + 1}, "above"),
        ({"reference": "a b"}, "reference"),
        ({"gui": "br.gov.bcb.pox"}, "GUI"),
        ({"extra": (("26", "x"),)}, "free 2-digit id"),
        ({"extra": (("7", "x"),)}, "free 2-digit id"),
        ({"extra": (("81", "x"), ("81", "y"))}, "repeat"),
        ({"recurrence": "https://a.com/rec"}, "without scheme"),
    ],
)
def test_encode_refuses_a_broken_rule(changes: dict[str, Any], reason: str) -> None:
    base = BrCode(merchant_name="Arya", merchant_city="Sao Paulo", key="arya@stark.com")
    with pytest.raises(InvalidBrCode, match=reason):
        encode(BrCode(**{**_fields(base), **changes}))


# -- fuzzing: nothing but InvalidBrCode ever escapes --------------------------------

CHARS = st.sampled_from(string.digits + string.ascii_letters + "*./-@ é\x00")


@st.composite
def mutations(draw: st.DrawFn, *, fix_crc: bool) -> str:
    text = draw(st.sampled_from(VALID_CODES))
    if fix_crc:
        text = text[:-8]
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        position = draw(st.integers(min_value=0, max_value=len(text)))
        operation = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        if operation == "replace":
            text = text[:position] + draw(CHARS) + text[position + 1 :]
        elif operation == "insert":
            text = text[:position] + draw(CHARS) + text[position:]
        elif operation == "delete":
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position]
    return seal(text) if fix_crc and text.isascii() else text


def _decode_or_refuse(text: str) -> None:
    try:
        code = decode(text)
    except InvalidBrCode:
        return
    assert encode(code).isascii()  # whatever decodes is a valid code


@given(mutations(fix_crc=False))
def test_a_mutated_code_decodes_or_raises_invalid_brcode(text: str) -> None:
    _decode_or_refuse(text)


@given(mutations(fix_crc=True))
def test_a_mutated_body_with_a_fixed_crc_decodes_or_raises_invalid_brcode(text: str) -> None:
    _decode_or_refuse(text)


@given(st.text(max_size=600))
def test_arbitrary_text_decodes_or_raises_invalid_brcode(text: str) -> None:
    _decode_or_refuse(text)
