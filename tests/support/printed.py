"""What a command printed, read back."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_values"]


def json_values(text: str) -> list[dict[str, Any]]:
    """Every JSON object ``text`` holds, in order (some printed without a newline after them)."""
    decoder, values, index = json.JSONDecoder(), [], 0
    while (index := text.find("{", index)) != -1:
        value, index = decoder.raw_decode(text, index)
        values.append(value)
    return values
