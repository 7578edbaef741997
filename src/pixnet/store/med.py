"""The DICT's infraction reports and refund requests, in the network's PostgreSQL database
(:class:`~pixnet.directory.med.MedStore`), beside the SPI's payments and returns they name.

One report in progress, and one open refund request, a payment: partial unique indexes. A change
is one transaction that checks the status it expects (``FOR UPDATE``); a report's fraud counters
(``directory_events``, by the payee's key, owner and account) change with it: a report of fraud
counts ``REPORTED_FRAUDS`` until it is cancelled, and ``CONFIRMED_FRAUDS`` once closed as agreed.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from pixinfra.persistence.sql import compose
from pixnet.directory.med import MedChanged, MedQuery, SpiPayment, confirms_fraud, counts_as_fraud
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

__all__ = ["PostgresMed"]

_REPORT = (
    "id, end_to_end_id, infraction_type, details, reported_by, status, debited, credited,"
    " analysis_result, analysis_details, created_at, last_modified"
)
_REFUND = (
    "id, end_to_end_id, reason, amount, details, infraction_report_id, status, requesting, contested,"
    " analysis_result, analysis_details, rejection_reason, refund_transaction_id, created_at, last_modified"
)
_SELECT_REPORT = compose("SELECT ", _REPORT, " FROM infraction_reports WHERE ")
_SELECT_REFUND = compose("SELECT ", _REFUND, " FROM refund_requests WHERE ")
_WINDOW = """
 AND (cardinality($2::text[]) = 0 OR status = ANY ($2))
 AND ($3::timestamptz IS NULL OR last_modified >= $3)
 AND ($4::timestamptz IS NULL OR last_modified <= $4)
 ORDER BY last_modified, id LIMIT $5
"""
_REPORT_ROLES = {
    "either": "(debited = $1 OR credited = $1)",
    "debited": "debited = $1",
    "credited": "credited = $1",
}
_REFUND_ROLES = {RefundRole.REQUESTING: "requesting = $1", RefundRole.CONTESTED: "contested = $1"}
_COUNT_FRAUD = """
INSERT INTO directory_events (kind, key, tax_id, participant, branch, account_number, at, report_id)
SELECT $2, key, payee_tax_id, payee, payee_branch, payee_account, $3, $4
  FROM payments WHERE end_to_end_id = $1
"""


def _optional(kind: Any, value: str | None) -> Any:
    return None if value is None else kind(value)


def _report(row: Any) -> InfractionReport:
    return InfractionReport(
        asked=NewInfractionReport(
            row["end_to_end_id"], InfractionType(row["infraction_type"]), row["details"]
        ),
        id=row["id"],
        reported_by=ReportedBy(row["reported_by"]),
        status=InfractionStatus(row["status"]),
        debited=row["debited"],
        credited=row["credited"],
        created_at=row["created_at"],
        last_modified=row["last_modified"],
        analysis_result=_optional(AnalysisResult, row["analysis_result"]),
        analysis_details=row["analysis_details"],
    )


def _refund(row: Any) -> RefundRequest:
    return RefundRequest(
        asked=NewRefundRequest(
            row["end_to_end_id"],
            RefundReason(row["reason"]),
            row["amount"],
            row["details"],
            row["infraction_report_id"],
        ),
        id=row["id"],
        status=RefundStatus(row["status"]),
        requesting=row["requesting"],
        contested=row["contested"],
        created_at=row["created_at"],
        last_modified=row["last_modified"],
        analysis_result=_optional(RefundAnalysisResult, row["analysis_result"]),
        analysis_details=row["analysis_details"],
        rejection_reason=_optional(RefundRejectionReason, row["rejection_reason"]),
        refund_transaction_id=row["refund_transaction_id"],
    )


async def _counters(connection: Any, report: InfractionReport) -> None:
    """The report's fraud counters as its status says (written again from nothing)."""
    await connection.execute("DELETE FROM directory_events WHERE report_id = $1", report.id)
    e2e, at = report.asked.transaction_id, report.last_modified
    if counts_as_fraud(report):
        await connection.execute(_COUNT_FRAUD, e2e, "REPORTED_FRAUDS", report.created_at, report.id)
    if confirms_fraud(report):
        await connection.execute(_COUNT_FRAUD, e2e, "CONFIRMED_FRAUDS", at, report.id)


