"""No pointer to a tracker issue ("issue 17", "(issue 20, item 3)") or to a section of the product
decisions by number ("decisions §13", "decisions 13") in the sources, tests or docs: such a number
means nothing to a reader. Say the rule, or link its record under docs/decisions/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
POINTER = re.compile(r"\bissues? \d+|\bdecisions(?:\.md)?,? (?:§ ?|section )?\d+", re.IGNORECASE)
SCANNED = ("src", "tests", "docs", "bench")
SUFFIXES = {".py", ".md", ".toml", ".txt", ".sql", ".html", ".js", ".ts", ".yaml", ".yml", ".cfg"}


def offenders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    files = [ROOT / name for name in ("Makefile", "README.md", "pyproject.toml")]
    for folder in SCANNED:
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in SUFFIXES]
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if path == Path(__file__).resolve() or "/node_modules/" in rel or "/axe/" in rel:
            continue
        hits = POINTER.findall(path.read_text(encoding="utf-8", errors="replace"))
        if hits:
            found[rel] = hits
    return found


def test_no_issue_or_section_pointer() -> None:
    unexpected = offenders()
    assert not unexpected, f"say the rule or link docs/decisions/ instead: {unexpected}"


def test_the_pattern_finds_each_form() -> None:
    for text in (
        "see issue 17",
        "(Issue 20, item 3)",
        "decisions §13",
        "decisions 13",
        "decisions section 7",
    ):
        assert POINTER.search(text), text
    for text in ("RFC 6749 §5.2", "the issue named", "docs/decisions/ledger.md"):
        assert not POINTER.search(text), text
