"""``POST /dict/pix``: send a PIX to a key."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import HeaderParameter

from pixcore.clock import format_timestamp
from pixcore.group_commit.transfers import TransferGroupCommit
from pixcore.identifiers import END_TO_END_ID_PATTERN, ISPB_PATTERN
from pixcore.keys import KEY_PATTERN, MAX_KEY_LENGTH
from pixcore.money import cents_to_decimal
from pixcore.records import Transfer
from pixcore.transfers.rules import (
    MAX_DESCRIPTION,
    MAX_EXPIRATION,
    MAX_PAYMENT_FLOW,
    UUID4_PATTERN,
    Priority,
    TransferField,
    TransferRequest,
    parse_idempotency_key,
)
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import (
    DOCUMENT_PATTERN,
    MAX_DOCUMENT,
    MAX_ISPB,
    MAX_SHORT_CODE,
    Int64,
    Timestamp,
    doc,
    raw,
    text_items,
    whole,
)
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.field_paths import wire_paths
from pixweb.security.certificates import x5t_to_fingerprint
from pixweb.security.pending import hand_pending_credential
from pixweb.wire import PixResponse

__all__ = ["TransferController", "transfer_request"]

IdempotencyHeader = Annotated[
    str,
    HeaderParameter(
        name="x-idempotency-key",
        required=True,
        description=(
            "A UUID v4 of the client's, one per transfer: the same key again (within 24 hours) answers"
            " the first transfer, not a second one."
        ),
        pattern=None,
        schema_extra={"pattern": whole(UUID4_PATTERN)},
        examples=[Example(value="3f1c9b2e-7a4d-4e8f-9b6a-2c5d8e1f0a7b")],
    ),
]


class TransferPaymentIn(msgspec.Struct):
    # Taken as decoded (not coerced: Litestar would turn "10.00" into a number): a JSON number
    # arrives as an int or the exact Decimal of its text (pixweb.wire.PixRequest), never a float,
    # and pixcore.money refuses it with more than 2 decimals (10.1 yes, 10.123 and
    # 1.99999999999999999999 no). Anything else is a 400.
    amount: Annotated[
        Any,
        raw("JSON number, in reais, at most 2 decimals", kind=OpenAPIType.NUMBER),
        doc("The amount in reais, above zero, at most 2 decimals.", example=150.25, amount=True),
    ]
    currency: Annotated[
        str, msgspec.Meta(max_length=MAX_SHORT_CODE), doc("Only BRL.", enum=["BRL"], example="BRL")
    ] = "BRL"


IspbText = Annotated[str, msgspec.Meta(max_length=MAX_ISPB)]


class TransferIn(msgspec.Struct, rename="camel"):
    pix_key: Annotated[
        str,
        msgspec.Meta(max_length=MAX_KEY_LENGTH),
        doc(
            "The receiver's PIX key: CPF (11 digits), CNPJ (14), phone (+55 and 10 or 11 digits),"
            " e-mail or random key (EVP, a lower-case UUID).",
            pattern=KEY_PATTERN,
            example="maria.silva@example.com",
        ),
    ]
    payment: Annotated[TransferPaymentIn, doc("How much.")]
    creditor_document: (
        Annotated[
            str,
            msgspec.Meta(max_length=MAX_DOCUMENT),
            doc(
                "The receiver's CPF or CNPJ, checked against the key's owner; required if priority is HIGH.",
                pattern=DOCUMENT_PATTERN,
            ),
        ]
        | None
    ) = None
    priority: (
        Annotated[
            str,
            msgspec.Meta(max_length=MAX_SHORT_CODE),
            doc(
                "HIGH settles at once; NORM (the default) after the norm delay.",
                enum=[*(level.value for level in Priority), None],
                example="NORM",
            ),
        ]
        | None
    ) = None
    description: (
        Annotated[
            str,
            msgspec.Meta(max_length=MAX_DESCRIPTION),
            doc("A message to the receiver.", example="Rent, March"),
        ]
        | None
    ) = None
    expiration: (
        Annotated[
            int,
            doc(
                f"Seconds the transfer may wait to settle, 1 to {MAX_EXPIRATION}.",
                minimum=1,
                maximum=MAX_EXPIRATION,
            ),
        ]
        | None
    ) = None
    ispb_deny: (
        Annotated[
            list[IspbText],
            text_items(MAX_ISPB),
            doc("Institutions (ISPB, 8 digits) the receiver's account must not be at."),
            msgspec.Meta(extra_json_schema={"extra": {"items": {"pattern": whole(ISPB_PATTERN)}}}),
        ]
        | None
    ) = None
    payment_flow: (
        Annotated[
            str,
            msgspec.Meta(max_length=MAX_PAYMENT_FLOW),
            doc("A free label of the client's, kept with the transfer."),
        ]
        | None
    ) = None


TRANSFER_PATHS = wire_paths(
    {
        TransferField.KEY: "pixKey",
        TransferField.AMOUNT: "payment.amount",
        TransferField.CURRENCY: "payment.currency",
        TransferField.PRIORITY: "priority",
        TransferField.EXPIRATION: "expiration",
        TransferField.CREDITOR_DOCUMENT: "creditorDocument",
        TransferField.DESCRIPTION: "description",
        TransferField.PAYMENT_FLOW: "paymentFlow",
        TransferField.DENIED_INSTITUTIONS: "ispbDeny",
        TransferField.IDEMPOTENCY_KEY: "x-idempotency-key",
    }
)
"""Where :class:`TransferIn` carries the fields ``TransferRequest.parse`` names."""


def transfer_request(body: TransferIn) -> TransferRequest:
    """The body under the domain's names (``TransferRequest.parse`` judges it, every rule at once)."""
    return TransferRequest.parse(
        pix_key=body.pix_key,
        amount=body.payment.amount,
        currency=body.payment.currency,
        priority=body.priority,
        expiration=body.expiration,
        creditor_document=body.creditor_document,
        description=body.description,
        ispb_deny=body.ispb_deny,
        payment_flow=body.payment_flow,
    )


