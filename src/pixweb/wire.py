"""Wire conventions shared by every route (decisions §1).

Money leaves the service as ``Decimal`` (``pixcore.money.cents_to_decimal``) and
is written as a JSON number with its two decimals (``10.50``), never through a
float. Timestamps are strings
made by ``pixcore.clock.format_timestamp``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response
from litestar.response.base import MEDIA_TYPE_APPLICATION_JSON_PATTERN
from litestar.serialization import default_serializer

__all__ = ["PixResponse"]

_ENCODER = msgspec.json.Encoder(enc_hook=default_serializer, decimal_format="number")


class PixResponse(Response[Any]):
    """Litestar's response, but ``Decimal`` is encoded as a JSON number, exactly."""

    def render(self, content: Any, media_type: str, enc_hook: Any = default_serializer) -> bytes:
        if not isinstance(content, bytes | str) and MEDIA_TYPE_APPLICATION_JSON_PATTERN.match(media_type):
            return _ENCODER.encode(content)
        return super().render(content, media_type, enc_hook)
