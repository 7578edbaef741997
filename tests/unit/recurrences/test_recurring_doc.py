"""docs/recurring.md's Python example runs as written (on the in-memory fakes)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).parents[3] / "docs" / "recurring.md"


def test_the_python_example_of_the_page_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    # A process of its own: the example runs its own event loop (asyncio.run), as a reader's would.
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