judge_body(TransferIn, lambda body, _request: transfer_request(body))


class TransferPaymentOut(msgspec.Struct):
    amount: Annotated[Decimal, doc("In reais.")]


class TransferOut(msgspec.Struct, rename="camel"):
    end_to_end_id: Annotated[str, doc("The PIX's end-to-end id.", pattern=END_TO_END_ID_PATTERN)]
    event_date: Annotated[Timestamp, doc("When it was accepted (UTC, ISO 8601).")]
    id: Annotated[Int64, doc("The transaction id (`GET /api/pix/transaction/{id}`).")]
    payment: TransferPaymentOut
    type: Annotated[str, doc("Always PENDING: settlement follows (a webhook tells).")]


_TRANSFER_IN = {
    "pixKey": "maria.silva@example.com",
    "payment": {"amount": 150.25, "currency": "BRL"},
    "priority": "NORM",
    "description": "Rent, March",
}
_TRANSFER_OUT = {
    "endToEndId": "E12345678202603151432aB3dE5fG7hJ",
    "eventDate": "2026-03-15T14:32:08.125Z",
    "id": 1042,
    "payment": {"amount": 150.25},
    "type": "PENDING",
}


def created_response(transfer: Transfer) -> TransferOut:
    """The creation response; a replay renders the very same body from the stored transfer."""
    return TransferOut(
        end_to_end_id=transfer.end_to_end_id,
        event_date=format_timestamp(transfer.created_at),
        id=transfer.transaction_id,
        payment=TransferPaymentOut(amount=cents_to_decimal(transfer.amount)),
        type="PENDING",
    )


class TransferController(Controller):
    tags = ["Transfers"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/dict/pix",
        operation_id="createPixTransfer",
        responses=answer(201, TransferOut, "Accepted: the transfer settles later", _TRANSFER_OUT)
        | error_responses(400, 401, 413, 422),
        status_code=201,
        summary="Send a PIX to a key",
        description=(
            "Debits the account at once (the amount is held) and sends the PIX to the key's account;"
            " it settles after the norm delay (priority NORM) or at once (HIGH), and a webhook tells"
            " the outcome. The `x-idempotency-key` header makes a retry safe. 400: a rule of the"
            " body (all listed in `details`); 422: the balance does not cover it, the key is"
            " unknown or the receiver refused it."
        ),
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[TransferIn, json_body("The transfer.", _TRANSFER_IN)],
        x_idempotency_key: IdempotencyHeader,
        *,
        transfers: Injected[TransferGroupCommit],
    ) -> Response[TransferOut]:
        principal = principal_of(request)
        key = parse_idempotency_key(x_idempotency_key)
        created = await transfers.create(
            account_id=principal.account_id,
            idempotency_key=key,
            request=transfer_request(data),
            credential=hand_pending_credential(
                request.scope, principal.account_id, x5t_to_fingerprint(principal.fingerprint)
            ),
        )
        return PixResponse(created_response(created.transfer), status_code=201)
