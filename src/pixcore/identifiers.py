"""Identifiers on the wire: end-to-end ids, return ids, txids, refund ids, ISPBs.

* End-to-end id (``endToEndId``): ``E`` + ISPB (8 digits) + ``yyyyMMddHHmm`` (UTC,
  24 h, a real date and time) + 11 ``[A-Za-z0-9]``: 32 characters.
* Return id (``rtrId``): the same layout with the prefix ``D``.
* Lookups by end-to-end id only check ``^E[A-Za-z0-9]{31}$``
  (:func:`looks_like_end_to_end_id`); the refund path takes any 32 alphanumerics.
* ``txid``: ``^[a-zA-Z0-9]{26,35}$``; refund ``id``: ``^[a-zA-Z0-9]{1,35}$``.

Everything is ASCII: ``[0-9]``, never ``\\d``, which also matches other scripts' digits.
"""

from __future__ import annotations

import enum
import re
import secrets
import string
from datetime import UTC, date, datetime

from pixcore.errors import InvalidIdentifier
from pixcore.problems import Field, Problem

__all__ = [
    "E2EID_PATH_PATTERN",
    "END_TO_END_ID_PATTERN",
    "ISPB_PATTERN",
    "LOOKUP_E2E_PATTERN",
    "REFUND_ID_PATTERN",
    "TXID_PATTERN",
    "IdentifierField",
    "is_end_to_end_id",
    "is_return_id",
    "looks_like_end_to_end_id",
    "new_end_to_end_id",
    "new_recurrence_id",
    "new_recurrence_request_id",
    "new_return_id",
    "new_txid",
    "validate_e2eid_path",
    "validate_end_to_end_id",
    "validate_ispb",
    "validate_refund_id",
    "validate_return_id",
    "validate_txid",
]

_ALPHANUMERIC = string.ascii_letters + string.digits
# The rules as text (matched whole): the OpenAPI document publishes these very strings.
ISPB_PATTERN = "[0-9]{8}"
END_TO_END_ID_PATTERN = "E[0-9]{8}[0-9]{12}[A-Za-z0-9]{11}"
"""The layout of an end-to-end id; that its date and time are real is a rule no pattern says."""
LOOKUP_E2E_PATTERN = "E[A-Za-z0-9]{31}"
E2EID_PATH_PATTERN = "[A-Za-z0-9]{32}"
TXID_PATTERN = "[A-Za-z0-9]{26,35}"
REFUND_ID_PATTERN = "[A-Za-z0-9]{1,35}"

_ISPB = re.compile(ISPB_PATTERN)
_SPI_ID = re.compile(r"([ED])[0-9]{8}([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})[A-Za-z0-9]{11}")
_LOOKUP_E2E = re.compile(LOOKUP_E2E_PATTERN)
_E2EID_PATH = re.compile(E2EID_PATH_PATTERN)
_TXID = re.compile(TXID_PATTERN)
_REFUND_ID = re.compile(REFUND_ID_PATTERN)


class IdentifierField(Field):
    """The identifiers whose rules name them by reference (their wire names are the edge's)."""

    END_TO_END_ID = enum.auto()
    RETURN_ID = enum.auto()


def _invalid(problem: str | Problem) -> InvalidIdentifier:
    if isinstance(problem, Problem):
        return InvalidIdentifier(problems=[problem], summary="Invalid identifier: {}")
    return InvalidIdentifier(f"Invalid identifier: {problem}", details=[problem])


_E2E, _RTR = IdentifierField.END_TO_END_ID, IdentifierField.RETURN_ID

_UNBIASED = 256 - 256 % len(_ALPHANUMERIC)  # bytes below it map onto the alphabet evenly


def _random_alphanumeric(length: int) -> str:
    """``length`` characters of the alphabet, each equally likely, from one read of the system's
    random source (``secrets.choice`` reads it once a character); a byte at or above
    ``_UNBIASED`` is dropped, so that no character is likelier than another."""
    chosen: list[str] = []
    while len(chosen) < length:
        for byte in secrets.token_bytes(length + 8):
            if byte < _UNBIASED:
                chosen.append(_ALPHANUMERIC[byte % len(_ALPHANUMERIC)])
                if len(chosen) == length:
                    break
    return "".join(chosen)


