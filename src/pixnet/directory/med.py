"""The MED between institutions in the DICT: infraction reports and refund requests, as the
central bank's DICT API document states them (its InfractionReport and Refund sections):

* a report names a payment of the SPI by its end-to-end id, and is made by either of its
  participants (``InfractionReportTransactionNotFound`` for a payment the caller is not a party
  of); the payment must be settled (``...TransactionNotSettled``), within
  :data:`REPORT_PERIOD` of its settlement (``...PeriodExpired``), and have no report in progress
  (``...AlreadyBeingProcessedForTransaction``) or closed (``...AlreadyProcessedForTransaction``);
* the other party acknowledges it (``ACKNOWLEDGED``) and closes it, agreeing or not (``CLOSED``);
  its reporter may cancel it at any time, even closed (``CANCELLED``); any other step is
  ``InfractionReportOperationInvalid``, and each step again with the same content answers the
  report as it is;
* a report of fraud counts in the look-ups' ``REPORTED_FRAUDS`` while it is not cancelled, and in
  ``CONFIRMED_FRAUDS`` once closed as agreed;
* a refund request is made by the payer's participant only, for at most what is left of the
  payment (``TransactionNotRefundable``), within :data:`REPORT_PERIOD` (``RefundPeriodExpired``),
  one at a time (``RefundAlreadyBeingProcessedForTransaction``; after a closed one
  ``RefundAlreadyProcessedForTransaction``); for fraud it names the report of the fraud;
* the payee's participant closes it: accepted (totally or partly) naming the return (pacs.004)
  that gave the money back, which the SPI must have settled for that payment
  (``RefundTransactionNotFound``), or rejected with a reason; the requester may cancel it while
  it is open.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

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
    RefundRole,
    RefundStatus,
    ReportedBy,
)
from pixwire.dict.model import DictProblem, ErrorType

__all__ = [
    "DETAILS_LENGTH",
    "REPORT_PERIOD",
    "MedChanged",
    "MedQuery",
    "MedStore",
    "SpiPayment",
    "acknowledge_report",
    "cancel_refund",
    "cancel_report",
    "close_refund",
    "close_report",
    "confirms_fraud",
    "counts_as_fraud",
    "create_refund",
    "create_report",
    "get_refund",
    "get_report",
    "list_refunds",
    "list_reports",
]

REPORT_PERIOD = timedelta(days=80)
"""How long after its settlement a payment may be reported, or asked back (our choice: the
DICT's manual sets it, and the MED's 80 days are the known figure)."""
DETAILS_LENGTH = 2_000
MAX_LISTED = 200


@dataclass(frozen=True, slots=True)
class SpiPayment:
    """What the DICT reads of a payment the SPI received."""

    end_to_end_id: str
    payer: str
    payee: str
    amount: int
    settled_at: datetime | None
    """None: not settled (waiting, or rejected)."""
    returned: int
    """What returns gave back of it already."""


@dataclass(frozen=True, slots=True)
class MedQuery:
    """A listing's filters: the participant's reports (as debited, credited or either) or refund
    requests (by its role), of these statuses (all when empty), modified within a window."""

    participant: str
    is_debited: bool | None = None
    is_credited: bool | None = None
    role: RefundRole | None = None
    statuses: tuple[str, ...] = ()
    modified_after: datetime | None = None
    modified_before: datetime | None = None
    limit: int = 20


class MedChanged(Exception):
    """The store's answer when a report or request is no longer in the status a change expected,
    or a second one of a payment would be in progress at once (a race lost: judged again)."""


class MedStore(Protocol):
    async def payment(self, end_to_end_id: str) -> SpiPayment | None: ...

    async def settled_return(self, return_id: str) -> tuple[str, int] | None:
        """The payment (end-to-end id) and amount of a return the SPI settled, if it did."""
        ...

    async def reports_of(self, end_to_end_id: str) -> list[InfractionReport]: ...

    async def report(self, report_id: uuid.UUID) -> InfractionReport | None: ...

    async def add_report(self, report: InfractionReport) -> None:
        """Keep it (and count a fraud); :class:`MedChanged` if one of its payment is in progress."""
        ...

    async def change_report(self, report: InfractionReport, was: InfractionStatus) -> None:
        """Replace it if still ``was`` (else :class:`MedChanged`), its counters with it."""
        ...

    async def reports(self, query: MedQuery) -> list[InfractionReport]: ...

    async def refunds_of(self, end_to_end_id: str) -> list[RefundRequest]: ...

    async def refund(self, refund_id: uuid.UUID) -> RefundRequest | None: ...

    async def add_refund(self, refund: RefundRequest) -> None:
        """Keep it; :class:`MedChanged` if one of its payment is open."""
        ...

    async def change_refund(self, refund: RefundRequest, was: RefundStatus) -> None: ...

    async def refunds(self, query: MedQuery) -> list[RefundRequest]: ...


def _details(details: str | None, invalid: ErrorType) -> None:
    if details is not None and len(details) > DETAILS_LENGTH:
        raise DictProblem(invalid, f"details hold at most {DETAILS_LENGTH} characters")


async def _payment_of(
    store: MedStore, end_to_end_id: str, requester: str, now: datetime, errors: tuple[ErrorType, ...]
) -> SpiPayment:
    not_found, not_settled, expired = errors
    payment = await store.payment(end_to_end_id)
    if payment is None or requester not in {payment.payer, payment.payee}:
        raise DictProblem(not_found, "the SPI settled no payment of the caller with this end-to-end id")
    if payment.settled_at is None:
        raise DictProblem(not_settled, "the payment was not settled")
    if now > payment.settled_at + REPORT_PERIOD:
        raise DictProblem(expired, f"the payment settled more than {REPORT_PERIOD.days} days ago")
    return payment


_REPORT_ERRORS = (
    ErrorType.INFRACTION_REPORT_TRANSACTION_NOT_FOUND,
    ErrorType.INFRACTION_REPORT_TRANSACTION_NOT_SETTLED,
    ErrorType.INFRACTION_REPORT_PERIOD_EXPIRED,
)
_REFUND_ERRORS = (
    ErrorType.REFUND_TRANSACTION_NOT_FOUND,
    ErrorType.REFUND_TRANSACTION_NOT_SETTLED,
    ErrorType.REFUND_PERIOD_EXPIRED,
)


async def create_report(
    store: MedStore, asked: NewInfractionReport, *, requester: str, now: datetime
) -> InfractionReport:
    """``POST /infraction-reports/``."""
    _details(asked.details, ErrorType.INFRACTION_REPORT_INVALID)
    payment = await _payment_of(store, asked.transaction_id, requester, now, _REPORT_ERRORS)
    for known in await store.reports_of(payment.end_to_end_id):
        if known.status in {InfractionStatus.OPEN, InfractionStatus.ACKNOWLEDGED}:
            raise DictProblem(
                ErrorType.INFRACTION_REPORT_ALREADY_BEING_PROCESSED, "a report of the payment is in progress"
            )
        if known.status is InfractionStatus.CLOSED:
            raise DictProblem(
                ErrorType.INFRACTION_REPORT_ALREADY_PROCESSED, "a report of the payment was closed"
            )
    by_payer = requester == payment.payer
    report = InfractionReport(
        asked=asked,
        id=uuid.uuid4(),
        reported_by=ReportedBy.DEBITED_PARTICIPANT if by_payer else ReportedBy.CREDITED_PARTICIPANT,
        status=InfractionStatus.OPEN,
        debited=payment.payer,
        credited=payment.payee,
        created_at=now,
        last_modified=now,
    )
    try:
        await store.add_report(report)
    except MedChanged:
        raise DictProblem(
            ErrorType.INFRACTION_REPORT_ALREADY_BEING_PROCESSED, "a report of the payment is in progress"
        ) from None
    return report


async def _visible_report(store: MedStore, report_id: uuid.UUID, requester: str) -> InfractionReport:
    report = await store.report(report_id)
    if report is None or requester not in {report.debited, report.credited}:
        raise DictProblem(ErrorType.NOT_FOUND, "no report of the participant has this id")
    return report


async def get_report(store: MedStore, report_id: uuid.UUID, *, requester: str) -> InfractionReport:
    return await _visible_report(store, report_id, requester)


Judged = Callable[[InfractionReport], InfractionReport | None]


async def _report_step(
    store: MedStore, report_id: uuid.UUID, requester: str, judge: Judged
) -> InfractionReport:
    """``judge`` answers the report changed, or None when it stays as it is (a repeat)."""
    for _ in range(3):
        report = await _visible_report(store, report_id, requester)
        changed = judge(report)
        if changed is None:
            return report
        try:
            await store.change_report(changed, report.status)
        except MedChanged:
            continue
        return changed
    raise DictProblem(ErrorType.SERVICE_UNAVAILABLE, "the report keeps changing: try again")


def _invalid_report(report: InfractionReport, step: str) -> DictProblem:
    return DictProblem(
        ErrorType.INFRACTION_REPORT_OPERATION_INVALID, f"a {report.status.value} report is not {step}"
    )


async def acknowledge_report(
    store: MedStore, report_id: uuid.UUID, *, participant: str, requester: str, now: datetime
) -> InfractionReport:
    """``POST /infraction-reports/{id}/acknowledge``: by the party that did not report it."""
    if participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")

    def judge(report: InfractionReport) -> InfractionReport | None:
        if report.other_party != requester:
            raise DictProblem(
                ErrorType.FORBIDDEN, "a report is acknowledged by the party that did not make it"
            )
        if report.status is InfractionStatus.ACKNOWLEDGED:
            return None
        if report.status is not InfractionStatus.OPEN:
            raise _invalid_report(report, "acknowledged")
        return replace(report, status=InfractionStatus.ACKNOWLEDGED, last_modified=now)

    return await _report_step(store, report_id, requester, judge)


async def close_report(
    store: MedStore,
    report_id: uuid.UUID,
    *,
    participant: str,
    result: AnalysisResult,
    details: str | None,
    requester: str,
    now: datetime,
) -> InfractionReport:
    """``POST /infraction-reports/{id}/close``: the other party's analysis."""
    if participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")
    _details(details, ErrorType.INFRACTION_REPORT_INVALID)

    def judge(report: InfractionReport) -> InfractionReport | None:
        if report.other_party != requester:
            raise DictProblem(ErrorType.FORBIDDEN, "a report is closed by the party that did not make it")
        if report.status is InfractionStatus.CLOSED and report.analysis_result is result:
            return None
        if report.status not in {InfractionStatus.OPEN, InfractionStatus.ACKNOWLEDGED}:
            raise _invalid_report(report, "closed")
        return replace(
            report,
            status=InfractionStatus.CLOSED,
            analysis_result=result,
            analysis_details=details,
            last_modified=now,
        )

    return await _report_step(store, report_id, requester, judge)


