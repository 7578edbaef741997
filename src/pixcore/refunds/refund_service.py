"""Refunds: request one of a receipt, process it, and receive one of a transfer.

Each step is one unit of work. A request locks the receipt's transaction row
first, so that concurrent requests count the refunds already made one at a
time: their sum never passes the amount received.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta

from pixcore import ledger
from pixcore.clock import Clock
from pixcore.errors import (
    InternalRefund,
    RefundAboveRefundable,
    RefundIdReused,
    RefundNotFound,
    RefundWindowClosed,
    TransactionNotFound,
)
from pixcore.events import KeyPixEvent, RefundDirection, Refunded, RefundEvent
from pixcore.identifiers import IdentifierField, new_return_id, validate_e2eid_path, validate_refund_id
from pixcore.money import format_amount_string, require_positive
from pixcore.problems import Problem
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.refunds.rules import (
    INSUFFICIENT_FUNDS,
    REFUND_WINDOW,
    NewRefund,
    Original,
    Refund,
    RefundField,
    RefundKind,
    RefundLifecycle,
    RefundNature,
    RefundRequest,
    RefundStatus,
)
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "RequestedRefund",
    "credit_return",
    "finish_refund",
    "get_refund",
    "process_due_refunds",
    "process_refund",
    "receive_refund",
    "refundable",
    "refuse_refund",
    "request_refund",
]


@dataclass(frozen=True, slots=True)
class RequestedRefund:
    refund: Refund
    created: bool
    """False when the same request was made before: this is that refund."""


_NO_PART = {
    RefundNature.RETIRADA: "RETIRADA refunds the cash of a Pix Saque or Troco; this PIX paid out none",
    RefundNature.ORIGINAL: "ORIGINAL refunds a purchase; this Pix Saque had none (RETIRADA refunds its cash)",
}
_AS = {RefundNature.RETIRADA: " as RETIRADA (the cash)", RefundNature.ORIGINAL: ""}


async def refundable(tx: UnitOfWork, receipt: Original) -> int:
    """What of a receipt may still be refunded: its amount less the refunds not NAO_REALIZADO
    and an open MED case's disputed amount. Call with the receipt locked."""
    taken = await tx.refunds.total(receipt.transaction_id, RefundKind.SENT)
    return receipt.amount - taken - await tx.med.open_amount(receipt.transaction_id)


async def start_refund(
    tx: UnitOfWork,
    receipt: Original,
    *,
    refund_id: str,
    amount: int,
    nature: RefundNature,
    description: str | None,
    ispb: str,
    now: datetime,
    process_after: datetime,
    med_case_id: int | None = None,
    transaction_id: int | None = None,
    reserved: bool | None = None,
) -> Refund:
    """Record a refund EM_PROCESSAMENTO with its REFUND_IN record, reserving its amount if
    ``available`` covers it. A MED refund brings its record and reservation along."""
    rtr_id = new_return_id(ispb, now)
    if transaction_id is None:
        transaction_id = await tx.transactions.add(
            NewTransaction(
                account_id=receipt.account_id,
                type=TransactionType.REFUND_IN,
                status=TransactionStatus.PENDING,
                amount=amount,
                created_at=now,
                end_to_end_id=rtr_id,
                description=description,
                counterpart=receipt.counterpart,
            )
        )
    if reserved is None:
        reserved = await tx.ledger.try_post(transaction_id, ledger.reserve(receipt.account_id, amount), now)
    return await tx.refunds.add(
        NewRefund(
            kind=RefundKind.SENT,
            account_id=receipt.account_id,
            original_transaction_id=receipt.transaction_id,
            refund_id=refund_id,
            rtr_id=rtr_id,
            amount=amount,
            nature=nature,
            description=description,
            requested_at=now,
            process_after=process_after,
            transaction_id=transaction_id,
            reserved=reserved,
            med_case_id=med_case_id,
        )
    )


async def request_refund(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    end_to_end_id: str,
    refund_id: str,
    request: RefundRequest,
    ispb: str,
    delay: timedelta,
) -> RequestedRefund:
    """``PUT /pix/{e2eid}/devolucao/{id}``: 404 unless a receipt of the account; the same id and
    body again returns the refund; past 89 days 422; above the refundable remainder 400."""
    validate_e2eid_path(end_to_end_id)
    validate_refund_id(refund_id)
    now = clock.now()
    async with uow() as tx:
        receipt = await tx.refunds.lock_original(account_id, end_to_end_id, TransactionType.PAYMENT)
        if receipt is None:
            raise TransactionNotFound(
                Problem.of((), "No received PIX of your account has this {}.", IdentifierField.END_TO_END_ID)
            )
        existing = await tx.refunds.find(receipt.transaction_id, refund_id)
        if existing is not None:
            if not existing.same_request(request):
                raise RefundIdReused(f"The refund {refund_id} exists already, with another request.")
            return RequestedRefund(existing, created=False)
        if now > receipt.received_at + REFUND_WINDOW:
            raise RefundWindowClosed()
        part = receipt.part_of(request.nature)
        if part == 0:
            problem = Problem.of(RefundField.NATURE, _NO_PART[request.nature])
            raise RefundAboveRefundable(problems=[problem], summary="Invalid refund: {}")
        taken = await tx.refunds.total(receipt.transaction_id, RefundKind.SENT, request.nature)
        remaining = min(await refundable(tx, receipt), part - taken)
        if request.amount > remaining:
            left = format_amount_string(max(remaining, 0))
            text = f"at most {left} remains refundable{_AS[request.nature]}"
            problem = Problem.of(RefundField.AMOUNT, text)
            raise RefundAboveRefundable(problems=[problem], summary="Invalid refund: {}")
        refund = await start_refund(
            tx,
            receipt,
            refund_id=refund_id,
            amount=request.amount,
            nature=request.nature,
            description=request.description,
            ispb=ispb,
            now=now,
            process_after=now + delay,
        )
        await tx.commit()
    return RequestedRefund(refund, created=True)


