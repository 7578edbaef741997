"""MED cases: open one against a receipt, accept it (the payer gets the blocked funds back as a
refund of a MED nature) or reject it (the funds are released).

The block is posted on the disputed receipt's own transaction (available ->
blocked), and so is its release; an accepted case's refund has its own
REFUND_IN record, like any refund.
"""

from __future__ import annotations

import dataclasses

from pixcore import ledger
from pixcore.clock import Clock
from pixcore.errors import DuplicateMedCase, MedCaseNotFound, RefundAboveRefundable, TransactionNotFound
from pixcore.events import MedEvent
from pixcore.identifiers import IdentifierField
from pixcore.problems import Problem
from pixcore.queries.rules import MAX_ID
from pixcore.records import TransactionType
from pixcore.refunds.med import MedCase, MedLifecycle, MedReason, MedStatus, NewMedCase
from pixcore.refunds.refund_service import finish_refund, refundable, start_refund
from pixcore.refunds.rules import Original, Refund, RefundNature
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = ["MedOutcome", "accept_med", "open_med", "reject_med"]


@dataclasses.dataclass(frozen=True, slots=True)
class MedOutcome:
    case: MedCase
    refund: Refund | None = None


async def open_med(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, end_to_end_id: str, reason: MedReason
) -> MedCase:
    """Dispute what remains refundable of a receipt and block it (as much as ``available`` holds)."""
    now = clock.now()
    async with uow() as tx:
        receipt = await tx.refunds.lock_original(account_id, end_to_end_id, TransactionType.PAYMENT)
        if receipt is None:
            raise TransactionNotFound(
                Problem.of((), "No received PIX of your account has this {}.", IdentifierField.END_TO_END_ID)
            )
        if await tx.med.open_amount(receipt.transaction_id):
            raise DuplicateMedCase()
        disputed = await refundable(tx, receipt)
        if disputed <= 0:
            problem = "nothing of this receipt remains to dispute"
            raise RefundAboveRefundable(f"Invalid MED: {problem}", details=[problem])
        balance = await tx.balances.get(account_id)
        blocked = min(disputed, balance.available if balance else 0)
        posting = ledger.reserve(account_id, blocked) if blocked > 0 else None
        if posting is not None and not await tx.ledger.try_post(receipt.transaction_id, posting, now):
            blocked = 0  # spent meanwhile by a concurrent debit: the case opens with nothing blocked
        case = await tx.med.add(
            NewMedCase(
                account_id=account_id,
                original_transaction_id=receipt.transaction_id,
                end_to_end_id=receipt.end_to_end_id,
                reason=reason,
                amount=disputed,
                blocked=blocked,
                created_at=now,
            )
        )
        await _notify(tx, case, MedStatus.CREATED)
        await tx.commit()
    return case


async def _notify(tx: UnitOfWork, case: MedCase, status: MedStatus) -> None:
    event = MedEvent(
        case_id=case.id,
        end_to_end_id=case.end_to_end_id,
        status=status,
        reason=case.reason,
        amount=case.amount,
    )
    await tx.outbox.add(case.account_id, event, case.finished_at or case.created_at)


async def _locked(tx: UnitOfWork, account_id: int, case_id: int) -> tuple[MedCase, Original]:
    if not 1 <= case_id <= MAX_ID:  # ids are bigint: a larger one names nothing
        raise MedCaseNotFound()
    case = await tx.med.lock(account_id, case_id)
    if case is None:
        raise MedCaseNotFound()
    receipt = await tx.refunds.lock_original(account_id, case.end_to_end_id, TransactionType.PAYMENT)
    if receipt is None:  # the case's foreign key guarantees it
        raise TransactionNotFound()
    return case, receipt


async def accept_med(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, case_id: int, ispb: str
) -> MedOutcome:
    """The blocked funds go back to the payer: a refund of nature MED_FRAUDE or MED_OPERACIONAL,
    DEVOLVIDO at once (NAO_REALIZADO if nothing could be blocked); of a PIX received through the
    network, sent back through its SPI and DEVOLVIDO once it settles."""
    now = clock.now()
    async with uow() as tx:
        case, receipt = await _locked(tx, account_id, case_id)
        status = MedLifecycle(case.status).accept()
        await tx.med.finish(case.id, status, now)
        refund = await start_refund(
            tx,
            receipt,
            refund_id=f"MED{case.id}",
            amount=case.blocked or case.amount,
            nature=RefundNature(case.reason.value),
            description="Devolucao MED",
            ispb=ispb,
            now=now,
            process_after=now,
            med_case_id=case.id,
            reserved=case.blocked > 0,
        )
        if case.blocked:  # the block was posted on the receipt; the refund's record takes it over
            await tx.ledger.post(receipt.transaction_id, ledger.release(account_id, case.blocked), now)
            await tx.ledger.post(refund.transaction_id, ledger.reserve(account_id, case.blocked), now)
        if not (case.blocked and await tx.network.receipt(receipt.end_to_end_id) is not None):
            refund = await finish_refund(tx, refund, now)
        # else: the receipt came through a PIX network: the refund goes back through its SPI, and is
        # finished by the SPI's answer (``pixcore.network.participant_service.send_due_refunds``)
        finished = dataclasses.replace(case, status=status, finished_at=now)
        await _notify(tx, finished, status)
        await tx.commit()
    return MedOutcome(finished, refund)


async def reject_med(uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, case_id: int) -> MedOutcome:
    """The dispute fails: the blocked funds are released."""
    now = clock.now()
    async with uow() as tx:
        case, receipt = await _locked(tx, account_id, case_id)
        status = MedLifecycle(case.status).reject()
        if case.blocked:
            await tx.ledger.post(receipt.transaction_id, ledger.release(account_id, case.blocked), now)
        await tx.med.finish(case.id, status, now)
        finished = dataclasses.replace(case, status=status, finished_at=now)
        await _notify(tx, finished, status)
        await tx.commit()
    return MedOutcome(finished)
