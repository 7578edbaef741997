"""The DICT's documents of the MED between institutions: infraction reports
(``CreateInfractionReportRequest``, the steps' requests, each response with its
``InfractionReport``, ``ListInfractionReportsResponse``) and refund requests
(``CreateRefundRequest``, ``CloseRefundRequest``, ``CancelRefundRequest``, their responses with
their ``Refund``, ``ListRefundsResponse``); to and from ``pixwire.dict.med``.

Amounts are the document's decimal reais (``100.00``), centavos inside. A value out of its domain
is ``InfractionReportInvalid`` (reports) or ``BadRequest`` (refund requests) naming the element.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from pixcore.clock import format_timestamp
from pixwire.dict.documents import moment, one_of, required
from pixwire.dict.med import (
    AnalysisResult,
    InfractionReport,
    InfractionStatus,
    InfractionType,
    NewInfractionReport,
    NewRefundRequest,
    RefundAnalysisResult,
    RefundReason,
    RefundRejectionReason,
    RefundRequest,
    RefundStatus,
    ReportedBy,
)
from pixwire.dict.model import ErrorType, invalid_field
from pixwire.xml import BadXml, Element, element, leaf, text_of

__all__ = [
    "CloseRefund",
    "ReportAction",
    "ReportStep",
    "close_refund_request",
    "create_refund_request",
    "create_report_request",
    "read_cancel_refund",
    "read_close_refund",
    "read_create_refund",
    "read_create_report",
    "read_refund_response",
    "read_refunds_response",
    "read_report_response",
    "read_report_step",
    "read_reports_response",
    "refund_response",
    "refund_step_request",
    "refunds_response",
    "report_response",
    "report_step_request",
    "reports_response",
]

REPORT_INVALID = ErrorType.INFRACTION_REPORT_INVALID
REFUND_INVALID = ErrorType.BAD_REQUEST


class ReportStep(enum.StrEnum):
    ACKNOWLEDGE = "acknowledge"
    CLOSE = "close"
    CANCEL = "cancel"

    @property
    def request(self) -> str:
        return f"{self.value.capitalize()}InfractionReportRequest"

    @property
    def response(self) -> str:
        return f"{self.value.capitalize()}InfractionReportResponse"


def _uuid(value: str | None, field: str, invalid: ErrorType) -> uuid.UUID:
    try:
        return uuid.UUID(value or "")
    except ValueError:
        raise invalid_field(field, "a UUID", invalid) from None


def _when(moment_: datetime | None) -> str | None:
    return None if moment_ is None else format_timestamp(moment_)


def _value(member: enum.Enum | None) -> str | None:
    return None if member is None else str(member.value)


def _reais(cents: int) -> str:
    return f"{Decimal(cents) / 100:.2f}"


def _cents(value: str | None, field: str) -> int:
    try:
        amount = Decimal(value or "")
    except InvalidOperation:
        raise invalid_field(field, "an amount in reais, with two decimals", REFUND_INVALID) from None
    if not amount.is_finite() or amount != amount.quantize(Decimal("0.01")) or amount <= 0:
        raise invalid_field(field, "an amount in reais above zero, with two decimals", REFUND_INVALID)
    return int(amount * 100)


def _header(correlation_id: str, now: datetime) -> list[Element | None]:
    return [leaf("ResponseTime", format_timestamp(now)), leaf("CorrelationId", correlation_id)]


# -- infraction reports ------------------------------------------------------------------------


def create_report_request(participant: str, asked: NewInfractionReport) -> Element:
    return element(
        "CreateInfractionReportRequest",
        leaf("Participant", participant),
        element(
            "InfractionReport",
            leaf("TransactionId", asked.transaction_id),
            leaf("InfractionType", asked.infraction_type.value),
            leaf("ReportDetails", asked.details),
        ),
    )


def read_create_report(root: Element) -> tuple[str, NewInfractionReport]:
    """The participant a ``CreateInfractionReportRequest`` names, and what it reports."""
    if root.tag != "CreateInfractionReportRequest":
        raise BadXml(f"a CreateInfractionReportRequest was expected, not {root.tag}")
    report = required(root, "InfractionReport")
    asked = NewInfractionReport(
        transaction_id=str(text_of(report, "TransactionId")),
        infraction_type=one_of(
            InfractionType, text_of(report, "InfractionType"), "InfractionType", REPORT_INVALID
        ),
        details=text_of(report, "ReportDetails", required=False) or None,
    )
    return str(text_of(root, "Participant")), asked


@dataclass(frozen=True, slots=True)
class ReportAction:
    report_id: uuid.UUID
    participant: str
    result: AnalysisResult | None = None
    details: str | None = None


def report_step_request(step: ReportStep, action: ReportAction) -> Element:
    return element(
        step.request,
        leaf("InfractionReportId", str(action.report_id)),
        leaf("Participant", action.participant),
        leaf("AnalysisResult", _value(action.result)),
        leaf("AnalysisDetails", action.details),
    )


def read_report_step(root: Element, step: ReportStep, report_id: uuid.UUID) -> ReportAction:
    """A step's request for the path's report (a closing names its result)."""
    if root.tag != step.request:
        raise BadXml(f"a {step.request} was expected, not {root.tag}")
    if _uuid(text_of(root, "InfractionReportId"), "InfractionReportId", REPORT_INVALID) != report_id:
        raise BadXml("the document's InfractionReportId is not the path's")
    result = None
    if step is ReportStep.CLOSE:
        result = one_of(AnalysisResult, text_of(root, "AnalysisResult"), "AnalysisResult", REPORT_INVALID)
    details = text_of(root, "AnalysisDetails", required=False) or None
    return ReportAction(report_id, str(text_of(root, "Participant")), result, details)


def _report(report: InfractionReport) -> Element:
    asked = report.asked
    return element(
        "InfractionReport",
        leaf("TransactionId", asked.transaction_id),
        leaf("InfractionType", asked.infraction_type.value),
        leaf("ReportDetails", asked.details),
        leaf("Id", str(report.id)),
        leaf("ReportedBy", report.reported_by.value),
        leaf("Status", report.status.value),
        leaf("DebitedParticipant", report.debited),
        leaf("CreditedParticipant", report.credited),
        leaf("CreationTime", _when(report.created_at)),
        leaf("LastModified", _when(report.last_modified)),
        leaf("AnalysisResult", _value(report.analysis_result)),
        leaf("AnalysisDetails", report.analysis_details),
    )


def report_response(tag: str, report: InfractionReport, *, correlation_id: str, now: datetime) -> Element:
    return element(tag, *_header(correlation_id, now), _report(report))


def reports_response(
    reports: list[InfractionReport], has_more: bool, *, correlation_id: str, now: datetime
) -> Element:
    return element(
        "ListInfractionReportsResponse",
        *_header(correlation_id, now),
        leaf("HasMoreElements", "true" if has_more else "false"),
        element("InfractionReports", *(_report(report) for report in reports)),
    )


def _read_report(found: Element) -> InfractionReport:
    result = text_of(found, "AnalysisResult", required=False) or None
    return InfractionReport(
        asked=NewInfractionReport(
            transaction_id=str(text_of(found, "TransactionId")),
            infraction_type=one_of(
                InfractionType, text_of(found, "InfractionType"), "InfractionType", REPORT_INVALID
            ),
            details=text_of(found, "ReportDetails", required=False) or None,
        ),
        id=_uuid(text_of(found, "Id"), "Id", REPORT_INVALID),
        reported_by=one_of(ReportedBy, text_of(found, "ReportedBy"), "ReportedBy", REPORT_INVALID),
        status=one_of(InfractionStatus, text_of(found, "Status"), "Status", REPORT_INVALID),
        debited=str(text_of(found, "DebitedParticipant")),
        credited=str(text_of(found, "CreditedParticipant")),
        created_at=moment(text_of(found, "CreationTime"), "CreationTime", REPORT_INVALID),
        last_modified=moment(text_of(found, "LastModified"), "LastModified", REPORT_INVALID),
        analysis_result=None
        if result is None
        else one_of(AnalysisResult, result, "AnalysisResult", REPORT_INVALID),
        analysis_details=text_of(found, "AnalysisDetails", required=False) or None,
    )


def read_report_response(root: Element) -> InfractionReport:
    if not root.tag.endswith("InfractionReportResponse"):
        raise BadXml(f"an infraction report's response was expected, not {root.tag}")
    return _read_report(required(root, "InfractionReport"))


def read_reports_response(root: Element) -> tuple[list[InfractionReport], bool]:
    if root.tag != "ListInfractionReportsResponse":
        raise BadXml(f"a ListInfractionReportsResponse was expected, not {root.tag}")
    found = required(root, "InfractionReports").findall("InfractionReport")
    return [_read_report(report) for report in found], text_of(root, "HasMoreElements") == "true"


# -- refund requests ---------------------------------------------------------------------------


def create_refund_request(participant: str, asked: NewRefundRequest) -> Element:
    return element(
        "CreateRefundRequest",
        leaf("Participant", participant),
        element(
            "Refund",
            leaf("TransactionId", asked.transaction_id),
            leaf("RefundReason", asked.reason.value),
            leaf("RefundAmount", _reais(asked.amount)),
            leaf("RefundDetails", asked.details),
        ),
    )


def read_create_refund(root: Element) -> tuple[str, NewRefundRequest]:
    if root.tag != "CreateRefundRequest":
        raise BadXml(f"a CreateRefundRequest was expected, not {root.tag}")
    refund = required(root, "Refund")
    asked = NewRefundRequest(
        transaction_id=str(text_of(refund, "TransactionId")),
        reason=one_of(RefundReason, text_of(refund, "RefundReason"), "RefundReason", REFUND_INVALID),
        amount=_cents(text_of(refund, "RefundAmount"), "RefundAmount"),
        details=text_of(refund, "RefundDetails", required=False) or None,
    )
    return str(text_of(root, "Participant")), asked


@dataclass(frozen=True, slots=True)
class CloseRefund:
    refund_id: uuid.UUID
    participant: str
    result: RefundAnalysisResult
    details: str | None = None
    rejection: RefundRejectionReason | None = None
    refund_transaction_id: str | None = None


def close_refund_request(closing: CloseRefund) -> Element:
    return element(
        "CloseRefundRequest",
        leaf("RefundId", str(closing.refund_id)),
        leaf("Participant", closing.participant),
        leaf("RefundAnalysisResult", closing.result.value),
        leaf("RefundAnalysisDetails", closing.details),
        leaf("RefundRejectionReason", _value(closing.rejection)),
        leaf("RefundTransactionId", closing.refund_transaction_id),
    )


def read_close_refund(root: Element, refund_id: uuid.UUID) -> CloseRefund:
    if root.tag != "CloseRefundRequest":
        raise BadXml(f"a CloseRefundRequest was expected, not {root.tag}")
    if _uuid(text_of(root, "RefundId"), "RefundId", REFUND_INVALID) != refund_id:
        raise BadXml("the document's RefundId is not the path's")
    rejection = text_of(root, "RefundRejectionReason", required=False) or None
    return CloseRefund(
        refund_id=refund_id,
        participant=str(text_of(root, "Participant")),
        result=one_of(
            RefundAnalysisResult,
            text_of(root, "RefundAnalysisResult"),
            "RefundAnalysisResult",
            REFUND_INVALID,
        ),
        details=text_of(root, "RefundAnalysisDetails", required=False) or None,
        rejection=(
            None
            if rejection is None
            else one_of(RefundRejectionReason, rejection, "RefundRejectionReason", REFUND_INVALID)
        ),
        refund_transaction_id=text_of(root, "RefundTransactionId", required=False) or None,
    )


def refund_step_request(refund_id: uuid.UUID, participant: str) -> Element:
    """A ``CancelRefundRequest``."""
    return element("CancelRefundRequest", leaf("RefundId", str(refund_id)), leaf("Participant", participant))


def read_cancel_refund(root: Element, refund_id: uuid.UUID) -> str:
    """The participant a ``CancelRefundRequest`` for the path's request names."""
    if root.tag != "CancelRefundRequest":
        raise BadXml(f"a CancelRefundRequest was expected, not {root.tag}")
    if _uuid(text_of(root, "RefundId"), "RefundId", REFUND_INVALID) != refund_id:
        raise BadXml("the document's RefundId is not the path's")
    return str(text_of(root, "Participant"))


