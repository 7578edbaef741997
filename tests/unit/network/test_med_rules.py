"""The MED's rules at the DICT (``pixnet.directory.med``) where a clock matters: a payment is
reported, or asked back, within 80 days of its settlement and not after."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from pixnet.directory.med import REPORT_PERIOD, SpiPayment, create_refund, create_report
from pixwire.dict.med import (
    InfractionReport,
    InfractionType,
    NewInfractionReport,
    NewRefundRequest,
    RefundReason,
    RefundRequest,
)
from pixwire.dict.model import DictProblem, ErrorType

A, B = "11111111", "22222222"
SETTLED = datetime(2026, 9, 1, 12, tzinfo=UTC)
E2E = "E11111111202609011200abcdefghijk"


class OnePayment:
    """A store that knows one settled payment and keeps what is made."""

    def __init__(self) -> None:
        self.reports: list[InfractionReport] = []
        self.refunds_made: list[RefundRequest] = []

    async def payment(self, end_to_end_id: str) -> SpiPayment | None:
        return SpiPayment(E2E, A, B, 1_000, SETTLED, 0) if end_to_end_id == E2E else None

    async def reports_of(self, end_to_end_id: str) -> list[InfractionReport]:
        return [r for r in self.reports if r.asked.transaction_id == end_to_end_id]

    async def add_report(self, report: InfractionReport) -> None:
        self.reports.append(report)

    async def refunds_of(self, end_to_end_id: str) -> list[RefundRequest]:
        return [r for r in self.refunds_made if r.asked.transaction_id == end_to_end_id]

    async def add_refund(self, refund: RefundRequest) -> None:
        self.refunds_made.append(refund)


@pytest.mark.parametrize(
    ("after", "allowed"), [(REPORT_PERIOD, True), (REPORT_PERIOD + timedelta(seconds=1), False)]
)
def test_a_payment_is_reported_and_asked_back_within_the_period(after: timedelta, allowed: bool) -> None:
    store = OnePayment()
    now = SETTLED + after
    report = create_report(store, NewInfractionReport(E2E, InfractionType.FRAUD), requester=A, now=now)  # type: ignore[arg-type]
    refund = create_refund(
        store, NewRefundRequest(E2E, RefundReason.OPERATIONAL_FLAW, 500), requester=A, now=now
    )  # type: ignore[arg-type]
    if allowed:
        assert asyncio.run(report).asked.transaction_id == E2E
        assert asyncio.run(refund).asked.amount == 500
        assert (len(store.reports), len(store.refunds_made)) == (1, 1)
        return
    for made, expired in (
        (report, ErrorType.INFRACTION_REPORT_PERIOD_EXPIRED),
        (refund, ErrorType.REFUND_PERIOD_EXPIRED),
    ):
        with pytest.raises(DictProblem) as caught:
            asyncio.run(made)
        assert caught.value.type is expired
