"""``POST /api/pix/cash-in``: a dynamic QR code to receive a payment."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.openapi.spec import OpenAPIType

from pixcore.charges.cob import (
    CASH_IN_EXPIRATION,
    MAX_ADDITIONAL_INFO,
    MAX_ADDITIONAL_INFO_KEY,
    MAX_ADDITIONAL_INFO_VALUE,
    MAX_CASH_IN_DESCRIPTION,
    MAX_EXTERNAL_ID,
    MAX_PAYER_NAME,
    CashInField,
    CashInRequest,
    Charge,
)
from pixcore.charges.cob_service import create_cash_in
from pixcore.clock import Clock, format_timestamp
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.validation import INVALID, Invalid
from pixinfra.due_terms import text, whole
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import DOCUMENT_PATTERN, MAX_DOCUMENT, Timestamp, doc, raw, string_map
from pixweb.api.schemas import WireStruct
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.field_paths import wire_paths
from pixweb.qr import png_base64
from pixweb.wire import PixResponse

__all__ = ["CashInController", "cash_in_request"]


class CashInTransactionIn(WireStruct):
    # Taken as decoded: pixcore.charges.cob.CashInRequest checks each type (no "10" for a number)
    # and each text's maximum (documented here: every text has a maximum).
    value: Annotated[
        Any,
        raw("JSON number, in reais, at most 2 decimals", kind=OpenAPIType.NUMBER),
        doc("Required. The amount in reais, above zero, at most 2 decimals.", example=49.9, amount=True),
    ] = None
    description: Annotated[
        Any,
        raw("shown to the payer", kind=OpenAPIType.STRING, max_length=MAX_CASH_IN_DESCRIPTION),
        doc("Required. Shown to the payer.", example="Order 2024-117", min_length=1),
    ] = None
    external_id: Annotated[
        Any,
        raw("unique per account", kind=OpenAPIType.STRING, max_length=MAX_EXTERNAL_ID),
        doc(
            "Required. The client's own id, unique per account (409 if taken).",
            example="order-2024-117",
            min_length=1,
        ),
    ] = None
    expiration_time: Annotated[
        Any,
        raw("seconds, 300 to 604800", kind=OpenAPIType.INTEGER),
        doc(
            f"Seconds the code is valid, {CASH_IN_EXPIRATION[0]} to {CASH_IN_EXPIRATION[1]}; default 86400.",
            minimum=CASH_IN_EXPIRATION[0],
            maximum=CASH_IN_EXPIRATION[1],
            example=3600,
        ),
    ] = None
    generate_qr_code: Annotated[
        Any,
        raw("true: the response has qrCodeImage", kind=OpenAPIType.BOOLEAN),
        doc("true: the response carries `qrCodeImage`, a PNG; default false.", example=True),
    ] = None


class CashInPayerIn(WireStruct):
    full_name: Annotated[
        Any,
        raw("the payer's name", kind=OpenAPIType.STRING, max_length=MAX_PAYER_NAME),
        doc("Required. The payer's name.", example="João Souza", min_length=1),
    ] = None
    document: Annotated[
        Any,
        raw("CPF (11) or CNPJ (14)", kind=OpenAPIType.STRING, max_length=MAX_DOCUMENT),
        doc(
            "Required. The payer's CPF (11 digits) or CNPJ (14).",
            pattern=DOCUMENT_PATTERN,
            example="52998224725",
        ),
    ] = None


class CashInIn(WireStruct):
    transaction: Annotated[
        CashInTransactionIn,
        doc("The charge.", required=["value", "description", "externalId"]),
    ]
    payer: Annotated[CashInPayerIn, doc("Who pays.", required=["fullName", "document"])]
    additional_info: Annotated[
        Any,
        string_map(
            "string values",
            max_items=MAX_ADDITIONAL_INFO,
            max_key=MAX_ADDITIONAL_INFO_KEY,
            max_value=MAX_ADDITIONAL_INFO_VALUE,
        ),
        doc(
            f"Up to {MAX_ADDITIONAL_INFO} name/value pairs (strings) kept with the charge.",
            example={"store": "Centro"},
        ),
    ] = None


CASH_IN_PATHS = wire_paths(
    {
        CashInField.AMOUNT: "transaction.value",
        CashInField.DESCRIPTION: "transaction.description",
        CashInField.EXTERNAL_ID: "transaction.externalId",
        CashInField.EXPIRATION: "transaction.expirationTime",
        CashInField.GENERATE_QR_CODE: "transaction.generateQrCode",
        CashInField.PAYER_NAME: "payer.fullName",
        CashInField.PAYER_DOCUMENT: "payer.document",
        CashInField.ADDITIONAL_INFO: "additionalInfo",
    }
)
"""Where :class:`CashInIn` carries the fields ``CashInRequest.parse`` names."""


def _flag(value: Any) -> bool | Invalid | None:
    if value is None or value is msgspec.UNSET:
        return None
    return value if isinstance(value, bool) else INVALID


def _string_map(value: Any) -> Mapping[str, str] | Invalid | None:
    if value is None or value is msgspec.UNSET:
        return None
    if isinstance(value, dict) and all(isinstance(item, str) for item in value.values()):
        return value
    return INVALID


def cash_in_request(body: CashInIn) -> CashInRequest:
    """The body under the domain's names, each leaf typed here (``INVALID`` when of another type;
    ``CashInRequest.parse`` refuses it with its field's rule); the amount as the number it was."""
    transaction, payer = body.transaction, body.payer
    return CashInRequest.parse(
        amount=transaction.value,
        description=text(transaction.description),
        external_id=text(transaction.external_id),
        expiration=whole(transaction.expiration_time),
        generate_qr_code=_flag(transaction.generate_qr_code),
        payer_name=text(payer.full_name),
        payer_document=text(payer.document),
        additional_info=_string_map(body.additional_info),
    )


