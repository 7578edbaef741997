"""The console's catalogs are complete and current: every text extracted from its templates and
Python (as ``make catalogs`` extracts them, with ``babel.cfg``) has a Brazilian Portuguese
translation, each language's .po holds exactly those texts, and each compiled .mo says what its
.po says."""

from __future__ import annotations

from io import BytesIO, StringIO
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from pixweb.console.language import LANGUAGES, LOCALE_DIR

ROOT = Path(__file__).resolve().parents[3]
KEYWORDS = DEFAULT_KEYWORDS | {"noop": None}  # as `make catalogs` (pybabel's own, and -k noop)


def extracted() -> set[str | tuple[str, ...]]:
    method_map, options_map = parse_mapping_cfg(StringIO((ROOT / "babel.cfg").read_text()))
    found = extract_from_dir(ROOT, method_map, options_map, keywords=KEYWORDS)
    return {message if isinstance(message, str) else tuple(message) for _, _, message, _, _ in found}


def catalog(code: str) -> Catalog:
    with (LOCALE_DIR / code / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=code)


def test_texts_are_extracted_from_templates_and_python() -> None:
    texts = extracted()
    assert "Overview" in texts  # a template's
    assert "Type an amount in reais, as 42.90 or 1,234.56." in texts  # Python's, marked with noop
    assert ("%(num)s record", "%(num)s records") in texts  # a plural


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_each_catalog_holds_exactly_the_extracted_texts(code: str) -> None:
    ids = {message.id for message in catalog(code) if message.id}
    wanted = extracted()
    assert (sorted(map(str, ids - wanted)), sorted(map(str, wanted - ids))) == ([], []), "run `make catalogs`"


def test_every_text_has_a_portuguese_translation() -> None:
    untranslated = [
        message.id
        for message in catalog("pt_BR")
        if message.id and (not all(message.string) if message.pluralizable else not message.string)
    ]
    assert untranslated == []
    assert not [message.id for message in catalog("pt_BR") if message.id and message.fuzzy]


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_each_compiled_catalog_is_current_with_its_po(code: str) -> None:
    po = catalog(code)
    compiled = BytesIO()
    write_mo(compiled, po)
    with (LOCALE_DIR / code / "LC_MESSAGES" / "messages.mo").open("rb") as mo:
        committed = read_mo(mo)
    compiled.seek(0)
    fresh = read_mo(compiled)
    assert texts(committed) == texts(fresh), "run `make catalogs`"


def texts(compiled: Catalog) -> dict[object, object]:
    """Each text of a compiled catalog with its translation (a plural's as tuples)."""
    return {_key(m.id): _key(m.string) for m in compiled if m.id}


def _key(value: object) -> object:
    return tuple(value) if isinstance(value, list | tuple) else value
