"""The standard's document as the standard's face serves it: the central bank's, as published."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from pixweb.standard.document import standard_document

_SPEC = importlib.util.spec_from_file_location(
    "standard_document_tool", Path(__file__).parents[3] / "tools" / "standard_document.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
TOOL: Any = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(TOOL)


def test_the_packaged_document_is_the_published_yaml() -> None:
    assert json.loads(Path(TOOL.TARGET).read_text(encoding="utf-8")) == TOOL.published()


def test_it_points_at_this_service() -> None:
    document = standard_document("https://pix.example.net", "/bcb/v2")
    assert document["servers"] == [{"url": "https://pix.example.net/bcb/v2", "description": "This service"}]
    payload = document["paths"]["/cobv/{pixUrlAccessToken}"]["get"]["servers"]
    assert payload[0]["url"] == "https://pix.example.net/qr/v2"
    assert document["paths"].keys() == TOOL.published()["paths"].keys()
    assert document["info"]["version"] == "2.9.0"
