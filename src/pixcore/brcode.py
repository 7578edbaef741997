"""BR Code: the EMV merchant-presented QR payload of PIX ("Pix Copia e Cola").

A BR Code is a flat run of data objects, each a 2-digit id, a 2-digit length
and the value; ``26`` (merchant account) and ``62`` (additional data) and
``80`` (Pix Automatico recurrence) are templates holding data objects of their
own. The code ends with ``6304`` and the CRC16-CCITT-FALSE of everything
before it, 4 upper-case hex digits. ASCII only, at most 512 characters.

:func:`encode` writes data objects in ascending id order (``00 01 26 52 53 54
58 59 60 62 80 63``; inside ``26``: ``00``, ``01`` or ``25``, ``02``, ``03``),
which is what every published example does. :func:`decode` accepts any order
between ``00`` (first) and ``63`` (last), as EMV allows, so only canonically
ordered codes re-encode byte for byte. Unknown top-level data objects (say a
``27`` template of another scheme, or ``64``) are kept raw in
:attr:`BrCode.extra` and written back in id order; unknown ids inside ``26``,
``62`` and ``80`` are refused, because the BCB manual defines them all.

Both directions run the same checks, so ``decode(encode(code)) == code`` for
every code :func:`encode` accepts. Every failure is :class:`InvalidBrCode`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pixcore.errors import InvalidBrCode, PixError
from pixcore.keys import parse_pix_key
from pixcore.money import MAX_CENTS, format_amount_string, parse_amount_string, require_positive

__all__ = ["MAX_LENGTH", "PIX_GUI", "BrCode", "crc16", "decode", "encode"]

MAX_LENGTH = 512
"""The longest BR Code, in characters (= bytes: the code is ASCII)."""

PIX_GUI = "br.gov.bcb.pix"
"""The globally unique identifier of PIX in templates ``26`` and ``80``."""

_MAX_VALUE = 99
_MAX_URL = 77
_PRINTABLE = re.compile(r"[\x20-\x7e]+")
_MCC = re.compile(r"[0-9]{4}")
_REFERENCE = re.compile(r"\*\*\*|[A-Za-z0-9]{1,25}")
_FSS = re.compile(r"[0-9]{8}")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_KNOWN = frozenset({"00", "01", "26", "52", "53", "54", "58", "59", "60", "62", "63", "80"})
_MANDATORY = ("00", "26", "52", "53", "58", "59", "60")


def _crc_table() -> tuple[int, ...]:
    table: list[int] = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _crc_table()


def crc16(text: str) -> str:
    """CRC16-CCITT-FALSE (poly ``0x1021``, init ``0xFFFF``) of ASCII ``text``, 4 upper-case hex digits."""
    if not text.isascii():
        raise _fail("only ASCII characters are allowed")
    crc = 0xFFFF
    for byte in text.encode("ascii"):
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ byte]
    return f"{crc:04X}"


@dataclass(frozen=True, slots=True, kw_only=True)
class BrCode:
    """The fields of a BR Code; amounts are integer centavos.

    Exactly one of ``key`` (static code, ``26-01``) and ``location`` (dynamic
    code, ``26-25``: a URL without scheme) is given, except in a
    recurrence-only code, which has ``recurrence`` and neither.
    """

    merchant_name: str
    """``59``: 1 to 25 characters."""
    merchant_city: str
    """``60``: 1 to 15 characters."""
    key: str | None = None
    """``26-01``: the PIX key, as written in the code."""
    location: str | None = None
    """``26-25``: the payload URL of a dynamic code, without ``https://``."""
    amount: int | None = None
    """``54``: centavos, positive; ``None`` lets the payer choose."""
    description: str | None = None
    """``26-02``: free text shown to the payer (``infoAdicional``)."""
    reference: str | None = "***"
    """``62-05``: the txid (``***`` when there is none; always ``***`` when dynamic)."""
    point_of_initiation: str | None = None
    """``01``: ``11`` (reusable) or ``12`` (single use); ``None`` omits it."""
    fss: str | None = None
    """``26-03``: ISPB of the withdrawal service facilitator (Pix Saque/Troco)."""
    recurrence: str | None = None
    """``80-25``: the recurrence URL of Pix Automatico, without scheme."""
    gui: str = PIX_GUI
    """``26-00`` and ``80-00``: ``br.gov.bcb.pix`` in any case, kept as written."""
    mcc: str = "0000"
    """``52``: merchant category code, 4 digits."""
    extra: tuple[tuple[str, str], ...] = ()
    """Other top-level data objects, ``(id, raw value)``, kept as found."""


