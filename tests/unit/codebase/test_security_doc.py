"""docs/security.md names a test for every threat: each file and test it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "security.md"
NAMED = re.compile(r"`(tests/[\w/]+\.py)((?:::[\w\[\]/.-]+)?)`")
ALSO = re.compile(r"`::(\w+)`")


def test_every_test_named_in_the_security_doc_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = 0
    for line in text.splitlines():
        last: Path | None = None
        for match in NAMED.finditer(line):
            path = ROOT / match.group(1)
            assert path.exists(), f"docs/security.md names {match.group(1)}, which does not exist"
            last = path
            test = match.group(2).removeprefix("::").split("[")[0]
            if test:
                assert f"def {test}(" in path.read_text(encoding="utf-8"), f"no {test} in {path.name}"
            named += 1
        # `::other_test` after a file names another test of that file
        for extra in ALSO.finditer(line):
            assert last is not None, line
            assert f"def {extra.group(1)}(" in last.read_text(encoding="utf-8"), extra.group(1)
    assert named >= 25