def _new_spi_id(prefix: str, ispb: str, at: datetime) -> str:
    validate_ispb(ispb)
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError("identifiers need a timezone-aware moment")
    utc = at.astimezone(UTC)
    minute = f"{utc.year:04d}{utc.month:02d}{utc.day:02d}{utc.hour:02d}{utc.minute:02d}"
    return f"{prefix}{ispb}{minute}{_random_alphanumeric(11)}"


def _is_spi_id(prefix: str, text: str) -> bool:
    match = _SPI_ID.fullmatch(text)
    if match is None or match[1] != prefix:
        return False
    year, month, day, hour, minute = (int(part) for part in match.groups()[1:])
    try:
        datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        return False
    return True


def new_end_to_end_id(ispb: str, at: datetime) -> str:
    """A fresh end-to-end id for a payment sent by ``ispb`` at ``at`` (aware; taken in UTC)."""
    return _new_spi_id("E", ispb, at)


def is_end_to_end_id(text: str) -> bool:
    """Whether ``text`` has the full end-to-end id layout, with a real date and time."""
    return _is_spi_id("E", text)


def validate_end_to_end_id(text: str) -> str:
    """Return ``text`` if it is an end-to-end id; raise :class:`InvalidIdentifier` otherwise."""
    if not is_end_to_end_id(text):
        raise _invalid(Problem.of((), "{} must be E + ISPB + yyyyMMddHHmm + 11 alphanumerics", _E2E))
    return text


def new_return_id(ispb: str, at: datetime) -> str:
    """A fresh return id (``rtrId``) for a refund sent by ``ispb`` at ``at``."""
    return _new_spi_id("D", ispb, at)


def is_return_id(text: str) -> bool:
    """Whether ``text`` has the full return id layout, with a real date and time."""
    return _is_spi_id("D", text)


def validate_return_id(text: str) -> str:
    """Return ``text`` if it is a return id; raise :class:`InvalidIdentifier` otherwise."""
    if not is_return_id(text):
        raise _invalid(Problem.of((), "{} must be D + ISPB + yyyyMMddHHmm + 11 alphanumerics", _RTR))
    return text


def looks_like_end_to_end_id(text: str) -> bool:
    """The lookup rule: ``E`` followed by 31 ASCII alphanumerics (32 in all)."""
    return _LOOKUP_E2E.fullmatch(text) is not None


def validate_e2eid_path(text: str) -> str:
    """The ``{e2eid}`` of the refund path: exactly 32 ASCII alphanumerics."""
    if _E2EID_PATH.fullmatch(text) is None:
        raise _invalid("e2eid must be 32 alphanumeric characters")
    return text


def validate_txid(text: str) -> str:
    """A charge ``txid``: 26 to 35 ASCII alphanumerics."""
    if _TXID.fullmatch(text) is None:
        raise _invalid("txid must be 26 to 35 alphanumeric characters")
    return text


def new_txid() -> str:
    """A fresh random ``txid`` of 32 ASCII alphanumerics."""
    return _random_alphanumeric(32)


def validate_refund_id(text: str) -> str:
    """A refund ``id``: 1 to 35 ASCII alphanumerics."""
    if _REFUND_ID.fullmatch(text) is None:
        raise _invalid("refund id must be 1 to 35 alphanumeric characters")
    return text


def validate_ispb(text: str) -> str:
    """An ISPB (the institution's code in the payment system): 8 ASCII digits."""
    if _ISPB.fullmatch(text) is None:
        raise _invalid("ISPB must be 8 digits")
    return text


def new_recurrence_id(ispb: str, day: date, *, retries: bool) -> str:
    """A fresh ``idRec``: ``R``, then ``R`` if the recurrence allows retries (``N`` if not), the
    ISPB of the receiver's institution, the creation ``day`` as ``yyyyMMdd`` and 11 letters and
    digits: 29 characters."""
    validate_ispb(ispb)
    return f"R{'R' if retries else 'N'}{ispb}{day:%Y%m%d}{_random_alphanumeric(11)}"


def new_recurrence_request_id(ispb: str, day: date) -> str:
    """A fresh ``idSolicRec``: ``SC``, the ISPB of the institution sending it, the ``day`` as
    ``yyyyMMdd`` and 11 letters and digits: 29 characters."""
    validate_ispb(ispb)
    return f"SC{ispb}{day:%Y%m%d}{_random_alphanumeric(11)}"