def _fail(message: str) -> InvalidBrCode:
    return InvalidBrCode(f"Invalid BR Code: {message}.")


def _tlv(tag: str, value: str) -> str:
    if not value or len(value) > _MAX_VALUE:
        raise _fail(f"field {tag} must have 1 to {_MAX_VALUE} characters, not {len(value)}")
    return f"{tag}{len(value):02d}{value}"


def _text(name: str, value: str | None, limit: int) -> None:
    if value is not None and (len(value) > limit or _PRINTABLE.fullmatch(value) is None):
        raise _fail(f"{name} must be 1 to {limit} printable ASCII characters")


def _url(name: str, value: str | None) -> None:
    _text(name, value, _MAX_URL)
    if value is not None and (_SCHEME.match(value) or " " in value):
        raise _fail(f"{name} must be a URL without scheme or spaces")


def _validate(code: BrCode) -> None:
    """The rules shared by :func:`encode` and :func:`decode`."""
    _text("merchant name (59)", code.merchant_name, 25)
    _text("merchant city (60)", code.merchant_city, 15)
    _text("description (26-02)", code.description, _MAX_VALUE)
    if _MCC.fullmatch(code.mcc) is None:
        raise _fail("the MCC (52) must be 4 digits")
    if code.point_of_initiation not in (None, "11", "12"):
        raise _fail("the point of initiation (01) must be 11 or 12")
    _validate_account(code)
    if code.amount is not None:
        try:
            format_amount_string(require_positive(code.amount))
        except (PixError, ValueError) as error:
            raise _fail("the amount (54) must be a positive number of centavos") from error
        if code.amount > MAX_CENTS:
            raise _fail("the amount (54) is above 9999999999.99")
    if code.reference is not None and _REFERENCE.fullmatch(code.reference) is None:
        raise _fail("the reference (62-05) must be *** or 1 to 25 letters and digits")
    for tag, value in code.extra:
        if len(tag) != 2 or not tag.isdigit() or not tag.isascii() or tag in _KNOWN:
            raise _fail(f"extra field id {tag!r} is not a free 2-digit id")
        _text(f"field {tag}", value, _MAX_VALUE)
    if len({tag for tag, _ in code.extra}) != len(code.extra):
        raise _fail("extra field ids repeat")


def _validate_account(code: BrCode) -> None:
    """The rules of the merchant account (26) and the recurrence (80)."""
    if code.gui.lower() != PIX_GUI:
        raise _fail(f"the GUI must be {PIX_GUI}")
    if code.key is not None and code.location is not None:
        raise _fail("a code has a key (26-01) or a location (26-25), not both")
    if code.key is None and code.location is None and code.recurrence is None:
        raise _fail("a code needs a key (26-01), a location (26-25) or a recurrence (80)")
    if code.key is not None:
        try:
            parse_pix_key(code.key)
        except PixError as error:
            raise _fail(f"26-01 is not a PIX key ({error.message})") from error
    _url("location (26-25)", code.location)
    _url("recurrence (80-25)", code.recurrence)
    if code.location is not None and code.reference not in (None, "***"):
        raise _fail("a dynamic code has *** as reference (62-05)")
    if code.fss is not None and _FSS.fullmatch(code.fss) is None:
        raise _fail("the FSS (26-03) must be an ISPB of 8 digits")


def encode(code: BrCode) -> str:
    """The BR Code text of ``code``; :class:`InvalidBrCode` if a field breaks a rule."""
    _validate(code)
    account = _tlv("00", code.gui)
    account += _tlv("01", code.key) if code.key is not None else ""
    account += _tlv("25", code.location) if code.location is not None else ""
    account += _tlv("02", code.description) if code.description is not None else ""
    account += _tlv("03", code.fss) if code.fss is not None else ""
    fields = {"00": "01", "26": account, "52": code.mcc, "53": "986", "58": "BR"}
    fields |= {"59": code.merchant_name, "60": code.merchant_city, **dict(code.extra)}
    if code.point_of_initiation is not None:
        fields["01"] = code.point_of_initiation
    if code.amount is not None:
        fields["54"] = format_amount_string(code.amount)
    if code.reference is not None:
        fields["62"] = _tlv("05", code.reference)
    if code.recurrence is not None:
        fields["80"] = _tlv("00", code.gui) + _tlv("25", code.recurrence)
    body = "".join(_tlv(tag, fields[tag]) for tag in sorted(fields)) + "6304"
    text = body + crc16(body)
    if len(text) > MAX_LENGTH:
        raise _fail(f"the code has {len(text)} characters, more than {MAX_LENGTH}")
    return text