class PostgresMed:
    def __init__(self, pool: asyncpg.Pool[Any]) -> None:
        self._pool = pool

    async def payment(self, end_to_end_id: str) -> SpiPayment | None:
        row = await self._pool.fetchrow(
            "SELECT end_to_end_id, payer, payee, amount, settled_at, returned FROM payments"
            " WHERE end_to_end_id = $1",
            end_to_end_id,
        )
        if row is None:
            return None
        return SpiPayment(
            row["end_to_end_id"],
            row["payer"],
            row["payee"],
            row["amount"],
            row["settled_at"],
            row["returned"],
        )

    async def settled_return(self, return_id: str) -> tuple[str, int] | None:
        row = await self._pool.fetchrow(
            "SELECT end_to_end_id, amount FROM returns WHERE return_id = $1 AND status = 'ACSC'", return_id
        )
        return None if row is None else (row["end_to_end_id"], row["amount"])

    async def reports_of(self, end_to_end_id: str) -> list[InfractionReport]:
        rows = await self._pool.fetch(compose(_SELECT_REPORT, "end_to_end_id = $1"), end_to_end_id)
        return [_report(row) for row in rows]

    async def report(self, report_id: uuid.UUID) -> InfractionReport | None:
        row = await self._pool.fetchrow(compose(_SELECT_REPORT, "id = $1"), report_id)
        return None if row is None else _report(row)

    async def add_report(self, report: InfractionReport) -> None:
        asked = report.asked
        try:
            async with self._pool.acquire() as connection, connection.transaction():
                await connection.execute(
                    compose(
                        "INSERT INTO infraction_reports (",
                        _REPORT,
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    ),
                    report.id,
                    asked.transaction_id,
                    asked.infraction_type.value,
                    asked.details,
                    report.reported_by.value,
                    report.status.value,
                    report.debited,
                    report.credited,
                    None,
                    None,
                    report.created_at,
                    report.last_modified,
                )
                await _counters(connection, report)
        except asyncpg.UniqueViolationError as exc:
            raise MedChanged(report.id) from exc

    async def change_report(self, report: InfractionReport, was: InfractionStatus) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            status = await connection.fetchval(
                "SELECT status FROM infraction_reports WHERE id = $1 FOR UPDATE", report.id
            )
            if status != was.value:
                raise MedChanged(report.id)
            await connection.execute(
                "UPDATE infraction_reports SET status = $2, analysis_result = $3, analysis_details = $4,"
                " last_modified = $5 WHERE id = $1",
                report.id,
                report.status.value,
                _optional(str, report.analysis_result),
                report.analysis_details,
                report.last_modified,
            )
            await _counters(connection, report)

    async def reports(self, query: MedQuery) -> list[InfractionReport]:
        if query.is_debited == query.is_credited:
            role = "either"
        elif query.is_debited or query.is_credited is False:
            role = "debited"
        else:
            role = "credited"
        rows = await self._pool.fetch(compose(_SELECT_REPORT, _REPORT_ROLES[role], _WINDOW), *_window(query))
        return [_report(row) for row in rows]

    async def refunds_of(self, end_to_end_id: str) -> list[RefundRequest]:
        rows = await self._pool.fetch(compose(_SELECT_REFUND, "end_to_end_id = $1"), end_to_end_id)
        return [_refund(row) for row in rows]

    async def refund(self, refund_id: uuid.UUID) -> RefundRequest | None:
        row = await self._pool.fetchrow(compose(_SELECT_REFUND, "id = $1"), refund_id)
        return None if row is None else _refund(row)

    async def add_refund(self, refund: RefundRequest) -> None:
        asked = refund.asked
        try:
            await self._pool.execute(
                compose(
                    "INSERT INTO refund_requests (",
                    _REFUND,
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, NULL, NULL, $10, $11)",
                ),
                refund.id,
                asked.transaction_id,
                asked.reason.value,
                asked.amount,
                asked.details,
                asked.infraction_report_id,
                refund.status.value,
                refund.requesting,
                refund.contested,
                refund.created_at,
                refund.last_modified,
            )
        except asyncpg.UniqueViolationError as exc:
            raise MedChanged(refund.id) from exc

    async def change_refund(self, refund: RefundRequest, was: RefundStatus) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            status = await connection.fetchval(
                "SELECT status FROM refund_requests WHERE id = $1 FOR UPDATE", refund.id
            )
            if status != was.value:
                raise MedChanged(refund.id)
            await connection.execute(
                "UPDATE refund_requests SET status = $2, analysis_result = $3, analysis_details = $4,"
                " rejection_reason = $5, refund_transaction_id = $6, last_modified = $7 WHERE id = $1",
                refund.id,
                refund.status.value,
                _optional(str, refund.analysis_result),
                refund.analysis_details,
                _optional(str, refund.rejection_reason),
                refund.refund_transaction_id,
                refund.last_modified,
            )

    async def refunds(self, query: MedQuery) -> list[RefundRequest]:
        role = query.role or RefundRole.REQUESTING
        rows = await self._pool.fetch(compose(_SELECT_REFUND, _REFUND_ROLES[role], _WINDOW), *_window(query))
        return [_refund(row) for row in rows]


def _window(query: MedQuery) -> tuple[Any, ...]:
    return (
        query.participant,
        list(query.statuses),
        query.modified_after,
        query.modified_before,
        query.limit + 1,
    )
