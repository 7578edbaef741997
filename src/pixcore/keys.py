"""PIX keys: the aliases that DICT resolves to an account.

:func:`parse_pix_key` tells the type from the shape, in this order, and
returns the canonical form:

* 11 ASCII digits: a CPF (it must be valid); never a phone number.
* 14 characters shaped like a CNPJ (``[0-9A-Z]{12}[0-9]{2}``): a CNPJ (valid).
* ``+55`` and 10 or 11 digits: a phone number.
* anything with ``@``: an e-mail address, at most 77 characters, matching the
  DICT pattern. DICT stores e-mail keys in lower case; upper-case input is
  accepted and lowered (``Pix@BCB.gov.br`` is ``pix@bcb.gov.br``), because the
  domain is case-insensitive and users type capitals. Only ASCII input is
  lowered, so no non-ASCII letter can fold into an ASCII one.
* a UUID (8-4-4-4-12 hex digits, any version): an EVP, lowered.

Anything else is an :class:`~pixcore.errors.InvalidPixKey`, including the empty
string, surrounding whitespace and anything over 77 characters.
"""

from __future__ import annotations

import enum
import re
import uuid
from dataclasses import dataclass

from pixcore.documents import is_valid_cnpj, is_valid_cpf
from pixcore.errors import InvalidPixKey

__all__ = ["KEY_PATTERN", "MAX_KEY_LENGTH", "PixKey", "PixKeyType", "new_evp", "parse_pix_key"]

MAX_KEY_LENGTH = 77
"""No key is longer than the longest e-mail key."""

_CPF_TEXT = r"[0-9]{11}"
_CNPJ_TEXT = r"[0-9A-Z]{12}[0-9]{2}"
_PHONE_TEXT = r"\+55[0-9]{10,11}"
_EMAIL_TEXT = (
    r"[a-z0-9.!#$&'*+/=?^_`{|}~-]+"
    r"@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*"
)
_EVP_TEXT = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
KEY_PATTERN = "|".join(f"(?:{text})" for text in (_CPF_TEXT, _CNPJ_TEXT, _PHONE_TEXT, _EMAIL_TEXT, _EVP_TEXT))
"""The five layouts (e-mail and EVP in their canonical lower case; upper case is accepted and
lowered). A CPF's or CNPJ's check digits are a rule no pattern says."""
_CPF = re.compile(_CPF_TEXT)
_CNPJ = re.compile(_CNPJ_TEXT)
_PHONE = re.compile(_PHONE_TEXT)
_EMAIL = re.compile(_EMAIL_TEXT)
_EVP = re.compile(_EVP_TEXT)


class PixKeyType(enum.StrEnum):
    """The five kinds of PIX key."""

    CPF = "CPF"
    CNPJ = "CNPJ"
    EMAIL = "EMAIL"
    PHONE = "PHONE"
    EVP = "EVP"


@dataclass(frozen=True, slots=True)
class PixKey:
    """A valid PIX key in canonical form (build it with :func:`parse_pix_key`)."""

    type: PixKeyType
    value: str


def parse_pix_key(raw: str) -> PixKey:
    """Detect the type of ``raw``, validate it and return the canonical key."""
    if not raw or len(raw) > MAX_KEY_LENGTH or not raw.isascii():
        raise InvalidPixKey
    if _CPF.fullmatch(raw):
        if not is_valid_cpf(raw):
            raise InvalidPixKey(details=["an 11-digit key is a CPF, and this CPF is invalid"])
        return PixKey(PixKeyType.CPF, raw)
    if _CNPJ.fullmatch(raw):
        if not is_valid_cnpj(raw):
            raise InvalidPixKey(details=["invalid CNPJ"])
        return PixKey(PixKeyType.CNPJ, raw)
    if _PHONE.fullmatch(raw):
        return PixKey(PixKeyType.PHONE, raw)
    lowered = raw.lower()
    if "@" in raw:
        if not _EMAIL.fullmatch(lowered):
            raise InvalidPixKey(details=["invalid e-mail address"])
        return PixKey(PixKeyType.EMAIL, lowered)
    if _EVP.fullmatch(lowered):
        return PixKey(PixKeyType.EVP, lowered)
    raise InvalidPixKey


def new_evp() -> str:
    """A fresh random EVP key: a lower-case UUID version 4."""
    return str(uuid.uuid4())
