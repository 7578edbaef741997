"""Refunds: ``PUT/GET /pix/{e2eid}/devolucao/{id}``."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, put
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter

from pixcore.clock import Clock, format_timestamp
from pixcore.identifiers import E2EID_PATH_PATTERN, REFUND_ID_PATTERN, IdentifierField
from pixcore.money import AMOUNT_STRING_PATTERN, format_amount_string
from pixcore.refunds.refund_service import get_refund, request_refund
from pixcore.refunds.rules import (
    MAX_DESCRIPTION,
    REQUESTABLE,
    Refund,
    RefundField,
    RefundRequest,
    RefundStatus,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import (
    MAX_AMOUNT_TEXT,
    MAX_SHORT_CODE,
    MaybeTimestamp,
    MoneyText,
    Timestamp,
    doc,
    raw,
    whole,
)
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.field_paths import wire_paths
from pixweb.standard import on_standard_face
from pixweb.wire import PixResponse

__all__ = ["RefundController", "refund_out", "refund_request"]

_STRING = OpenAPIType.STRING


class RefundIn(msgspec.Struct):
    # Taken as decoded: "10.00" must be a string (a number is a 400), checked by RefundRequest,
    # with each text's maximum (documented here: every text has a maximum).
    valor: Annotated[
        Any,
        raw('a string with 2 decimals, "10.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT),
        doc(
            'Required. The amount to return in reais, a string with 2 decimals ("10.00"), above zero;'
            " at most what is left of the PIX.",
            pattern=AMOUNT_STRING_PATTERN,
            example="12.00",
        ),
    ] = None
    natureza: Annotated[
        Any,
        raw("ORIGINAL (default) or RETIRADA", kind=_STRING, max_length=MAX_SHORT_CODE),
        doc(
            "ORIGINAL (the default): a refund of the PIX; RETIRADA: of a withdrawal.",
            enum=[nature.value for nature in REQUESTABLE],
            example="ORIGINAL",
        ),
    ] = None
    descricao: Annotated[
        Any,
        raw("shown to the payer", kind=_STRING, max_length=MAX_DESCRIPTION),
        doc("A message to the payer.", example="Item out of stock"),
    ] = None


REFUND_PATHS = wire_paths(
    {RefundField.AMOUNT: "valor", RefundField.NATURE: "natureza", RefundField.DESCRIPTION: "descricao"}
)
"""Where :class:`RefundIn` carries the fields ``RefundRequest.parse`` names."""

IDENTIFIER_PATHS = wire_paths(
    {IdentifierField.END_TO_END_ID: "endToEndId", IdentifierField.RETURN_ID: "rtrId"}
)
"""The wire's names of the identifiers a refund carries (:class:`RefundOut`'s), which the
identifiers' rules name by reference."""


def refund_request(body: RefundIn) -> RefundRequest:
    """The body under the domain's names, each leaf as decoded (``RefundRequest.parse`` judges it)."""
    return RefundRequest.parse(amount=body.valor, nature=body.natureza, description=body.descricao)


judge_body(RefundIn, lambda body, _request: refund_request(body))


class HorarioOut(msgspec.Struct, omit_defaults=True):
    solicitacao: Annotated[Timestamp, doc("When it was asked for (UTC, ISO 8601).")]
    liquidacao: Annotated[MaybeTimestamp, doc("When it settled (DEVOLVIDO only).")] = None


class RefundOut(msgspec.Struct, rename="camel", omit_defaults=True):
    id: Annotated[str, doc("The refund's id, the client's.")]
    rtr_id: Annotated[str, doc("The return id (D + ISPB + yyyyMMddHHmm + 11 characters).")]
    valor: Annotated[MoneyText, doc("The amount in reais, 2 decimals.")]
    natureza: Annotated[str, doc("ORIGINAL or RETIRADA.")]
    horario: HorarioOut
    status: Annotated[str, doc("EM_PROCESSAMENTO, then DEVOLVIDO or NAO_REALIZADO.")]
    descricao: Annotated[str, doc("The message to the payer.")] | None = None
    motivo: Annotated[str, doc("Why it was not made (NAO_REALIZADO).")] | None = None