async def cancel_report(
    store: MedStore, report_id: uuid.UUID, *, participant: str, requester: str, now: datetime
) -> InfractionReport:
    """``POST /infraction-reports/{id}/cancel``: by its reporter, at any time."""
    if participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")

    def judge(report: InfractionReport) -> InfractionReport | None:
        if report.reporter != requester:
            raise DictProblem(ErrorType.FORBIDDEN, "a report is cancelled by its reporter")
        if report.status is InfractionStatus.CANCELLED:
            return None
        return replace(report, status=InfractionStatus.CANCELLED, last_modified=now)

    return await _report_step(store, report_id, requester, judge)


def _limited(query: MedQuery, requester: str) -> None:
    if query.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")
    if not 1 <= query.limit <= MAX_LISTED:
        raise DictProblem(ErrorType.BAD_REQUEST, f"Limit is 1 to {MAX_LISTED}")


async def list_reports(
    store: MedStore, query: MedQuery, *, requester: str
) -> tuple[list[InfractionReport], bool]:
    _limited(query, requester)
    found = await store.reports(query)
    return found[: query.limit], len(found) > query.limit


async def create_refund(
    store: MedStore, asked: NewRefundRequest, *, requester: str, now: datetime
) -> RefundRequest:
    """``POST /refunds/``: by the payer's participant."""
    _details(asked.details, ErrorType.BAD_REQUEST)
    payment = await _payment_of(store, asked.transaction_id, requester, now, _REFUND_ERRORS)
    if requester != payment.payer:
        raise DictProblem(ErrorType.FORBIDDEN, "a refund is asked for by the payer's participant only")
    if not 0 < asked.amount <= payment.amount - payment.returned:
        raise DictProblem(
            ErrorType.TRANSACTION_NOT_REFUNDABLE,
            f"{payment.amount - payment.returned} centavos of the payment are left to give back",
        )
    if asked.reason is RefundReason.FRAUD:  # it follows the payment's report of the fraud
        reported = [
            report
            for report in await store.reports_of(payment.end_to_end_id)
            if report.asked.infraction_type is InfractionType.FRAUD
            and report.status is not InfractionStatus.CANCELLED
        ]
        if not reported:
            raise DictProblem(
                ErrorType.BAD_REQUEST, "a refund for fraud follows a report of the payment's fraud"
            )
        asked = replace(asked, infraction_report_id=reported[0].id)
    for known in await store.refunds_of(payment.end_to_end_id):
        if known.status is RefundStatus.OPEN:
            raise DictProblem(ErrorType.REFUND_ALREADY_BEING_PROCESSED, "a refund of the payment is open")
        if known.status is RefundStatus.CLOSED:
            raise DictProblem(ErrorType.REFUND_ALREADY_PROCESSED, "a refund of the payment was closed")
    refund = RefundRequest(
        asked=asked,
        id=uuid.uuid4(),
        status=RefundStatus.OPEN,
        requesting=payment.payer,
        contested=payment.payee,
        created_at=now,
        last_modified=now,
    )
    try:
        await store.add_refund(refund)
    except MedChanged:
        raise DictProblem(
            ErrorType.REFUND_ALREADY_BEING_PROCESSED, "a refund of the payment is open"
        ) from None
    return refund


