"""Wire conventions shared by every route (decisions §1).

Money leaves the service as ``Decimal`` (``pixcore.money.cents_to_decimal``) and
is written as a JSON number with its two decimals (``10.50``), never through a
float. Timestamps are strings
made by ``pixcore.clock.format_timestamp``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec
from litestar import Response
from litestar.openapi.spec import OpenAPIType, Schema
from litestar.plugins import OpenAPISchemaPlugin
from litestar.response.base import MEDIA_TYPE_APPLICATION_JSON_PATTERN
from litestar.serialization import default_serializer
from litestar.typing import FieldDefinition

__all__ = ["DecimalAsNumber", "PixResponse"]

_ENCODER = msgspec.json.Encoder(enc_hook=default_serializer, decimal_format="number")


class PixResponse(Response[Any]):
    """Litestar's response, but ``Decimal`` is encoded as a JSON number, exactly."""

    def render(self, content: Any, media_type: str, enc_hook: Any = default_serializer) -> bytes:
        if not isinstance(content, bytes | str) and MEDIA_TYPE_APPLICATION_JSON_PATTERN.match(media_type):
            return _ENCODER.encode(content)
        return super().render(content, media_type, enc_hook)


class DecimalAsNumber(OpenAPISchemaPlugin):
    """The OpenAPI document types ``Decimal`` as the number it is on the wire (Litestar's default
    says string, which is msgspec's default encoding, not ours)."""

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        return value is Decimal

    def to_openapi_schema(
        self,
        field_definition: FieldDefinition,  # noqa: ARG002 - the plugin protocol's signature
        schema_creator: Any,  # noqa: ARG002
    ) -> Schema:
        return Schema(type=OpenAPIType.NUMBER)
