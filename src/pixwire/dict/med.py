"""The DICT's vocabulary of the MED between institutions: infraction reports (relatos de
infração) and refund requests (solicitações de devolução), as the central bank's DICT API
document names them."""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from datetime import datetime

__all__ = [
    "AnalysisResult",
    "InfractionReport",
    "InfractionStatus",
    "InfractionType",
    "NewInfractionReport",
    "NewRefundRequest",
    "RefundAnalysisResult",
    "RefundReason",
    "RefundRejectionReason",
    "RefundRequest",
    "RefundRole",
    "RefundStatus",
    "ReportedBy",
]


class InfractionType(enum.StrEnum):
    FRAUD = "FRAUD"
    REFUND_REQUEST = "REFUND_REQUEST"
    REFUND_CANCELLED = "REFUND_CANCELLED"


class ReportedBy(enum.StrEnum):
    DEBITED_PARTICIPANT = "DEBITED_PARTICIPANT"
    CREDITED_PARTICIPANT = "CREDITED_PARTICIPANT"


class InfractionStatus(enum.StrEnum):
    OPEN = "OPEN"
    ACKNOWLEDGED = "ACKNOWLEDGED"
    CLOSED = "CLOSED"
    CANCELLED = "CANCELLED"


class AnalysisResult(enum.StrEnum):
    AGREED = "AGREED"
    DISAGREED = "DISAGREED"


@dataclass(frozen=True, slots=True)
class NewInfractionReport:
    """What a participant reports (``CreateInfractionReportRequest``): a payment of the SPI, by its
    end-to-end id."""

    transaction_id: str
    infraction_type: InfractionType
    details: str | None = None


@dataclass(frozen=True, slots=True)
class InfractionReport:
    """A report as the DICT keeps it (``ExtendedInfractionReport``)."""

    asked: NewInfractionReport
    id: uuid.UUID
    reported_by: ReportedBy
    status: InfractionStatus
    debited: str
    """The ISPB of the payer's participant."""
    credited: str
    """The ISPB of the payee's participant."""
    created_at: datetime
    last_modified: datetime
    analysis_result: AnalysisResult | None = None
    analysis_details: str | None = None

    @property
    def reporter(self) -> str:
        return self.debited if self.reported_by is ReportedBy.DEBITED_PARTICIPANT else self.credited

    @property
    def other_party(self) -> str:
        return self.credited if self.reported_by is ReportedBy.DEBITED_PARTICIPANT else self.debited


class RefundReason(enum.StrEnum):
    FRAUD = "FRAUD"
    OPERATIONAL_FLAW = "OPERATIONAL_FLAW"
    REFUND_CANCELLED = "REFUND_CANCELLED"


class RefundStatus(enum.StrEnum):
    OPEN = "OPEN"
    CLOSED = "CLOSED"
    CANCELLED = "CANCELLED"


class RefundAnalysisResult(enum.StrEnum):
    TOTALLY_ACCEPTED = "TOTALLY_ACCEPTED"
    PARTIALLY_ACCEPTED = "PARTIALLY_ACCEPTED"
    REJECTED = "REJECTED"


class RefundRejectionReason(enum.StrEnum):
    NO_BALANCE = "NO_BALANCE"
    ACCOUNT_CLOSURE = "ACCOUNT_CLOSURE"
    CANNOT_REFUND = "CANNOT_REFUND"
    OTHER = "OTHER"


class RefundRole(enum.StrEnum):
    """A participant's part in a refund request (``listRefunds``' ``ParticipantRole``)."""

    REQUESTING = "REQUESTING"
    CONTESTED = "CONTESTED"


@dataclass(frozen=True, slots=True)
class NewRefundRequest:
    """What the payer's participant asks back (``CreateRefundRequest``), in centavos."""

    transaction_id: str
    reason: RefundReason
    amount: int
    details: str | None = None
    infraction_report_id: uuid.UUID | None = None
    """The report of the fraud, for a request of reason FRAUD (the DICT finds it)."""


@dataclass(frozen=True, slots=True)
class RefundRequest:
    """A request as the DICT keeps it (``ExtendedRefund``)."""

    asked: NewRefundRequest
    id: uuid.UUID
    status: RefundStatus
    requesting: str
    """The ISPB of the payer's participant, which asks."""
    contested: str
    """The ISPB of the payee's participant, which answers."""
    created_at: datetime
    last_modified: datetime
    analysis_result: RefundAnalysisResult | None = None
    analysis_details: str | None = None
    rejection_reason: RefundRejectionReason | None = None
    refund_transaction_id: str | None = None
    """The return (pacs.004) that gave the money back, when accepted."""