E2eId = Annotated[
    str,
    Parameter(
        description="The end-to-end id of the PIX received: 32 letters and digits.",
        schema_extra={"pattern": whole(E2EID_PATH_PATTERN)},
        examples=[Example(value="E98765432202603151440xY7wV5uT3sR")],
    ),
]
RefundId = Annotated[
    str,
    Parameter(
        description="The refund's id, chosen by the client: 1 to 35 letters and digits.",
        schema_extra={"pattern": whole(REFUND_ID_PATTERN)},
        examples=[Example(value="refund01")],
    ),
]
_REFUND_OUT: dict[str, Any] = {
    "id": "refund01",
    "rtrId": "D12345678202603151502kL9mN8bV7cX",
    "valor": "12.00",
    "natureza": "ORIGINAL",
    "horario": {"solicitacao": "2026-03-15T15:02:11.402Z"},
    "status": "EM_PROCESSAMENTO",
    "descricao": "Item out of stock",
}


def refund_out(refund: Refund) -> RefundOut:
    settled = refund.status is RefundStatus.DEVOLVIDO and refund.finished_at is not None
    return RefundOut(
        id=refund.refund_id,
        rtr_id=refund.rtr_id,
        valor=format_amount_string(refund.amount),
        natureza=refund.nature.value,
        horario=HorarioOut(
            solicitacao=format_timestamp(refund.requested_at),
            liquidacao=format_timestamp(refund.finished_at) if settled and refund.finished_at else None,
        ),
        status=refund.status.value,
        descricao=refund.description,
        motivo=refund.reason,
    )


class RefundController(Controller):
    path = "/pix/{e2eid:str}/devolucao"
    tags = ["Refunds"]  # noqa: RUF012 - Litestar reads class attributes

    @put(
        "/{refund_id:str}",
        operation_id="requestRefund",
        responses=answer(201, RefundOut, "Asked for: it settles later", _REFUND_OUT)
        | answer(200, RefundOut, "The same refund, asked for again", _REFUND_OUT)
        | error_responses(400, 401, 404, 409, 413, 422),
        status_code=201,
        summary="Refund (part of) a received PIX",
        description=(
            "Returns money of a PIX this account received, under the client's own refund id; it"
            " settles later (a webhook tells). 201 when created; 200 when the same id and body were"
            " sent before (the same refund); 409: the id is taken by another body. 422: more than"
            " is left of the PIX, or past the 89-day window."
        ),
    )
    async def request(
        self,
        request: Request[Any, Any, Any],
        e2eid: E2eId,
        refund_id: RefundId,
        data: Annotated[
            RefundIn,
            json_body(
                "The refund.",
                {"valor": "12.00", "natureza": "ORIGINAL", "descricao": "Item out of stock"},
                required=["valor"],
            ),
        ],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RefundOut]:
        requested = await request_refund(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            end_to_end_id=e2eid,
            refund_id=refund_id,
            request=refund_request(data),
            ispb=settings.ispb,
            delay=timedelta(seconds=settings.norm_delay_seconds),
        )
        # The same refund asked again: ours says 200 (nothing was made); the standard has 201 only.
        again = 201 if on_standard_face(request.scope) else 200
        return PixResponse(refund_out(requested.refund), status_code=201 if requested.created else again)

    @get(
        "/{refund_id:str}",
        operation_id="getRefund",
        responses=answer(
            200,
            RefundOut,
            "The refund",
            _REFUND_OUT
            | {
                "status": "DEVOLVIDO",
                "horario": _REFUND_OUT["horario"] | {"liquidacao": "2026-03-15T15:02:14.020Z"},
            },
        )
        | error_responses(400, 401, 404),
        summary="Read a refund",
        description="A refund of a PIX this account received, with its status now.",
    )
    async def read(
        self,
        request: Request[Any, Any, Any],
        e2eid: E2eId,
        refund_id: RefundId,
        *,
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RefundOut]:
        refund = await get_refund(
            uow,
            account_id=principal_of(request).account_id,
            end_to_end_id=e2eid,
            refund_id=refund_id,
        )
        return PixResponse(refund_out(refund))