def _parse(text: str, where: str) -> dict[str, str]:
    """The data objects of ``text`` in order; ids never repeat."""
    fields: dict[str, str] = {}
    position = 0
    while position < len(text):
        head = text[position : position + 4]
        if len(head) < 4:
            raise _fail(f"{where} is truncated at position {position}")
        if not all("0" <= char <= "9" for char in head):
            raise _fail(f"{where}: id and length at position {position} are not 4 digits ({head!r})")
        tag, size = head[:2], int(head[2:])
        value = text[position + 4 : position + 4 + size]
        if size == 0 or len(value) < size:
            raise _fail(f"{where}: field {tag} has a wrong length ({size})")
        if tag in fields:
            raise _fail(f"{where}: field {tag} appears twice")
        fields[tag] = value
        position += 4 + size
    return fields


def _template(value: str, tag: str, allowed: frozenset[str]) -> dict[str, str]:
    fields = _parse(value, f"template {tag}")
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise _fail(f"template {tag} has unknown fields {', '.join(unknown)}")
    return fields


def _amount(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        cents = require_positive(parse_amount_string(text))
    except PixError as error:
        raise _fail(f"the amount (54) {text!r} is not a positive decimal with 2 places") from error
    if format_amount_string(cents) != text:
        raise _fail(f"the amount (54) {text!r} has leading zeros")
    return cents


def decode(text: str) -> BrCode:
    """The fields of the BR Code ``text``; :class:`InvalidBrCode` if it is not a valid one."""
    if not isinstance(text, str) or not text.isascii():
        raise _fail("only ASCII characters are allowed")
    if len(text) > MAX_LENGTH:
        raise _fail(f"the code has {len(text)} characters, more than {MAX_LENGTH}")
    if _PRINTABLE.fullmatch(text) is None:
        raise _fail("the code is empty or has control characters")
    if len(text) < 8 or text[-8:-4] != "6304":
        raise _fail("the code is truncated or does not end with the CRC (6304 and 4 hex digits)")
    expected, found = crc16(text[:-4]), text[-4:]
    if found != expected:
        raise _fail(f"CRC mismatch: the code says {found}, its content gives {expected}")
    fields = _parse(text, "the code")
    tags = list(fields)
    if tags[0] != "00" or fields["00"] != "01":
        raise _fail("the code must start with the payload format indicator 000201")
    if tags[-1] != "63" or fields["63"] != found:
        raise _fail("the CRC (63) must be the last field")
    missing = [tag for tag in _MANDATORY if tag not in fields]
    if missing:
        raise _fail(f"mandatory fields are missing: {', '.join(missing)}")
    if fields["53"] != "986" or fields["58"] != "BR":
        raise _fail("the currency (53) must be 986 and the country (58) BR")
    account = _template(fields["26"], "26", frozenset({"00", "01", "02", "03", "25"}))
    additional = _template(fields["62"], "62", frozenset({"05"})) if "62" in fields else {}
    recurrence = _template(fields["80"], "80", frozenset({"00", "25"})) if "80" in fields else {}
    if "00" not in account or ("80" in fields and recurrence.get("00", "").lower() != PIX_GUI):
        raise _fail(f"templates 26 and 80 must start with the GUI {PIX_GUI}")
    if "80" in fields and "25" not in recurrence:
        raise _fail("the recurrence template (80) has no URL (25)")
    code = BrCode(
        merchant_name=fields["59"],
        merchant_city=fields["60"],
        key=account.get("01"),
        location=account.get("25"),
        amount=_amount(fields.get("54")),
        description=account.get("02"),
        reference=additional.get("05"),
        point_of_initiation=fields.get("01"),
        fss=account.get("03"),
        recurrence=recurrence.get("25"),
        gui=account["00"],
        mcc=fields["52"],
        extra=tuple((tag, value) for tag, value in fields.items() if tag not in _KNOWN),
    )
    _validate(code)
    return code
