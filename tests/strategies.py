"""Reusable hypothesis strategies for the PIX domain.

Import them in any test: ``from tests.strategies import valid_cpfs``. Every
strategy here yields values in canonical form, which the parsers of
:mod:`pixcore` accept and return unchanged.
"""

from __future__ import annotations

import string

from hypothesis import strategies as st

from pixcore.documents import cnpj_check_digits, cpf_check_digits
from pixcore.money import MAX_CENTS

__all__ = [
    "CNPJ_BODY_ALPHABET",
    "cents",
    "valid_cnpjs",
    "valid_cpfs",
    "valid_documents",
    "valid_emails",
    "valid_evps",
    "valid_phones",
    "valid_pix_keys",
]

CNPJ_BODY_ALPHABET = string.digits + string.ascii_uppercase
"""The characters allowed in the first 12 positions of a CNPJ."""

_EMAIL_LOCAL_ALPHABET = string.ascii_lowercase + string.digits + ".!#$&'*+/=?^_`{|}~-"
_LABEL_EDGE = string.ascii_lowercase + string.digits
_LABEL_INNER = _LABEL_EDGE + "-"


def cents(min_value: int = 0, max_value: int = MAX_CENTS) -> st.SearchStrategy[int]:
    """Amounts in centavos, by default every amount the wire can carry (zero included)."""
    return st.integers(min_value=min_value, max_value=max_value)


def _not_all_equal(text: str) -> bool:
    return len(set(text)) > 1


def valid_cpfs() -> st.SearchStrategy[str]:
    """Bare CPFs with valid check digits, never all digits equal."""
    bodies = st.text(alphabet=string.digits, min_size=9, max_size=9)
    return bodies.map(lambda body: body + cpf_check_digits(body)).filter(_not_all_equal)


def valid_cnpjs(*, alphanumeric: bool | None = None) -> st.SearchStrategy[str]:
    """Bare CNPJs with valid check digits: numeric, alphanumeric, or (``None``) both."""
    numeric = st.text(alphabet=string.digits, min_size=12, max_size=12)
    mixed = st.text(alphabet=CNPJ_BODY_ALPHABET, min_size=12, max_size=12)
    kinds = {None: st.one_of(numeric, mixed), True: mixed, False: numeric}
    bodies = kinds[alphanumeric]
    return bodies.map(lambda body: body + cnpj_check_digits(body)).filter(_not_all_equal)


def valid_documents() -> st.SearchStrategy[str]:
    """Bare CPFs and CNPJs."""
    return st.one_of(valid_cpfs(), valid_cnpjs())


def valid_phones() -> st.SearchStrategy[str]:
    """Phone keys: ``+55`` and 10 or 11 digits."""
    return st.text(alphabet=string.digits, min_size=10, max_size=11).map(lambda digits: "+55" + digits)


@st.composite
def _labels(draw: st.DrawFn) -> str:
    size = draw(st.integers(min_value=1, max_value=12))
    if size == 1:
        return draw(st.sampled_from(_LABEL_EDGE))
    inner = draw(st.text(alphabet=_LABEL_INNER, min_size=size - 2, max_size=size - 2))
    return draw(st.sampled_from(_LABEL_EDGE)) + inner + draw(st.sampled_from(_LABEL_EDGE))


@st.composite
def _emails(draw: st.DrawFn) -> str:
    local = draw(st.text(alphabet=_EMAIL_LOCAL_ALPHABET, min_size=1, max_size=24))
    labels = draw(st.lists(_labels(), min_size=1, max_size=3))
    return f"{local}@{'.'.join(labels)}"


def valid_emails() -> st.SearchStrategy[str]:
    """Lower-case e-mail keys matching the DICT pattern, at most 77 characters."""
    return _emails().filter(lambda email: len(email) <= 77)


def valid_evps() -> st.SearchStrategy[str]:
    """Lower-case UUIDs of any version."""
    return st.uuids().map(str)


def valid_pix_keys() -> st.SearchStrategy[str]:
    """Canonical PIX keys of every type."""
    return st.one_of(valid_cpfs(), valid_cnpjs(), valid_emails(), valid_phones(), valid_evps())
