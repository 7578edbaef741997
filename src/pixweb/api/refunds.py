"""Refunds: ``PUT/GET /pix/{e2eid}/devolucao/{id}`` (decisions §7)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, put
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIType
from litestar.params import FromPath, JSONBody

from pixcore.clock import format_timestamp
from pixcore.money import format_amount_string
from pixcore.refunds import MAX_DESCRIPTION, Refund, RefundRequest, RefundStatus
from pixcore.usecases.refunds import get_refund, request_refund
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_AMOUNT_TEXT, MAX_SHORT_CODE, raw
from pixweb.errors import error_responses
from pixweb.wire import PixResponse

__all__ = ["RefundController", "refund_out", "refund_request"]

_STRING = OpenAPIType.STRING


class RefundIn(msgspec.Struct):
    # Taken as decoded: "10.00" must be a string (a number is a 400), checked by RefundRequest,
    # with each text's maximum (documented here, decisions §13).
    valor: Annotated[
        Any, raw('a string with 2 decimals, "10.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT)
    ] = None
    natureza: Annotated[
        Any, raw("ORIGINAL (default) or RETIRADA", kind=_STRING, max_length=MAX_SHORT_CODE)
    ] = None
    descricao: Annotated[Any, raw("shown to the payer", kind=_STRING, max_length=MAX_DESCRIPTION)] = None


def refund_request(body: RefundIn) -> RefundRequest:
    """The body under the domain's names, each leaf as decoded (``RefundRequest.parse`` judges it)."""
    return RefundRequest.parse(amount=body.valor, nature=body.natureza, description=body.descricao)


class HorarioOut(msgspec.Struct, omit_defaults=True):
    solicitacao: str
    liquidacao: str | None = None


class RefundOut(msgspec.Struct, rename="camel", omit_defaults=True):
    id: str
    rtr_id: str
    valor: str
    natureza: str
    horario: HorarioOut
    status: str
    descricao: str | None = None
    motivo: str | None = None


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
        responses={200: ResponseSpec(RefundOut, description="The same refund, asked for again")}
        | error_responses(400, 401, 404, 409, 413, 422),
        status_code=201,
        summary="Refund (part of) a received PIX",
        description="201 when created; 200 when the same id and body were sent before (the same refund).",
    )
    async def request(
        self,
        request: Request[Any, Any, Any],
        e2eid: FromPath[str],
        refund_id: FromPath[str],
        data: JSONBody[RefundIn],
    ) -> Response[RefundOut]:
        services = services_of(request)
        requested = await request_refund(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            end_to_end_id=e2eid,
            refund_id=refund_id,
            request=refund_request(data),
            ispb=services.settings.ispb,
            delay=timedelta(seconds=services.settings.norm_delay_seconds),
        )
        return PixResponse(refund_out(requested.refund), status_code=201 if requested.created else 200)

    @get(
        "/{refund_id:str}",
        operation_id="getRefund",
        responses=error_responses(400, 401, 404),
        summary="Read a refund",
    )
    async def read(
        self, request: Request[Any, Any, Any], e2eid: FromPath[str], refund_id: FromPath[str]
    ) -> Response[RefundOut]:
        services = services_of(request)
        refund = await get_refund(
            services.uow,
            account_id=principal_of(request).account_id,
            end_to_end_id=e2eid,
            refund_id=refund_id,
        )
        return PixResponse(refund_out(refund))
