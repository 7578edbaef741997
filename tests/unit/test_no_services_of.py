"""Handlers are handed what they need by name (``pixweb.dependencies``): no module that declares
route handlers reaches for the app's services through the request or the app's state."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
HANDLER = re.compile(r"^\s*@(get|post|put|patch|delete|route)\(", re.MULTILINE)
FORBIDDEN = re.compile(r"\bservices_of\b|state\.services\b|state\.get\(\s*[\"'](services|probe|supervisor)")


def test_no_handler_module_reaches_for_the_services() -> None:
    found = [
        f"{path.relative_to(SRC)}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)}"
        for path in sorted(SRC.rglob("*.py"))
        if HANDLER.search(text := path.read_text(encoding="utf-8"))
        for match in FORBIDDEN.finditer(text)
    ]
    assert found == []


def test_services_of_is_gone_everywhere() -> None:
    found = [
        str(path) for path in sorted(SRC.rglob("*.py")) if "services_of" in path.read_text(encoding="utf-8")
    ]
    assert found == []
