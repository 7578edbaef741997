"""The MED between institutions, as this service takes part in it.

As the payer's institution, an operator reports a PIX one of our customers sent through the
network as a fraud (an infraction report) and asks its money back (a refund request), or asks it
back for an operational flaw (:func:`ask_back`); the money comes back as a return (pacs.004),
which the network's messages credit to the payer (``credit_network_return``).

As the payee's institution, each pass (:func:`answer_meds`) acknowledges the reports against
payments we received, and opens a MED case here for each refund request against one (its money
blocked, the account holder told by the MED webhook). The case is decided here as any MED case
(accepted: its refund goes back through the SPI; rejected: the money is released), and the next
passes close the request at the DICT: accepted naming the return once the SPI settled it,
rejected with its reason; and close the fraud's report, agreed or not.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from pixcore.clock import Clock
from pixcore.errors import DuplicateMedCase, TransactionNotFound
from pixcore.network.rules import MedLink
from pixcore.records import TransactionType
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.refunds.med_service import open_med
from pixcore.refunds.rules import RefundStatus
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = [
    "AskedBack",
    "MedDirectory",
    "MedLink",
    "MedRequest",
    "answer_meds",
    "ask_back",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MedRequest:
    """A refund request of the DICT against a payment we received."""

    refund_id: str
    end_to_end_id: str
    amount: int
    fraud: bool
    report_id: str | None


@dataclass(frozen=True, slots=True)
class AskedBack:
    report_id: str | None
    refund_id: str
    amount: int


class MedDirectory(Protocol):
    """The network's DICT, for the MED."""

    async def report_fraud(self, end_to_end_id: str, details: str | None) -> str:
        """Report the payment as a fraud; the report's id."""
        ...

    async def ask_back(self, end_to_end_id: str, amount: int, *, fraud: bool, details: str | None) -> str:
        """Ask the payment's money back; the request's id. ``ValidationError`` when refused."""
        ...

    async def reports_to_acknowledge(self) -> list[str]:
        """The reports other institutions made against payments we received, still OPEN."""
        ...

    async def acknowledge_report(self, report_id: str) -> None: ...

    async def close_report(self, report_id: str, *, agreed: bool) -> None:
        """Close it (a report its reporter cancelled meanwhile is left as it is)."""
        ...

    async def requests_against_us(self) -> list[MedRequest]:
        """The refund requests against payments we received, still OPEN."""
        ...

    async def close_request(
        self, request_id: str, *, returned: str | None, partly: bool, rejection: str | None
    ) -> None:
        """Close it: accepted naming the return (``returned``), or rejected with ``rejection``."""
        ...


async def ask_back(
    uow: UnitOfWorkFactory,
    directory: MedDirectory,
    *,
    end_to_end_id: str,
    fraud: bool,
    details: str | None = None,
) -> AskedBack:
    """For a PIX one of our customers sent through the network and the SPI settled: report it (a
    fraud) and ask all of it back."""
    async with uow() as tx:
        account_id = await tx.network.transfer_account(end_to_end_id)
        original = (
            None
            if account_id is None
            else await tx.refunds.lock_original(account_id, end_to_end_id, TransactionType.WITHDRAW)
        )
    if original is None:
        raise TransactionNotFound(
            f"no PIX this service sent through the network and settled has end-to-end id {end_to_end_id}"
        )
    report_id = await directory.report_fraud(end_to_end_id, details) if fraud else None
    refund_id = await directory.ask_back(end_to_end_id, original.amount, fraud=fraud, details=details)
    return AskedBack(report_id, refund_id, original.amount)


async def _open_cases(uow: UnitOfWorkFactory, clock: Clock, directory: MedDirectory) -> int:
    """A MED case for each request not linked yet: the receipt's open case if it has one (opened
    by a pass that stopped before it linked it, or by hand), else a new one; then the link."""
    opened = 0
    for request in await directory.requests_against_us():
        async with uow() as tx:
            if await tx.network.med_link(request.refund_id) is not None:
                continue
            receipt = await tx.network.receipt(request.end_to_end_id)
            case = (
                None
                if receipt is None or receipt.transaction_id is None
                else await tx.med.open_case(receipt.transaction_id)
            )
        if receipt is None:
            log.error("refund request %s names no payment we received: left", request.refund_id)
            continue
        if case is None:
            reason = MedReason.MED_FRAUDE if request.fraud else MedReason.MED_OPERACIONAL
            try:
                case = await open_med(
                    uow,
                    clock,
                    account_id=receipt.account_id,
                    end_to_end_id=request.end_to_end_id,
                    reason=reason,
                )
            except DuplicateMedCase:  # opened meanwhile by another process: the next pass links it
                continue
        link = MedLink(
            request.refund_id, case.id, receipt.account_id, request.end_to_end_id, request.report_id
        )
        async with uow() as tx:
            await tx.network.link_med(link)
            await tx.commit()
        opened += 1
    return opened


async def _close_decided(uow: UnitOfWorkFactory, clock: Clock, directory: MedDirectory) -> int:
    closed = 0
    async with uow() as tx:
        links = await tx.network.med_links()
    for link in links:
        async with uow() as tx:
            case = await tx.med.lock(link.account_id, link.case_id)
            if case is None or case.status is MedStatus.CREATED:
                continue
            refund = await tx.refunds.find(case.original_transaction_id, f"MED{case.id}")
        if case.status is MedStatus.REJECTED:
            await directory.close_request(
                link.refund_id, returned=None, partly=False, rejection="CANNOT_REFUND"
            )
            agreed = False
        elif refund is None or refund.status is RefundStatus.EM_PROCESSAMENTO:
            continue  # accepted: its return is on its way through the SPI
        elif refund.status is RefundStatus.DEVOLVIDO:
            partly = refund.amount < case.amount
            await directory.close_request(
                link.refund_id, returned=refund.rtr_id, partly=partly, rejection=None
            )
            agreed = True
        else:  # NAO_REALIZADO: nothing could be blocked, or the SPI refused the return
            await directory.close_request(link.refund_id, returned=None, partly=False, rejection="NO_BALANCE")
            agreed = True
        if link.report_id is not None:
            await directory.close_report(link.report_id, agreed=agreed)
        async with uow() as tx:
            await tx.network.close_med(link.refund_id, clock.now())
            await tx.commit()
        closed += 1
    return closed


async def answer_meds(uow: UnitOfWorkFactory, clock: Clock, directory: MedDirectory) -> int:
    """One pass as the payee's institution: reports acknowledged, a MED case opened here for
    each new refund request, and the requests whose case was decided closed at the DICT; how
    many things were done."""
    done = 0
    for report_id in await directory.reports_to_acknowledge():
        await directory.acknowledge_report(report_id)
        done += 1
    done += await _open_cases(uow, clock, directory)
    return done + await _close_decided(uow, clock, directory)
