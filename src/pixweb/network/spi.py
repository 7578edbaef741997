"""The network's SPI behind the ``PaymentNetwork`` port: a transfer sent as a signed pacs.008, the
answer (a pacs.002) read into an :class:`~pixcore.network.rules.Outcome`."""

from __future__ import annotations

from datetime import UTC, datetime

from pixcore.accounts.rules import Counterpart
from pixcore.network.ports import NetworkUnavailable
from pixcore.network.rules import Outcome, OutgoingPayment, OutgoingReturn
from pixcore.transfers.rules import SpiError
from pixweb.network.client import NetworkClient
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.spi.documents import document, read
from pixwire.spi.model import (
    NETWORK_ISPB,
    AccountType,
    Party,
    Payment,
    PaymentReturn,
    Reason,
    ReturnReason,
    Status,
    StatusReport,
    new_message_id,
)

__all__ = ["SpiNetwork", "outcome_of"]

REASONS = {
    Reason.AB03: SpiError.TIMEOUT,
    Reason.AC03: SpiError.UNKNOWN_ACCOUNT,
    Reason.AC06: SpiError.BLOCKED_ACCOUNT,
    Reason.AG03: SpiError.NOT_ALLOWED,
    Reason.AM04: SpiError.INSUFFICIENT_SETTLEMENT,
    Reason.AM09: SpiError.REFUSED,
    Reason.BE01: SpiError.DOCUMENT_MISMATCH,
    Reason.DS04: SpiError.REFUSED,
    Reason.RR04: SpiError.REGULATORY,
}
"""The SPI's reasons in the service's terms (the TRANSFER notification's error codes)."""


def outcome_of(report: StatusReport) -> Outcome:
    """Where a payment stands by a status report."""
    if report.status is Status.ACSC:
        return Outcome.settled()
    if report.status is Status.RJCT:
        return Outcome.refused(
            REASONS.get(report.reason, SpiError.REFUSED) if report.reason else SpiError.REFUSED
        )
    return Outcome.pending()


def _party(holder: Counterpart) -> Party:
    return Party(
        holder.ispb,
        holder.branch or None,
        holder.account_number,
        AccountType.CACC,
        holder.document,
        holder.name,
    )


class SpiNetwork:
    def __init__(self, client: NetworkClient, *, ispb: str) -> None:
        self._client = client
        self._ispb = ispb

    async def send(self, payment: OutgoingPayment) -> Outcome:
        message = Payment(
            message_id=new_message_id(self._ispb),
            end_to_end_id=payment.end_to_end_id,
            amount=payment.amount,
            debtor=_party(payment.debtor),
            creditor=_party(payment.creditor),
            created_at=payment.created_at.astimezone(UTC),
            key=payment.key,
            remittance=payment.description,
        )
        return outcome_of(await self._post(message, payment.end_to_end_id))

    async def send_return(self, returned: OutgoingReturn) -> Outcome:
        message = PaymentReturn(
            message_id=new_message_id(self._ispb),
            return_id=returned.return_id,
            end_to_end_id=returned.end_to_end_id,
            amount=returned.amount,
            reason=ReturnReason.FR01 if returned.fraud else ReturnReason.MD06,
            created_at=datetime.now(UTC),
            remittance=returned.description,
        )
        return outcome_of(await self._post(message, returned.end_to_end_id))

    async def _post(self, message: Payment | PaymentReturn, end_to_end_id: str) -> StatusReport:
        """The SPI's status report of ``message``; a refusal outright (its ``problem``: the
        message never settles) as a rejected report."""
        try:
            _, root = await self._client.call(
                "POST", "/spi/v1/messages", body=self._client.signed(document(message))
            )
        except DictProblem as problem:
            if problem.type is ErrorType.SERVICE_UNAVAILABLE:
                raise NetworkUnavailable(str(problem)) from problem
            reason = Reason.AC03 if problem.type is ErrorType.NOT_FOUND else Reason.RR04
            return StatusReport(
                new_message_id(NETWORK_ISPB), end_to_end_id, Status.RJCT, datetime.now(UTC), reason
            )
        report = read(root)
        if not isinstance(report, StatusReport) or report.end_to_end_id != end_to_end_id:
            raise NetworkUnavailable("the SPI answered with something else than the message's status")
        return report
