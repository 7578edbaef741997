"""Every setting the code reads is in the settings table of docs/operations.md, with a default."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[3]
NOT_SETTINGS = {"PIX_GUI", "PIX_KEY_TOTAL_CAP"}  # constants whose names start with PIX_, not variables


def test_every_environment_variable_is_documented_with_its_default() -> None:
    read = set()
    for path in (ROOT / "src").rglob("*.py"):
        read |= set(re.findall(r'"(PIX_[A-Z_]+)"', path.read_text(encoding="utf-8")))
    read -= NOT_SETTINGS
    table = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(PIX_[A-Z_]+)` \| ([^|]+) \|", table, flags=re.MULTILINE))
    assert len(read) >= 25
    assert sorted(read - rows.keys()) == []
    assert all(default.strip() for default in rows.values())
