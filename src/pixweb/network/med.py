"""The MED between institutions (``MedDirectory``) when the service is a participant of a network:
the network's DICT's infraction reports and refund requests, each write signed by this
institution; and the loop that answers the MED against payments we received
(``pixcore.network.med.answer_meds``).

A refusal of the DICT when a report or request is made is a ``ValidationError`` naming its type
and detail (the operator's command prints it); any other refusal, or no answer, is
``NetworkUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from pixcore.clock import Clock
from pixcore.network.med import MedRequest, answer_meds
from pixcore.network.ports import NetworkUnavailable
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.network.client import NetworkClient
from pixwire.dict.med import (
    AnalysisResult,
    InfractionStatus,
    InfractionType,
    NewInfractionReport,
    NewRefundRequest,
    RefundAnalysisResult,
    RefundReason,
    RefundRejectionReason,
    RefundStatus,
)
from pixwire.dict.med_documents import (
    CloseRefund,
    ReportAction,
    ReportStep,
    close_refund_request,
    create_refund_request,
    create_report_request,
    read_refund_response,
    read_refunds_response,
    read_report_response,
    read_reports_response,
    report_step_request,
)

__all__ = ["MED_INTERVAL", "MedLoop", "NetworkMed"]

log = logging.getLogger(__name__)

MED_INTERVAL = 5.0
"""Seconds between two passes (two listings a pass, within the DICT's policies of 40 a minute)."""


class NetworkMed:
    def __init__(self, client: NetworkClient, *, ispb: str) -> None:
        self._client = client
        self._ispb = ispb

    async def report_fraud(self, end_to_end_id: str, details: str | None) -> str:
        asked = NewInfractionReport(end_to_end_id, InfractionType.FRAUD, details)
        root = await self._client.made(
            "/api/v1/infraction-reports/", create_report_request(self._ispb, asked)
        )
        return str(read_report_response(root).id)

    async def ask_back(self, end_to_end_id: str, amount: int, *, fraud: bool, details: str | None) -> str:
        reason = RefundReason.FRAUD if fraud else RefundReason.OPERATIONAL_FLAW
        asked = NewRefundRequest(end_to_end_id, reason, amount, details)
        root = await self._client.made("/api/v1/refunds/", create_refund_request(self._ispb, asked))
        return str(read_refund_response(root).id)

    async def reports_to_acknowledge(self) -> list[str]:
        params = {
            "Participant": self._ispb,
            "IsCredited": "true",
            "Status": InfractionStatus.OPEN.value,
            "Limit": "200",
        }
        reports, _ = read_reports_response(
            await self._client.answer("GET", "/api/v1/infraction-reports/", params=params)
        )
        return [str(report.id) for report in reports if report.other_party == self._ispb]

    async def _step(self, report_id: str, step: ReportStep, action: ReportAction) -> None:
        body = self._client.signed(report_step_request(step, action))
        await self._client.answer("POST", f"/api/v1/infraction-reports/{report_id}/{step.value}", body=body)

    async def acknowledge_report(self, report_id: str) -> None:
        await self._step(report_id, ReportStep.ACKNOWLEDGE, ReportAction(uuid.UUID(report_id), self._ispb))

    async def close_report(self, report_id: str, *, agreed: bool) -> None:
        result = AnalysisResult.AGREED if agreed else AnalysisResult.DISAGREED
        action = ReportAction(uuid.UUID(report_id), self._ispb, result)
        try:
            await self._step(report_id, ReportStep.CLOSE, action)
        except NetworkUnavailable as exc:
            if "InfractionReportOperationInvalid" not in exc.reason:  # cancelled by its reporter: left
                raise

    async def requests_against_us(self) -> list[MedRequest]:
        params = {
            "Participant": self._ispb,
            "ParticipantRole": "CONTESTED",
            "Status": RefundStatus.OPEN.value,
            "Limit": "200",
        }
        refunds, _ = read_refunds_response(
            await self._client.answer("GET", "/api/v1/refunds/", params=params)
        )
        return [
            MedRequest(
                refund_id=str(refund.id),
                end_to_end_id=refund.asked.transaction_id,
                amount=refund.asked.amount,
                fraud=refund.asked.reason is RefundReason.FRAUD,
                report_id=None
                if refund.asked.infraction_report_id is None
                else str(refund.asked.infraction_report_id),
            )
            for refund in refunds
        ]

    async def close_request(
        self, request_id: str, *, returned: str | None, partly: bool, rejection: str | None
    ) -> None:
        if returned is not None:
            result = (
                RefundAnalysisResult.PARTIALLY_ACCEPTED if partly else RefundAnalysisResult.TOTALLY_ACCEPTED
            )
        else:
            result = RefundAnalysisResult.REJECTED
        closing = CloseRefund(
            refund_id=uuid.UUID(request_id),
            participant=self._ispb,
            result=result,
            rejection=None if rejection is None else RefundRejectionReason(rejection),
            refund_transaction_id=returned,
        )
        body = self._client.signed(close_refund_request(closing))
        await self._client.answer("POST", f"/api/v1/refunds/{request_id}/close", body=body)


class MedLoop:
    """Every :data:`MED_INTERVAL` seconds, one pass of ``answer_meds``."""

    def __init__(self, med: NetworkMed, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._med = med
        self._uow = uow
        self._clock = clock

    async def once(self) -> int:
        return await answer_meds(self._uow, self._clock, self._med)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.once()
            except NetworkUnavailable as exc:
                log.warning("the MED waits: %s", exc.reason)
            except Exception:  # logged; the next pass takes up what is still open
                log.exception("a pass over the MED failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), MED_INTERVAL)
