"""The central bank's document as it publishes it (``tests/data/bcb-pix-api-openapi.yaml``, v2.9.0),
read the way JSON would hold it, and the same document with the fixes of its own defects
(:mod:`tests.conformance.defects`) applied: the only changes the conformance suite makes to it."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PUBLISHED = Path(__file__).parents[1] / "data" / "bcb-pix-api-openapi.yaml"


class _TextDates(yaml.SafeLoader):
    """YAML's safe loader without its timestamp rule: ``2020-09-09`` stays a string, as in JSON
    (an unquoted date of an example would otherwise become a ``datetime.date``)."""


_TextDates.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@cache
def _published() -> dict[str, Any]:
    document: dict[str, Any] = yaml.load(PUBLISHED.read_text(encoding="utf-8"), Loader=_TextDates)  # noqa: S506 - a safe loader
    return document


def published() -> dict[str, Any]:
    """The document as published (a copy: the caller may change it)."""
    return copy.deepcopy(_published())