async def _visible_refund(store: MedStore, refund_id: uuid.UUID, requester: str) -> RefundRequest:
    refund = await store.refund(refund_id)
    if refund is None or requester not in {refund.requesting, refund.contested}:
        raise DictProblem(ErrorType.NOT_FOUND, "no refund request of the participant has this id")
    return refund


async def get_refund(store: MedStore, refund_id: uuid.UUID, *, requester: str) -> RefundRequest:
    return await _visible_refund(store, refund_id, requester)


async def close_refund(
    store: MedStore,
    refund_id: uuid.UUID,
    *,
    participant: str,
    result: RefundAnalysisResult,
    details: str | None,
    rejection: RefundRejectionReason | None,
    refund_transaction_id: str | None,
    requester: str,
    now: datetime,
) -> RefundRequest:
    """``POST /refunds/{id}/close``: the payee's participant answers."""
    if participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")
    _details(details, ErrorType.BAD_REQUEST)
    refund = await _visible_refund(store, refund_id, requester)
    if refund.contested != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "a refund request is closed by the contested participant")
    if result is RefundAnalysisResult.REJECTED:
        if rejection is None or refund_transaction_id is not None:
            raise DictProblem(ErrorType.BAD_REQUEST, "a rejection names its reason, and no return")
    else:
        settled = None if refund_transaction_id is None else await store.settled_return(refund_transaction_id)
        if settled is None or settled[0] != refund.asked.transaction_id or rejection is not None:
            raise DictProblem(
                ErrorType.REFUND_TRANSACTION_NOT_FOUND,
                "an acceptance names a return of the payment the SPI settled",
            )
    closed = replace(
        refund,
        status=RefundStatus.CLOSED,
        analysis_result=result,
        analysis_details=details,
        rejection_reason=rejection,
        refund_transaction_id=refund_transaction_id,
        last_modified=now,
    )
    if refund.status is RefundStatus.CLOSED:
        if (refund.analysis_result, refund.refund_transaction_id) == (result, refund_transaction_id):
            return refund  # a repeat
        raise DictProblem(ErrorType.REFUND_OPERATION_INVALID, "the refund request was closed otherwise")
    if refund.status is not RefundStatus.OPEN:
        raise DictProblem(
            ErrorType.REFUND_OPERATION_INVALID, f"a {refund.status.value} request is not closed"
        )
    try:
        await store.change_refund(closed, RefundStatus.OPEN)
    except MedChanged:
        raise DictProblem(
            ErrorType.REFUND_OPERATION_INVALID, "the refund request changed meanwhile"
        ) from None
    return closed


