"""pixcore is framework-free: importing all of it pulls in no web, database or HTTP library."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = [
    "aiohttp",
    "asyncpg",
    "fastapi",
    "httpx",
    "jwt",
    "litestar",
    "msgspec",
    "piccolo",
    "requests",
    "sqlalchemy",
    "starlette",
    "tenacity",
    "uvicorn",
]

SCRIPT = """
import json, pkgutil, sys, importlib
import pixcore
imported = ["pixcore"]
for module in pkgutil.walk_packages(pixcore.__path__, "pixcore."):
    importlib.import_module(module.name)
    imported.append(module.name)
forbidden = set(json.loads(sys.argv[1]))
loaded = sorted({name.split(".")[0] for name in sys.modules} & forbidden)
print(json.dumps({"imported": imported, "loaded": loaded}))
"""


def test_pixcore_imports_no_framework() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(FORBIDDEN)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {"pixcore.errors", "pixcore.money", "pixcore.documents", "pixcore.keys"} <= set(report["imported"])
    assert report["loaded"] == []
