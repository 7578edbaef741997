"""The sandbox's returns: the receiver of one of our transfers refunds it, and
MED cases are opened against receipts and decided. Present only when the sandbox is on."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter

from pixcore.clock import Clock, format_timestamp
from pixcore.errors import ValidationError
from pixcore.identifiers import E2EID_PATH_PATTERN, validate_e2eid_path
from pixcore.money import cents_to_decimal, parse_amount_number, require_positive
from pixcore.refunds.med import MedCase, MedField, MedReason
from pixcore.refunds.med_service import accept_med, open_med, reject_med
from pixcore.refunds.refund_service import receive_refund
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.validation import collect
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import MAX_E2EID, MAX_SHORT_CODE, Int64, MaybeTimestamp, Timestamp, doc, raw
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.field_paths import on_the_wire, wire_paths
from pixweb.refunds.refunds import RefundOut, refund_out

__all__ = ["SandboxReturnsController"]


E2eText = Annotated[str, msgspec.Meta(max_length=MAX_E2EID)]


class ReturnIn(msgspec.Struct, rename="camel"):
    end_to_end_id: Annotated[
        E2eText,
        doc(
            "The end-to-end id of one of your transfers (32 letters and digits).",
            pattern=E2EID_PATH_PATTERN,
            example="E12345678202603151432aB3dE5fG7hJ",
        ),
    ]
    amount: Annotated[
        Any,
        raw("JSON number, in reais, at most 2 decimals", kind=OpenAPIType.NUMBER),
        doc(
            "How much comes back, in reais: at most what is left of the transfer.", example=50.0, amount=True
        ),
    ]


class MedIn(msgspec.Struct, rename="camel"):
    end_to_end_id: Annotated[
        E2eText,
        doc(
            "The end-to-end id of a PIX you received (32 letters and digits).",
            pattern=E2EID_PATH_PATTERN,
            example="E98765432202603151440xY7wV5uT3sR",
        ),
    ]
    reason: Annotated[
        Any,
        raw("MED_FRAUDE or MED_OPERACIONAL", kind=OpenAPIType.STRING, max_length=MAX_SHORT_CODE),
        doc(
            "Why the payer's institution disputes it.",
            enum=[r.value for r in MedReason],
            example="MED_FRAUDE",
        ),
    ]


class MedOut(msgspec.Struct, rename="camel", omit_defaults=True):
    id: Annotated[Int64, doc("The case's id.")]
    end_to_end_id: Annotated[str, doc("The PIX disputed.")]
    status: Annotated[str, doc("CREATED (open), then ACCEPTED or REJECTED.")]
    reason: Annotated[str, doc("MED_FRAUDE or MED_OPERACIONAL.")]
    amount: Annotated[Decimal, doc("The amount disputed, in reais.")]
    blocked: Annotated[Decimal, doc("What is held on the account while the case is open, in reais.")]
    created_at: Annotated[Timestamp, doc("When it was opened (UTC, ISO 8601).")]
    finished_at: Annotated[MaybeTimestamp, doc("When it was decided.")] = None
    refund: Annotated[RefundOut | None, doc("The refund an accepted case made.")] = None


CaseId = Annotated[int, Parameter(description="The MED case's id.", examples=[Example(value=7)])]
_MED = {
    "id": 7,
    "endToEndId": "E98765432202603151440xY7wV5uT3sR",
    "status": "CREATED",
    "reason": "MED_FRAUDE",
    "amount": 500.0,
    "blocked": 500.0,
    "createdAt": "2026-03-15T16:00:00.000Z",
}
_RETURNED = {
    "id": "D98765432202603151605aQ1wS2eD3rF",
    "rtrId": "D98765432202603151605aQ1wS2eD3rF",
    "valor": "50.00",
    "natureza": "ORIGINAL",
    "horario": {"solicitacao": "2026-03-15T16:05:00.000Z"},
    "status": "EM_PROCESSAMENTO",
}


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


def _invalid(what: str, problems: list[str]) -> ValidationError:
    """One ``ValidationError`` listing ``problems`` (the problem alone when there is one)."""
    message = problems[0] if len(problems) == 1 else f"Invalid {what}: " + "; ".join(problems)
    return ValidationError(message, details=problems)


def outside_refund(body: ReturnIn) -> tuple[str, int]:
    """The end-to-end id and the amount of a ``POST /sandbox/refunds`` body, every broken rule at once."""
    problems: list[str] = []
    e2e = collect(problems, "endToEndId", lambda: validate_e2eid_path(body.end_to_end_id))
    amount = collect(problems, "amount", lambda: require_positive(parse_amount_number(body.amount)))
    if problems or e2e is None or amount is None:
        raise _invalid("refund", problems)
    return e2e, amount


MED_PATHS = wire_paths({MedField.REASON: "reason"})
"""Where :class:`MedIn` carries the fields ``MedReason.parse`` names."""


def med_request(body: MedIn) -> tuple[str, MedReason]:
    """The end-to-end id and the reason of a ``POST /sandbox/med`` body, every broken rule at once."""
    problems: list[str] = []
    e2e = collect(problems, "endToEndId", lambda: validate_e2eid_path(body.end_to_end_id))
    try:
        reason: MedReason | None = MedReason.parse(body.reason)
    except ValidationError as exc:  # its details name the field already
        message, details = on_the_wire(exc)
        problems.extend(details or [message])
        reason = None
    if problems or e2e is None or reason is None:
        raise _invalid("MED", problems)
    return e2e, reason


judge_body(ReturnIn, lambda body, _request: outside_refund(body))
judge_body(MedIn, lambda body, _request: med_request(body))


class SandboxReturnsController(Controller):
    path = "/sandbox"
    tags = ["Sandbox"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/refunds",
        operation_id="sandboxReceiveRefund",
        responses=answer(201, RefundOut, "The refund, on its way back", _RETURNED)
        | error_responses(400, 401, 404, 413, 422),
        status_code=201,
        summary="The receiver of one of your transfers refunds it",
        description=(
            "The outside receiver of one of your settled transfers returns (part of) it; the money"
            " comes back when the refund settles. 404: no such transfer; 422: more than is left."
        ),
    )
    async def refund(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[
            ReturnIn,
            json_body("The refund.", {"endToEndId": "E12345678202603151432aB3dE5fG7hJ", "amount": 50.0}),
        ],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> RefundOut:
        end_to_end_id, amount = outside_refund(data)
        refund = await receive_refund(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            end_to_end_id=end_to_end_id,
            amount=amount,
        )
        return refund_out(refund)

    @post(
        "/med",
        operation_id="sandboxOpenMed",
        responses=answer(201, MedOut, "The case, CREATED (open)", _MED)
        | error_responses(400, 401, 404, 409, 413, 422),
        status_code=201,
        summary="Open a MED case against a receipt",
        description=(
            "The payer's institution disputes a PIX you received (the central bank's MED): its amount"
            " is held on your account while the case is open. 409: a case is open already."
        ),
    )
    async def open(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[
            MedIn,
            json_body(
                "The case.", {"endToEndId": "E98765432202603151440xY7wV5uT3sR", "reason": "MED_FRAUDE"}
            ),
        ],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> MedOut:
        end_to_end_id, reason = med_request(data)
        case = await open_med(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            end_to_end_id=end_to_end_id,
            reason=reason,
        )
        return med_out(case)

    @post(
        "/med/{case_id:int}/accept",
        operation_id="sandboxAcceptMed",
        responses=answer(
            200,
            MedOut,
            "The case, ACCEPTED, with its refund",
            _MED
            | {
                "status": "ACCEPTED",
                "blocked": 0,
                "finishedAt": "2026-03-16T09:00:00.000Z",
                "refund": _RETURNED | {"natureza": "MED_FRAUDE"},
            },
        )
        | error_responses(400, 401, 404, 422),
        status_code=200,
        summary="Accept a MED",
        description=(
            "The case is upheld: the held money goes back to the payer as a refund."
            " 422: not CREATED (decided already)."
        ),
    )
    async def accept(
        self,
        request: Request[Any, Any, Any],
        case_id: CaseId,
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> MedOut:
        outcome = await accept_med(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            case_id=case_id,
            ispb=settings.ispb,
        )
        return med_out(outcome.case, refund_out(outcome.refund) if outcome.refund else None)

    @post(
        "/med/{case_id:int}/reject",
        operation_id="sandboxRejectMed",
        responses=answer(
            200,
            MedOut,
            "The case, REJECTED",
            _MED | {"status": "REJECTED", "blocked": 0, "finishedAt": "2026-03-16T09:00:00.000Z"},
        )
        | error_responses(400, 401, 404, 422),
        status_code=200,
        summary="Reject a MED",
        description=(
            "The case is dismissed: the held money is released to the account."
            " 422: not CREATED (decided already)."
        ),
    )
    async def reject(
        self,
        request: Request[Any, Any, Any],
        case_id: CaseId,
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> MedOut:
        outcome = await reject_med(uow, clock, account_id=principal_of(request).account_id, case_id=case_id)
        return med_out(outcome.case)
