"""Postal addresses and e-mail addresses of people, as the standard keeps them beside a CPF or CNPJ
(its ``DadosComplementaresPessoa``: ``logradouro``, ``cidade``, ``uf``, ``cep``; and the debtor's
``email``).

The limits are the standard's where it has one (200 characters of street and city, a ``uf`` of
2, a ``cep`` of 8) and, where the wording leaves the form open, the strictest reading that every
real value passes: a ``uf`` is two letters (``SP``), a ``cep`` eight digits without a hyphen
(``01310100``). The standard gives ``email`` no form and no limit: any text up to
:data:`MAX_EMAIL` characters, the most an address can be (RFC 5321's path), so that a column can
hold it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MAX_CITY",
    "MAX_EMAIL",
    "MAX_STREET",
    "POSTAL_CODE_PATTERN",
    "STATE_PATTERN",
    "Address",
    "is_postal_code",
    "is_state",
]

MAX_STREET = 200
MAX_CITY = 200
MAX_EMAIL = 254
STATE_PATTERN = "[A-Za-z]{2}"
"""A ``uf``: the two letters of a state (``SP``), matched whole."""
POSTAL_CODE_PATTERN = "[0-9]{8}"
"""A ``cep``: eight digits, no hyphen (``01310100``), matched whole."""
_STATE = re.compile(STATE_PATTERN)
_POSTAL_CODE = re.compile(POSTAL_CODE_PATTERN)


def is_state(text: str) -> bool:
    """Whether ``text`` is a ``uf`` (two ASCII letters)."""
    return _STATE.fullmatch(text) is not None


def is_postal_code(text: str) -> bool:
    """Whether ``text`` is a ``cep`` (eight ASCII digits)."""
    return _POSTAL_CODE.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Address:
    """A whole postal address: an account's, which a ``cobv`` shows as its receiver's
    (``recebedor``: the standard requires all four parts there)."""

    street: str
    city: str
    state: str
    postal_code: str
