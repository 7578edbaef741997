"""Brazilian taxpayer documents: CPF (people) and CNPJ (companies).

Input is the bare form only: no dots, dashes or slashes.

* CPF: 11 ASCII digits; the last 2 are mod-11 check digits over the first 9
  (weights 10..2) and the first 10 (weights 11..2); all-equal digits are refused.
* CNPJ: 14 characters; the first 12 are ``[0-9A-Z]`` (the alphanumeric CNPJ, in
  force since July 2026), the last 2 are check digits. A character's value is
  ``ord(c) - 48`` (``'0'``-``'9'`` -> 0-9, ``'A'`` -> 17 ... ``'Z'`` -> 42), with
  weights 5,4,3,2,9,8,7,6,5,4,3,2 for the first check digit and
  6,5,4,3,2,9,8,7,6,5,4,3,2 for the second. Numeric CNPJs are the special case
  of digits only and stay valid. An all-same-character CNPJ is refused.
  Lower-case letters are refused, not upper-cased: a document is an identity,
  and the service does not guess at one.

Either check digit is ``0`` when the weighted sum leaves a remainder below 2
modulo 11, else ``11 - remainder``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from pixcore.errors import InvalidDocument

__all__ = [
    "CNPJ_PATTERN",
    "CPF_PATTERN",
    "Document",
    "DocumentKind",
    "cnpj_check_digits",
    "cpf_check_digits",
    "is_valid_cnpj",
    "is_valid_cpf",
    "mask_document",
    "parse_document",
]

CPF_PATTERN = "[0-9]{11}"
CNPJ_PATTERN = "[0-9A-Z]{12}[0-9]{2}"
"""The layouts (matched whole); the check digits are a rule no pattern says."""
_CPF = re.compile(CPF_PATTERN)
_CPF_BODY = re.compile(r"[0-9]{9}")
_CNPJ = re.compile(CNPJ_PATTERN)
_CNPJ_BODY = re.compile(r"[0-9A-Z]{12}")
_CNPJ_WEIGHTS = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)  # the first digit uses the last 12


class DocumentKind(enum.StrEnum):
    """Which kind of taxpayer a document identifies."""

    CPF = "CPF"
    CNPJ = "CNPJ"


@dataclass(frozen=True, slots=True)
class Document:
    """A valid CPF or CNPJ in its bare form (build it with :func:`parse_document`)."""

    kind: DocumentKind
    value: str

    @property
    def masked(self) -> str:
        """The document with all but its middle characters hidden (see :func:`mask_document`)."""
        return mask_document(self.value)


def _check_digit(values: list[int], weights: tuple[int, ...]) -> int:
    remainder = sum(v * w for v, w in zip(values, weights, strict=True)) % 11
    return 0 if remainder < 2 else 11 - remainder


def cpf_check_digits(first9: str) -> str:
    """The 2 check digits that complete the 9 ASCII digits ``first9`` into a CPF."""
    if _CPF_BODY.fullmatch(first9) is None:
        raise ValueError("a CPF body is 9 ASCII digits")
    values = [int(c) for c in first9]
    first = _check_digit(values, tuple(range(10, 1, -1)))
    second = _check_digit([*values, first], tuple(range(11, 1, -1)))
    return f"{first}{second}"


def cnpj_check_digits(first12: str) -> str:
    """The 2 check digits that complete the 12 characters ``[0-9A-Z]`` of ``first12``."""
    if _CNPJ_BODY.fullmatch(first12) is None:
        raise ValueError("a CNPJ body is 12 characters [0-9A-Z]")
    values = [ord(c) - 48 for c in first12]
    first = _check_digit(values, _CNPJ_WEIGHTS[1:])
    second = _check_digit([*values, first], _CNPJ_WEIGHTS)
    return f"{first}{second}"


def is_valid_cpf(text: str) -> bool:
    """Whether ``text`` is a bare CPF with valid check digits and not all digits equal."""
    return _CPF.fullmatch(text) is not None and len(set(text)) > 1 and cpf_check_digits(text[:9]) == text[9:]


def is_valid_cnpj(text: str) -> bool:
    """Whether ``text`` is a bare (numeric or alphanumeric) CNPJ with valid check digits."""
    return (
        _CNPJ.fullmatch(text) is not None and len(set(text)) > 1 and cnpj_check_digits(text[:12]) == text[12:]
    )


def parse_document(text: str) -> Document:
    """A :class:`Document` from a bare CPF (11 characters) or CNPJ (14 characters)."""
    if len(text) == 11 and is_valid_cpf(text):
        return Document(DocumentKind.CPF, text)
    if len(text) == 14 and is_valid_cnpj(text):
        return Document(DocumentKind.CNPJ, text)
    raise InvalidDocument


def mask_document(text: str) -> str:
    """Hide a document for display to a counterpart.

    CPF ``12345678909`` -> ``***.456.789-**``; CNPJ ``12345678000195`` ->
    ``**.345.678/0001-**``. An invalid document raises :class:`InvalidDocument`.
    """
    document = parse_document(text)
    v = document.value
    if document.kind is DocumentKind.CPF:
        return f"***.{v[3:6]}.{v[6:9]}-**"
    return f"**.{v[2:5]}.{v[5:8]}/{v[8:12]}-**"
