"""``POST /dict/pix``: send a PIX to a key (decisions §5)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.openapi.spec import OpenAPIType
from litestar.params import HeaderParameter, JSONBody

from pixcore.clock import format_timestamp
from pixcore.keys import MAX_KEY_LENGTH
from pixcore.money import cents_to_decimal
from pixcore.records import Transfer
from pixcore.transfers import MAX_DESCRIPTION, MAX_PAYMENT_FLOW, TransferRequest, parse_idempotency_key
from pixcore.usecases.transfers import create_transfer
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_DOCUMENT, MAX_ISPB, MAX_SHORT_CODE, raw, text_items
from pixweb.errors import error_responses
from pixweb.wire import PixResponse

__all__ = ["TransferController"]

IdempotencyHeader = Annotated[
    str,
    HeaderParameter(name="x-idempotency-key", required=True, description="UUID v4."),
]


class PaymentIn(msgspec.Struct):
    # Taken as decoded (not coerced: Litestar would turn "10.00" into a number): a JSON number
    # arrives as int or float, and pixcore.money accepts a float only when it is exactly the
    # nearest float to a centavos value (10.1 yes, 10.123 no). Anything else is a 400.
    amount: Annotated[Any, raw("JSON number, in reais, at most 2 decimals", kind=OpenAPIType.NUMBER)]
    currency: Annotated[str, msgspec.Meta(max_length=MAX_SHORT_CODE)] = "BRL"


IspbText = Annotated[str, msgspec.Meta(max_length=MAX_ISPB)]


class TransferIn(msgspec.Struct, rename="camel"):
    pix_key: Annotated[str, msgspec.Meta(max_length=MAX_KEY_LENGTH)]
    payment: PaymentIn
    creditor_document: Annotated[str, msgspec.Meta(max_length=MAX_DOCUMENT)] | None = None
    priority: Annotated[str, msgspec.Meta(max_length=MAX_SHORT_CODE)] | None = None
    description: Annotated[str, msgspec.Meta(max_length=MAX_DESCRIPTION)] | None = None
    expiration: int | None = None
    ispb_deny: Annotated[list[IspbText], text_items(MAX_ISPB)] | None = None
    payment_flow: Annotated[str, msgspec.Meta(max_length=MAX_PAYMENT_FLOW)] | None = None


class PaymentOut(msgspec.Struct):
    amount: Decimal


class TransferOut(msgspec.Struct, rename="camel"):
    end_to_end_id: str
    event_date: str
    id: int
    payment: PaymentOut
    type: str


def created_response(transfer: Transfer) -> TransferOut:
    """The creation response; a replay renders the very same body from the stored transfer."""
    return TransferOut(
        end_to_end_id=transfer.end_to_end_id,
        event_date=format_timestamp(transfer.created_at),
        id=transfer.transaction_id,
        payment=PaymentOut(amount=cents_to_decimal(transfer.amount)),
        type="PENDING",
    )


class TransferController(Controller):
    tags = ["Transfers"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/dict/pix",
        operation_id="createPixTransfer",
        responses=error_responses(400, 401, 413, 422),
        status_code=201,
        summary="Send a PIX to a key",
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[TransferIn],
        x_idempotency_key: IdempotencyHeader,
    ) -> Response[TransferOut]:
        services = services_of(request)
        key = parse_idempotency_key(x_idempotency_key)
        transfer_request = TransferRequest.parse(
            pix_key=data.pix_key,
            amount=data.payment.amount,
            currency=data.payment.currency,
            priority=data.priority,
            expiration=data.expiration,
            creditor_document=data.creditor_document,
            description=data.description,
            ispb_deny=data.ispb_deny,
            payment_flow=data.payment_flow,
        )
        created = await create_transfer(
            services.uow,
            services.directory,
            services.clock,
            account_id=principal_of(request).account_id,
            idempotency_key=key,
            request=transfer_request,
            ispb=services.settings.ispb,
            norm_delay=timedelta(seconds=services.settings.norm_delay_seconds),
        )
        return PixResponse(created_response(created.transfer), status_code=201)