async def get_refund(
    uow: UnitOfWorkFactory, *, account_id: int, end_to_end_id: str, refund_id: str
) -> Refund:
    validate_e2eid_path(end_to_end_id)
    validate_refund_id(refund_id)
    async with uow() as tx:
        receipt = await tx.refunds.lock_original(account_id, end_to_end_id, TransactionType.PAYMENT)
        refund = None if receipt is None else await tx.refunds.find(receipt.transaction_id, refund_id)
    if refund is None:
        raise RefundNotFound()
    return refund


async def process_due_refunds(uow: UnitOfWorkFactory, clock: Clock, *, limit: int = 100) -> int:
    """Finish every refund whose time has come, each in its own unit of work; returns how many."""
    async with uow() as tx:
        ids = await tx.refunds.due(clock.now(), limit)
    finished = 0
    for refund_pk in ids:
        finished += await process_refund(uow, clock, refund_pk)
    return finished


async def process_refund(uow: UnitOfWorkFactory, clock: Clock, refund_pk: int) -> int:
    """DEVOLVIDO (the reserved funds leave, REFUND event) or NAO_REALIZADO (released, ``motivo``)."""
    now = clock.now()
    async with uow() as tx:
        refund = await tx.refunds.lock_pending(refund_pk)
        if refund is None or refund.process_after > now:
            return 0
        await finish_refund(tx, refund, now)
        await tx.commit()
    return 1


async def finish_refund(tx: UnitOfWork, refund: Refund, now: datetime) -> Refund:
    """DEVOLVIDO: the reserved amount goes back to the payer, to an outside institution or, when
    the payer is an account of this service, to that account, in the same transaction; NAO_REALIZADO when
    nothing could be reserved."""
    lifecycle = RefundLifecycle(refund.status)
    original = await _original(tx, refund)
    if not refund.reserved:
        status = lifecycle.fail()
        await tx.transactions.set_status(refund.transaction_id, TransactionStatus.ERROR, now)
        await tx.refunds.finish(refund.id, status, INSUFFICIENT_FUNDS, now)
        await _tell_the_key(tx, original, now)
        return _finished(refund, status, INSUFFICIENT_FUNDS, now)
    status = lifecycle.complete()
    payer_account = original.counterpart_account_id
    if payer_account is None:
        posting = ledger.settle_out(refund.account_id, refund.amount, _institution_of(original))
    else:
        posting = ledger.settle_in(refund.account_id, payer_account, refund.amount)
    await tx.ledger.post(refund.transaction_id, posting, now)
    await tx.transactions.set_status(refund.transaction_id, TransactionStatus.CONFIRMED, now)
    await tx.refunds.finish(refund.id, status, None, now)
    event = RefundEvent(
        transaction_id=original.transaction_id,
        tx_id=original.tx_id,
        amount=original.amount,
        end_to_end_id=original.end_to_end_id,
        refund=Refunded(refund.amount, refund.rtr_id, now, refund.description),
        direction=RefundDirection.DEBIT,
    )
    await tx.outbox.add(refund.account_id, event, now)
    await _tell_the_key(tx, original, now)
    if payer_account is not None:
        transfer = await tx.refunds.lock_original(
            payer_account, original.end_to_end_id, TransactionType.WITHDRAW
        )
        if transfer is None:  # the receipt names the transfer it came from
            raise TransactionNotFound()
        await credit_return(
            tx, transfer, amount=refund.amount, rtr_id=refund.rtr_id, description=refund.description, now=now
        )
    return _finished(refund, status, None, now)


async def _tell_the_key(tx: UnitOfWork, receipt: Original, now: datetime) -> None:
    """A refund of ``receipt`` reached its final status: when the key it was received on has a
    webhook of the standard, that webhook gets the PIX again, with its refunds as they are now
    (docs/decisions/key-webhooks.md). In the refund's unit of work, so never lost nor doubled."""
    key = receipt.pix_key
    if key is None or await tx.webhooks.of_key(receipt.account_id, key) is None:
        return
    refunds = await tx.refunds.list_sent(receipt.transaction_id)
    event = KeyPixEvent(
        key,
        receipt.end_to_end_id,
        receipt.amount,
        receipt.received_at,
        receipt.tx_id,
        tuple(refunds),
        receipt.amount_parts,
    )
    await tx.outbox.add(receipt.account_id, event, now)


