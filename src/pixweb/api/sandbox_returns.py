"""The sandbox's returns (decisions §11): the receiver of one of our transfers refunds it, and
MED cases are opened against receipts and decided. Present only when the sandbox is on."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.openapi.spec import OpenAPIType
from litestar.params import FromPath, JSONBody

from pixcore.clock import format_timestamp
from pixcore.identifiers import validate_e2eid_path
from pixcore.med import MedCase, MedReason
from pixcore.money import cents_to_decimal, parse_amount_number, require_positive
from pixcore.usecases.med import accept_med, open_med, reject_med
from pixcore.usecases.refunds import receive_refund
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_E2EID, MAX_SHORT_CODE, raw
from pixweb.api.refunds import RefundOut, refund_out
from pixweb.errors import error_responses

__all__ = ["SandboxReturnsController"]


E2eText = Annotated[str, msgspec.Meta(max_length=MAX_E2EID)]


class ReturnIn(msgspec.Struct, rename="camel"):
    end_to_end_id: E2eText
    amount: Annotated[Any, raw("JSON number, in reais, at most 2 decimals", kind=OpenAPIType.NUMBER)]


class MedIn(msgspec.Struct, rename="camel"):
    end_to_end_id: E2eText
    reason: Annotated[
        Any, raw("MED_FRAUDE or MED_OPERACIONAL", kind=OpenAPIType.STRING, max_length=MAX_SHORT_CODE)
    ]


class MedOut(msgspec.Struct, rename="camel", omit_defaults=True):
    id: int
    end_to_end_id: str
    status: str
    reason: str
    amount: Decimal
    blocked: Decimal
    created_at: str
    finished_at: str | None = None
    refund: RefundOut | None = None


def med_out(case: MedCase, refund: RefundOut | None = None) -> MedOut:
    return MedOut(
        id=case.id,
        end_to_end_id=case.end_to_end_id,
        status=case.status.value,
        reason=case.reason.value,
        amount=cents_to_decimal(case.amount),
        blocked=cents_to_decimal(case.blocked),
        created_at=format_timestamp(case.created_at),
        finished_at=format_timestamp(case.finished_at) if case.finished_at else None,
        refund=refund,
    )


class SandboxReturnsController(Controller):
    path = "/sandbox"
    tags = ["Sandbox"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/refunds",
        operation_id="sandboxReceiveRefund",
        responses=error_responses(400, 401, 404, 413, 422),
        status_code=201,
        summary="The receiver of one of your transfers refunds it",
    )
    async def refund(self, request: Request[Any, Any, Any], data: JSONBody[ReturnIn]) -> RefundOut:
        services = services_of(request)
        refund = await receive_refund(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            end_to_end_id=validate_e2eid_path(data.end_to_end_id),
            amount=require_positive(parse_amount_number(data.amount)),
        )
        return refund_out(refund)

    @post(
        "/med",
        operation_id="sandboxOpenMed",
        responses=error_responses(400, 401, 404, 409, 413, 422),
        status_code=201,
        summary="Open a MED case against a receipt",
    )
    async def open(self, request: Request[Any, Any, Any], data: JSONBody[MedIn]) -> MedOut:
        services = services_of(request)
        case = await open_med(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            end_to_end_id=validate_e2eid_path(data.end_to_end_id),
            reason=MedReason.parse(data.reason),
        )
        return med_out(case)

    @post(
        "/med/{case_id:int}/accept",
        operation_id="sandboxAcceptMed",
        responses=error_responses(400, 401, 404, 422),
        status_code=200,
        summary="Accept a MED",
    )
    async def accept(self, request: Request[Any, Any, Any], case_id: FromPath[int]) -> MedOut:
        services = services_of(request)
        outcome = await accept_med(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            case_id=case_id,
            ispb=services.settings.ispb,
        )
        return med_out(outcome.case, refund_out(outcome.refund) if outcome.refund else None)

    @post(
        "/med/{case_id:int}/reject",
        operation_id="sandboxRejectMed",
        responses=error_responses(400, 401, 404, 422),
        status_code=200,
        summary="Reject a MED",
    )
    async def reject(self, request: Request[Any, Any, Any], case_id: FromPath[int]) -> MedOut:
        services = services_of(request)
        outcome = await reject_med(
            services.uow, services.clock, account_id=principal_of(request).account_id, case_id=case_id
        )
        return med_out(outcome.case)
