"""The network's SPI behind the ``PaymentNetwork`` port: a transfer sent as a signed pacs.008, the
answer (a pacs.002) read into an :class:`~pixcore.network.rules.Outcome`."""

from __future__ import annotations

from datetime import UTC

from pixcore.accounts.rules import Counterpart
from pixcore.network.ports import NetworkUnavailable
from pixcore.network.rules import Outcome, OutgoingPayment
from pixcore.transfers.rules import SpiError
from pixweb.network.client import NetworkClient
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.spi.documents import document, read
from pixwire.spi.model import AccountType, Party, Payment, Reason, Status, StatusReport, new_message_id

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
        try:
            _, root = await self._client.call(
                "POST", "/spi/v1/messages", body=self._client.signed(document(message))
            )
        except DictProblem as problem:  # refused outright: never settled
            if problem.type is ErrorType.NOT_FOUND:
                return Outcome.refused(SpiError.UNKNOWN_ACCOUNT)
            if problem.type is ErrorType.SERVICE_UNAVAILABLE:
                raise NetworkUnavailable(str(problem)) from problem
            return Outcome.refused(SpiError.REGULATORY)
        report = read(root)
        if not isinstance(report, StatusReport) or report.end_to_end_id != payment.end_to_end_id:
            raise NetworkUnavailable("the SPI answered a payment with something else")
        return outcome_of(report)
