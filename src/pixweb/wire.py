"""Wire conventions shared by every route.

Money leaves the service as ``Decimal`` (``pixcore.money.cents_to_decimal``) and
is written as a JSON number with its two decimals (``10.50``), never through a
float. Money comes in the same way: :class:`PixRequest` reads a JSON body with every
number that has a fraction or an exponent as the exact ``Decimal`` of its text
(``1.99999999999999999999`` stays that, it is not rounded to the float ``2.0``),
so that ``pixcore.money`` judges the digits the client sent. Timestamps are strings
made by ``pixcore.clock.format_timestamp``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

import msgspec
from litestar import Request, Response
from litestar.exceptions import SerializationException
from litestar.openapi.spec import OpenAPIFormat, OpenAPIType, Schema
from litestar.plugins import OpenAPISchemaPlugin
from litestar.response.base import MEDIA_TYPE_APPLICATION_JSON_PATTERN
from litestar.serialization import default_serializer
from litestar.typing import FieldDefinition

from pixweb.api.fields import MONEY_FORMAT, MONEY_NUMBER
from pixweb.api.structs import body_struct
from pixweb.standard.bodies import standard_body
from pixweb.standard.face import on_standard_face

__all__ = ["DecimalAsNumber", "PixRequest", "PixResponse", "decode_body", "encode_json"]

_ENCODER = msgspec.json.Encoder(enc_hook=default_serializer, decimal_format="number")


def _number(text: str) -> Decimal | int:
    """A JSON number with a fraction or an exponent: the ``int`` of a whole one below 10**19
    (``618.0``, ``1e2``: an integer field takes it, as it took the float), else the exact
    ``Decimal`` of its text (a bigger one stays a ``Decimal``: no huge integer is built)."""
    value = Decimal(text)
    if value.adjusted() < 19 and value == value.to_integral_value():
        return int(value)
    return value


_BODY = msgspec.json.Decoder(float_hook=_number)  # never a float


def decode_body(body: bytes) -> Any:
    """A JSON request body, untyped: a number is an ``int`` when whole (below 10**19), else the exact
    ``Decimal`` of its text, never a float. ``msgspec.DecodeError`` when it is not JSON."""
    return _BODY.decode(body)


def encode_json(value: Any) -> bytes:
    """JSON of ``value``, a ``Decimal`` as the number it is (what :func:`decode_body` read back)."""
    return _ENCODER.encode(value)


class PixRequest(Request[Any, Any, Any]):
    """Litestar's request, but its JSON body is read by :func:`decode_body`: no amount sent as a
    JSON number goes through a float on its way to the handler's struct. On the standard's face
    it is read as the standard's document reads it (:func:`pixweb.standard.bodies.standard_body`)."""

    async def json(self) -> Any:
        body = await self.body()
        try:
            value = decode_body(body or b"null")
        except msgspec.DecodeError as exc:  # as Litestar's own decode_json answers it
            raise SerializationException(str(exc)) from exc
        struct = body_struct(self.scope) if on_standard_face(self.scope) else None
        return value if struct is None else standard_body(value, struct)


class PixResponse(Response[Any]):
    """Litestar's response, but ``Decimal`` is encoded as a JSON number, exactly."""

    def render(self, content: Any, media_type: str, enc_hook: Any = default_serializer) -> bytes:
        if not isinstance(content, bytes | str) and MEDIA_TYPE_APPLICATION_JSON_PATTERN.match(media_type):
            return _ENCODER.encode(content)
        return super().render(content, media_type, enc_hook)


class DecimalAsNumber(OpenAPISchemaPlugin):
    """The OpenAPI document types ``Decimal`` as the number it is on the wire (Litestar's default
    says string, which is msgspec's default encoding, not ours): every ``Decimal`` of an answer is
    money, a number of hundredths (``pixweb.api.fields.MONEY_NUMBER``)."""

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        return value is Decimal

    def to_openapi_schema(
        self,
        field_definition: FieldDefinition,  # noqa: ARG002 - the plugin protocol's signature
        schema_creator: Any,  # noqa: ARG002
    ) -> Schema:
        # Litestar's enumeration of formats has no "decimal"; the document writes the text as is.
        return Schema(
            type=OpenAPIType.NUMBER,
            multiple_of=MONEY_NUMBER["multipleOf"],
            format=cast("OpenAPIFormat", MONEY_FORMAT),
        )
