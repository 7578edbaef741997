"""The guide's examples run, its links resolve, and the embedding example needs no web stack."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[3]
DOCS = ROOT / "docs"
WEB_STACK = ("litestar", "msgspec", "asyncpg", "piccolo", "httpx", "uvicorn", "pixweb", "pixnotify")


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_embedding_example_runs_without_the_web_stack() -> None:
    [example] = python_blocks(DOCS / "embedding.md")
    check = (
        "\nimport sys\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {WEB_STACK!r})\n"
        "print('web modules:', loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", example + check], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("000201010212")  # the charge's dynamic BR Code
    assert "available 20.00" in lines
    assert "['RECEIVE', 'REFUND']" in lines
    assert lines[-1] == "web modules: []"


def test_every_relative_link_of_the_docs_resolves() -> None:
    pages = [*DOCS.rglob("*.md"), ROOT / "README.md"]
    checked = 0
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to a missing {target}"
            checked += 1
    assert checked >= 6