def _refund(refund: RefundRequest) -> Element:
    asked = refund.asked
    return element(
        "Refund",
        leaf("TransactionId", asked.transaction_id),
        leaf("RefundReason", asked.reason.value),
        leaf("RefundAmount", _reais(asked.amount)),
        leaf("RefundDetails", asked.details),
        leaf("Id", str(refund.id)),
        leaf("Status", refund.status.value),
        leaf("RequestingParticipant", refund.requesting),
        leaf("ContestedParticipant", refund.contested),
        leaf("CreationTime", _when(refund.created_at)),
        leaf("LastModified", _when(refund.last_modified)),
        leaf(
            "InfractionReportId",
            None if asked.infraction_report_id is None else str(asked.infraction_report_id),
        ),
        leaf("AnalysisResult", _value(refund.analysis_result)),
        leaf("AnalysisDetails", refund.analysis_details),
        leaf("RefundRejectionReason", _value(refund.rejection_reason)),
        leaf("RefundTransactionId", refund.refund_transaction_id),
    )


def refund_response(tag: str, refund: RefundRequest, *, correlation_id: str, now: datetime) -> Element:
    return element(tag, *_header(correlation_id, now), _refund(refund))


def refunds_response(
    refunds: list[RefundRequest], has_more: bool, *, correlation_id: str, now: datetime
) -> Element:
    return element(
        "ListRefundsResponse",
        *_header(correlation_id, now),
        leaf("HasMoreElements", "true" if has_more else "false"),
        element("Refunds", *(_refund(refund) for refund in refunds)),
    )


