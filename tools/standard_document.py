"""Writes ``src/pixweb/standard/bcb-pix-api-openapi.json`` from the central bank's document as
published (``tests/data/bcb-pix-api-openapi.yaml``): the same document in JSON, every date and
date-time left as the text it is (YAML would read an unquoted one as a date).

    .venv/bin/python tools/standard_document.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests/data/bcb-pix-api-openapi.yaml"
TARGET = ROOT / "src/pixweb/standard/bcb-pix-api-openapi.json"


class _TextDates(yaml.SafeLoader):
    """YAML's safe loader without its timestamp rule: ``2020-09-09`` stays a string, as in JSON."""


_TextDates.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def published() -> Any:
    """The central bank's document, as JSON would hold it."""
    return yaml.load(SOURCE.read_text(encoding="utf-8"), Loader=_TextDates)  # noqa: S506 - a safe loader


def main() -> None:
    TARGET.write_text(json.dumps(published(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