async def refuse_refund(tx: UnitOfWork, refund: Refund, reason: str, now: datetime) -> Refund:
    """Inside a unit of work: a pending refund NAO_REALIZADO with ``reason`` (the network refused
    to settle it), its reservation released, its record ERROR."""
    lifecycle = RefundLifecycle(refund.status)
    status = lifecycle.fail()
    if refund.reserved:
        await tx.ledger.post(refund.transaction_id, ledger.release(refund.account_id, refund.amount), now)
    await tx.transactions.set_status(refund.transaction_id, TransactionStatus.ERROR, now)
    await tx.refunds.finish(refund.id, status, reason, now)
    await _tell_the_key(tx, await _original(tx, refund), now)
    return _finished(refund, status, reason, now)


def _institution_of(original: Original) -> str:
    if original.counterpart is None or not original.counterpart.ispb:
        raise ValueError(f"transaction {original.transaction_id} names no institution to return money to")
    return original.counterpart.ispb


def _finished(refund: Refund, status: RefundStatus, reason: str | None, now: datetime) -> Refund:
    return dataclasses.replace(refund, status=status, reason=reason, finished_at=now)


async def _original(tx: UnitOfWork, refund: Refund) -> Original:
    receipt = await tx.refunds.original_of(refund.original_transaction_id)
    if receipt is None:  # a foreign key guarantees it
        raise TransactionNotFound()
    return receipt


async def receive_refund(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    end_to_end_id: str,
    amount: int,
) -> Refund:
    """The outside receiver of one of our settled transfers refunds (part of) it: REFUND_OUT
    record, ``available`` credited from that institution, REFUND event (CREDIT). Never more than
    the transfer's amount; a transfer to an account of ours is refunded by that account instead."""
    require_positive(amount)
    now = clock.now()
    async with uow() as tx:
        transfer = await tx.refunds.lock_original(account_id, end_to_end_id, TransactionType.WITHDRAW)
        if transfer is None:
            raise TransactionNotFound(
                Problem.of(
                    (), "No settled transfer of your account has this {}.", IdentifierField.END_TO_END_ID
                )
            )
        if transfer.counterpart_account_id is not None:
            raise InternalRefund()
        remaining = transfer.amount - await tx.refunds.total(transfer.transaction_id, RefundKind.RECEIVED)
        if amount > remaining:
            problem = f"amount: at most {format_amount_string(max(remaining, 0))} of the transfer remains"
            raise RefundAboveRefundable(f"Invalid refund: {problem}", details=[problem])
        institution = _institution_of(transfer)
        refund = await credit_return(
            tx,
            transfer,
            amount=amount,
            rtr_id=new_return_id(institution, now),
            now=now,
            posting=ledger.receive(account_id, amount, institution),
        )
        await tx.commit()
    return refund


async def credit_return(
    tx: UnitOfWork,
    transfer: Original,
    *,
    amount: int,
    rtr_id: str,
    now: datetime,
    posting: ledger.Posting | None = None,
    description: str | None = None,
) -> Refund:
    """Inside a unit of work: part of one of our transfers comes back to its sender. The REFUND_OUT
    record (CONFIRMED, with ``posting`` on it when the money comes from outside; a refund between
    two of our accounts posts on the refunder's record), the received refund, DEVOLVIDO, and the
    REFUND event (CREDIT)."""
    transaction_id = await tx.transactions.add(
        NewTransaction(
            account_id=transfer.account_id,
            type=TransactionType.REFUND_OUT,
            status=TransactionStatus.CONFIRMED,
            amount=amount,
            created_at=now,
            end_to_end_id=rtr_id,
            description=description,
            counterpart=transfer.counterpart,
            processed_at=now,
        )
    )
    if posting is not None:
        await tx.ledger.post(transaction_id, posting, now)
    refund = await tx.refunds.add(
        NewRefund(
            kind=RefundKind.RECEIVED,
            account_id=transfer.account_id,
            original_transaction_id=transfer.transaction_id,
            refund_id=rtr_id,
            rtr_id=rtr_id,
            amount=amount,
            nature=RefundNature.ORIGINAL,
            description=description,
            requested_at=now,
            process_after=now,
            transaction_id=transaction_id,
            reserved=False,
        )
    )
    status = RefundLifecycle(refund.status).complete()
    await tx.refunds.finish(refund.id, status, None, now)
    event = RefundEvent(
        transaction_id=transfer.transaction_id,
        tx_id=None,
        amount=transfer.amount,
        end_to_end_id=transfer.end_to_end_id,
        refund=Refunded(amount, rtr_id, now, description),
        direction=RefundDirection.CREDIT,
    )
    await tx.outbox.add(transfer.account_id, event, now)
    return _finished(refund, status, None, now)