def _read_refund(found: Element) -> RefundRequest:
    def optional(kind: type[enum.Enum], tag: str) -> enum.Enum | None:
        value = text_of(found, tag, required=False) or None
        return None if value is None else one_of(kind, value, tag, REFUND_INVALID)

    report_id = text_of(found, "InfractionReportId", required=False) or None
    result = optional(RefundAnalysisResult, "AnalysisResult")
    rejection = optional(RefundRejectionReason, "RefundRejectionReason")
    return RefundRequest(
        asked=NewRefundRequest(
            transaction_id=str(text_of(found, "TransactionId")),
            reason=one_of(RefundReason, text_of(found, "RefundReason"), "RefundReason", REFUND_INVALID),
            amount=_cents(text_of(found, "RefundAmount"), "RefundAmount"),
            details=text_of(found, "RefundDetails", required=False) or None,
            infraction_report_id=None
            if report_id is None
            else _uuid(report_id, "InfractionReportId", REFUND_INVALID),
        ),
        id=_uuid(text_of(found, "Id"), "Id", REFUND_INVALID),
        status=one_of(RefundStatus, text_of(found, "Status"), "Status", REFUND_INVALID),
        requesting=str(text_of(found, "RequestingParticipant")),
        contested=str(text_of(found, "ContestedParticipant")),
        created_at=moment(text_of(found, "CreationTime"), "CreationTime", REFUND_INVALID),
        last_modified=moment(text_of(found, "LastModified"), "LastModified", REFUND_INVALID),
        analysis_result=RefundAnalysisResult(result.value) if result is not None else None,
        analysis_details=text_of(found, "AnalysisDetails", required=False) or None,
        rejection_reason=RefundRejectionReason(rejection.value) if rejection is not None else None,
        refund_transaction_id=text_of(found, "RefundTransactionId", required=False) or None,
    )


def read_refund_response(root: Element) -> RefundRequest:
    if not root.tag.endswith("RefundResponse") or root.tag == "ListRefundsResponse":
        raise BadXml(f"a refund request's response was expected, not {root.tag}")
    return _read_refund(required(root, "Refund"))


def read_refunds_response(root: Element) -> tuple[list[RefundRequest], bool]:
    if root.tag != "ListRefundsResponse":
        raise BadXml(f"a ListRefundsResponse was expected, not {root.tag}")
    found = required(root, "Refunds").findall("Refund")
    return [_read_refund(refund) for refund in found], text_of(root, "HasMoreElements") == "true"