async def cancel_refund(
    store: MedStore, refund_id: uuid.UUID, *, participant: str, requester: str, now: datetime
) -> RefundRequest:
    """``POST /refunds/{id}/cancel``: by its requester, while it is open."""
    if participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")
    refund = await _visible_refund(store, refund_id, requester)
    if refund.requesting != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "a refund request is cancelled by its requester")
    if refund.status is RefundStatus.CANCELLED:
        return refund
    if refund.status is not RefundStatus.OPEN:
        raise DictProblem(
            ErrorType.REFUND_OPERATION_INVALID, f"a {refund.status.value} request is not cancelled"
        )
    cancelled = replace(refund, status=RefundStatus.CANCELLED, last_modified=now)
    try:
        await store.change_refund(cancelled, RefundStatus.OPEN)
    except MedChanged:
        raise DictProblem(
            ErrorType.REFUND_OPERATION_INVALID, "the refund request changed meanwhile"
        ) from None
    return cancelled


async def list_refunds(
    store: MedStore, query: MedQuery, *, requester: str
) -> tuple[list[RefundRequest], bool]:
    _limited(query, requester)
    if query.role is None:
        raise DictProblem(ErrorType.BAD_REQUEST, "ParticipantRole is required")
    found = await store.refunds(query)
    return found[: query.limit], len(found) > query.limit


def counts_as_fraud(report: InfractionReport) -> bool:
    """Whether the report counts in ``REPORTED_FRAUDS`` (a fraud, not cancelled)."""
    return (
        report.asked.infraction_type is InfractionType.FRAUD
        and report.status is not InfractionStatus.CANCELLED
    )


def confirms_fraud(report: InfractionReport) -> bool:
    """Whether the report counts in ``CONFIRMED_FRAUDS`` (a fraud closed as agreed)."""
    return (
        report.asked.infraction_type is InfractionType.FRAUD
        and report.status is InfractionStatus.CLOSED
        and report.analysis_result is AnalysisResult.AGREED
    )
