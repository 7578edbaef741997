"""``POST /api/pix/cash-in``: a dynamic QR code to receive a payment (decisions §6)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.openapi.spec import OpenAPIType
from litestar.params import JSONBody

from pixcore.charges import (
    MAX_ADDITIONAL_INFO,
    MAX_ADDITIONAL_INFO_KEY,
    MAX_ADDITIONAL_INFO_VALUE,
    MAX_CASH_IN_DESCRIPTION,
    MAX_EXTERNAL_ID,
    MAX_PAYER_NAME,
    CashInRequest,
    Charge,
)
from pixcore.clock import format_timestamp
from pixcore.usecases.charges import create_cash_in
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_DOCUMENT, raw, string_map
from pixweb.errors import error_responses
from pixweb.qr import png_base64
from pixweb.wire import PixResponse

__all__ = ["CashInController", "cash_in_request"]


class CashInTransactionIn(msgspec.Struct, rename="camel"):
    # Taken as decoded: pixcore.charges.CashInRequest checks each type (no "10" for a number)
    # and each text's maximum (documented here, decisions §13).
    value: Annotated[Any, raw("JSON number, in reais, at most 2 decimals", kind=OpenAPIType.NUMBER)] = None
    description: Annotated[
        Any, raw("shown to the payer", kind=OpenAPIType.STRING, max_length=MAX_CASH_IN_DESCRIPTION)
    ] = None
    external_id: Annotated[
        Any, raw("unique per account", kind=OpenAPIType.STRING, max_length=MAX_EXTERNAL_ID)
    ] = None
    expiration_time: Annotated[Any, raw("seconds, 300 to 604800", kind=OpenAPIType.INTEGER)] = None
    generate_qr_code: Annotated[Any, raw("true: the response has qrCodeImage", kind=OpenAPIType.BOOLEAN)] = (
        None
    )


class CashInPayerIn(msgspec.Struct, rename="camel"):
    full_name: Annotated[Any, raw("the payer's name", kind=OpenAPIType.STRING, max_length=MAX_PAYER_NAME)] = (
        None
    )
    document: Annotated[
        Any, raw("CPF (11) or CNPJ (14)", kind=OpenAPIType.STRING, max_length=MAX_DOCUMENT)
    ] = None


class CashInIn(msgspec.Struct, rename="camel"):
    transaction: CashInTransactionIn
    payer: CashInPayerIn
    additional_info: Annotated[
        Any,
        string_map(
            "string values",
            max_items=MAX_ADDITIONAL_INFO,
            max_key=MAX_ADDITIONAL_INFO_KEY,
            max_value=MAX_ADDITIONAL_INFO_VALUE,
        ),
    ] = None


def cash_in_request(body: CashInIn) -> CashInRequest:
    """The body under the domain's names, each leaf as decoded (``CashInRequest.parse`` judges it)."""
    transaction, payer = body.transaction, body.payer
    return CashInRequest.parse(
        amount=transaction.value,
        description=transaction.description,
        external_id=transaction.external_id,
        expiration=transaction.expiration_time,
        generate_qr_code=transaction.generate_qr_code,
        payer_name=payer.full_name,
        payer_document=payer.document,
        additional_info=body.additional_info,
    )


class CashInOut(msgspec.Struct, rename="camel", omit_defaults=True):
    transaction_id: str
    correlation_id: str
    external_id: str
    status: str
    pix_code: str
    generate_time: str
    expiration_date: str
    qr_code_image: str | None = None


def cash_in_out(charge: Charge, *, status: str, image: bool) -> CashInOut:
    return CashInOut(
        transaction_id=str(charge.transaction_id),
        correlation_id=str(charge.correlation_id),
        external_id=charge.external_id or "",
        status=status,
        pix_code=charge.br_code,
        generate_time=format_timestamp(charge.created_at),
        expiration_date=format_timestamp(charge.created_at + timedelta(seconds=charge.expiration)),
        qr_code_image=png_base64(charge.br_code) if image else None,
    )


class CashInController(Controller):
    tags = ["Cash-in"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/api/pix/cash-in",
        operation_id="createCashIn",
        responses=error_responses(400, 401, 409, 413),
        status_code=201,
        summary="Create a cash-in QR code",
    )
    async def create(self, request: Request[Any, Any, Any], data: JSONBody[CashInIn]) -> Response[CashInOut]:
        services = services_of(request)
        cash_in = cash_in_request(data)
        charge = await create_cash_in(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            request=cash_in,
            location_prefix=services.settings.location_prefix,
        )
        body = cash_in_out(charge, status="PENDING", image=cash_in.generate_qr_code)
        return PixResponse(body, status_code=201)