judge_body(CashInIn, lambda body, _request: cash_in_request(body))


class CashInOut(WireStruct, omit_defaults=True):
    transaction_id: Annotated[str, doc("The transaction id (`GET /api/pix/transaction/{id}`).")]
    correlation_id: Annotated[str, doc("A UUID that names this cash-in in webhooks.")]
    external_id: Annotated[str, doc("The client's id, as given.")]
    status: Annotated[str, doc("PENDING until paid.")]
    pix_code: Annotated[str, doc("The BR Code (PIX copy-and-paste) the payer pays.")]
    generate_time: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    expiration_date: Annotated[Timestamp, doc("When the code stops being payable (UTC, ISO 8601).")]
    qr_code_image: Annotated[str, doc("The QR code as a base64 PNG; only with generateQrCode.")] | None = None


_CASH_IN = {
    "transaction": {
        "value": 49.9,
        "description": "Order 2024-117",
        "externalId": "order-2024-117",
        "expirationTime": 3600,
        "generateQrCode": False,
    },
    "payer": {"fullName": "João Souza", "document": "52998224725"},
    "additionalInfo": {"store": "Centro"},
}
_CASH_IN_OUT = {
    "transactionId": "2048",
    "correlationId": "6f2d8a41-93c5-4b7e-a0f1-5c3e9d2b7a18",
    "externalId": "order-2024-117",
    "status": "PENDING",
    "pixCode": (
        "00020101021226850014br.gov.bcb.pix2563pix.example.com/qr/v2/8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e"
        "520400005303986540549.905802BR5913PIX Account6009SAO PAULO62070503***6304A1B2"
    ),
    "generateTime": "2026-03-15T14:32:08.125Z",
    "expirationDate": "2026-03-15T15:32:08.125Z",
}


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
        responses=answer(201, CashInOut, "The QR code to pay", _CASH_IN_OUT)
        | error_responses(400, 401, 409, 413),
        status_code=201,
        summary="Create a cash-in QR code",
        description=(
            "A dynamic PIX QR code (BR Code) for a payer to pay into this account; a webhook tells"
            " when it is paid. 400 lists every broken rule at once; 409: the `externalId` is taken."
        ),
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[CashInIn, json_body("The charge and its payer.", _CASH_IN)],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CashInOut]:
        cash_in = cash_in_request(data)
        charge = await create_cash_in(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            request=cash_in,
            location_prefix=settings.location_prefix,
        )
        body = cash_in_out(charge, status="PENDING", image=cash_in.generate_qr_code)
        return PixResponse(body, status_code=201)
