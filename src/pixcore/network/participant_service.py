"""The service as a participant of a PIX network: its transfers to other institutions settled by
the network's SPI, and payments from them credited once the SPI settles them.

Sending (:func:`send_due_payments`): a due transfer is first marked sent, in a committed unit of
work, and only then sent; from that moment only the SPI's answer finishes it, whatever its
deadline: a transfer the SPI may have received is never failed here (the money would then exist
twice). A transfer never sent whose deadline passed fails here (``AB03``). A sent transfer with no
answer yet is sent again every :data:`RESEND_AFTER`: the SPI knows it by its end-to-end id and
answers where it stands, so an answer lost on the way, or a payment that never arrived, is found.

Receiving: the SPI asks whether the service takes a payment (:func:`answer_incoming`); the account
its key names must be the one the payment names, of the owner it names. Accepted, the payment is
kept until the SPI settles (:func:`settle_incoming`: the account is credited, once) or refuses it.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from pixcore import ledger
from pixcore.accounts.rules import Account, Counterpart
from pixcore.clock import Clock
from pixcore.errors import InvalidPixKey
from pixcore.keys import parse_pix_key
from pixcore.network.ports import NetworkUnavailable, PaymentNetwork
from pixcore.network.rules import (
    IncomingPayment,
    IncomingReturn,
    NetworkReceipt,
    Outcome,
    OutgoingPayment,
    OutgoingReturn,
    ReceiptState,
)
from pixcore.records import TransactionType, Transfer
from pixcore.refunds.refund_service import credit_return, finish_refund, refuse_refund
from pixcore.transfers.receipt_service import credit_receipt
from pixcore.transfers.rules import SpiError
from pixcore.transfers.transfer_service import finish_transfer
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "RESEND_AFTER",
    "answer_incoming",
    "credit_network_return",
    "finish_payment",
    "send_due_payments",
    "send_due_refunds",
    "settle_incoming",
]

log = logging.getLogger(__name__)

RESEND_AFTER = timedelta(seconds=5)
"""How long a sent transfer waits for the SPI's answer before it is sent again."""
SENDING = 16
"""Transfers sent to the SPI at once."""


def _holder(account: Account) -> Counterpart:
    return Counterpart(account.name, account.document, account.ispb, "", account.branch, account.number)


async def _outgoing(tx: UnitOfWork, transfer: Transfer, debtors: dict[int, Account]) -> OutgoingPayment:
    debtor = debtors.get(transfer.account_id) or await tx.accounts.get(transfer.account_id)
    if debtor is None:
        raise LookupError(f"the account {transfer.account_id} of a transfer is not there")
    debtors[transfer.account_id] = debtor
    creditor = await tx.network.counterpart_of(transfer.transaction_id)
    if creditor is None:
        raise LookupError(f"the transfer {transfer.transaction_id} has no record of its creditor")
    return OutgoingPayment(
        transaction_id=transfer.transaction_id,
        end_to_end_id=transfer.end_to_end_id,
        amount=transfer.amount,
        debtor=_holder(debtor),
        creditor=creditor,
        key=transfer.pix_key,
        description=transfer.description,
        created_at=transfer.created_at,
    )


async def send_due_payments(
    uow: UnitOfWorkFactory, clock: Clock, network: PaymentNetwork, *, limit: int = 100
) -> int:
    """Send the due transfers the SPI settles (and again those it has not answered); returns how
    many were finished (failed before sending, or answered for good)."""
    now = clock.now()
    sending: list[OutgoingPayment] = []
    finished = 0
    async with uow() as tx:
        ids = await tx.transfers.due_to_spi(now, now - RESEND_AFTER, limit)
        debtors: dict[int, Account] = {}
        for transfer in await tx.transfers.lock_pending_many(ids):
            if transfer.sent_at is None and now >= transfer.deadline:
                await finish_transfer(tx, transfer, SpiError.TIMEOUT, now)  # never sent: safe to fail
                finished += 1
            else:
                sending.append(await _outgoing(tx, transfer, debtors))
        await tx.transfers.mark_sent([payment.transaction_id for payment in sending], now)
        await tx.commit()
    slots = asyncio.Semaphore(SENDING)

    async def send(payment: OutgoingPayment) -> int:
        async with slots:
            try:
                outcome = await network.send(payment)
            except NetworkUnavailable as exc:  # it waits for the next round (sent again then)
                log.warning("the network is unreachable; a transfer waits: %s", exc.reason)
                return 0
            return await finish_payment(uow, clock, payment.end_to_end_id, outcome) if outcome.final else 0

    return finished + sum(await asyncio.gather(*(send(payment) for payment in sending)))


async def finish_payment(uow: UnitOfWorkFactory, clock: Clock, end_to_end_id: str, outcome: Outcome) -> int:
    """The SPI's final answer about one of this service's transfers: settled or failed, once
    (a second answer finds it finished and does nothing). Returns 1 if it finished it."""
    if not outcome.final:
        return 0
    async with uow() as tx:
        transfer = await tx.transfers.lock_pending_by_end_to_end(end_to_end_id)
        if transfer is None:
            return 0
        await finish_transfer(tx, transfer, outcome.error, clock.now())
        await tx.commit()
    return 1


async def answer_incoming(uow: UnitOfWorkFactory, clock: Clock, payment: IncomingPayment) -> SpiError | None:
    """Whether the service takes ``payment`` (None) or why not: a payment names one of our keys
    (``AG03`` without one), whose account is the one it names (``AC03``), of the owner it names
    (``BE01``). Taken, it is kept until the SPI's settlement; asked again, the answer is the same."""
    async with uow() as tx:
        known = await tx.network.receipt(payment.end_to_end_id)
        if known is not None:
            return None if known.state is not ReceiptState.REJECTED else SpiError.REFUSED
        if payment.key is None:
            return SpiError.NOT_ALLOWED
        try:
            owner = await tx.keys.owner_of(parse_pix_key(payment.key))
        except InvalidPixKey:
            return SpiError.UNKNOWN_ACCOUNT
        account = None if owner is None else await tx.accounts.get(owner)
        if account is None or (refused := _refusal(payment, account)) is not None:
            return SpiError.UNKNOWN_ACCOUNT if account is None else refused
        receipt = NetworkReceipt(payment, account.id, ReceiptState.ACCEPTED, clock.now())
        if await tx.network.accept(receipt):
            await tx.commit()
    return None


def _refusal(payment: IncomingPayment, account: Account) -> SpiError | None:
    """Why the account the key names is not the one ``payment`` names, if it is not."""
    if account.number != payment.account_number or payment.branch not in {None, account.branch}:
        return SpiError.UNKNOWN_ACCOUNT
    if account.document != payment.tax_id:
        return SpiError.DOCUMENT_MISMATCH
    return None


async def settle_incoming(uow: UnitOfWorkFactory, clock: Clock, end_to_end_id: str, outcome: Outcome) -> bool:
    """The SPI settled (or refused) a payment the service accepted: the account credited once,
    with its PAYMENT record, ledger and RECEIVE event. False when there was nothing to do (not
    ours, or finished before)."""
    if not outcome.final:
        return False
    now = clock.now()
    async with uow() as tx:
        receipt = await tx.network.lock_accepted(end_to_end_id)
        if receipt is None:
            return False
        payment = receipt.payment
        if outcome.error is not None:
            await tx.network.finish(end_to_end_id, ReceiptState.REJECTED, None, now)
        else:
            credited = await credit_receipt(
                tx,
                account_id=receipt.account_id,
                amount=payment.amount,
                payer=payment.payer,
                end_to_end_id=end_to_end_id,
                at=now,
                pix_key=payment.key or "",
                description=payment.description,
            )
            await tx.network.finish(end_to_end_id, ReceiptState.CREDITED, credited, now)
        await tx.commit()
    return True


async def send_due_refunds(
    uow: UnitOfWorkFactory, clock: Clock, network: PaymentNetwork, *, limit: int = 100
) -> int:
    """Finish every refund whose time has come: one of a payment received through the network is
    sent to the SPI as a return and finished by its answer (settled: DEVOLVIDO; refused:
    NAO_REALIZADO, the reservation released); any other is finished here, as without a network.
    A refund the network could not be reached for stays pending for the next round: sent again,
    it is answered the same (the SPI knows it by its return id). Returns how many were finished."""
    async with uow() as tx:
        ids = await tx.refunds.due(clock.now(), limit)
    finished = 0
    for refund_pk in ids:
        try:
            finished += await _send_refund(uow, clock, network, refund_pk)
        except NetworkUnavailable as exc:
            log.warning("the network is unreachable; the refunds wait: %s", exc.reason)
            break
    return finished


async def _send_refund(uow: UnitOfWorkFactory, clock: Clock, network: PaymentNetwork, refund_pk: int) -> int:
    now = clock.now()
    async with uow() as tx:
        refund = await tx.refunds.lock_pending(refund_pk)
        if refund is None or refund.process_after > now:
            return 0
        original = await tx.refunds.original_of(refund.original_transaction_id)
        received = None if original is None else await tx.network.receipt(original.end_to_end_id)
        if original is None or received is None or not refund.reserved:
            await finish_refund(tx, refund, now)  # not the network's (or nothing reserved): as before
        else:
            sent = OutgoingReturn(
                refund.rtr_id,
                original.end_to_end_id,
                refund.amount,
                refund.description,
                fraud=refund.med_case_id is not None,
            )
            outcome = await network.send_return(sent)  # the refund stays locked meanwhile
            if outcome.error is None:
                await finish_refund(tx, refund, now)
            else:
                await refuse_refund(tx, refund, f"Recusada pelo SPI: {outcome.error.value}", now)
        await tx.commit()
    return 1


async def credit_network_return(uow: UnitOfWorkFactory, clock: Clock, returned: IncomingReturn) -> bool:
    """Money of one of this service's transfers came back through the network: the sender is
    credited (REFUND_OUT record, ledger, REFUND event), once: a return already credited, or of a
    transfer this service did not send, changes nothing (False)."""
    now = clock.now()
    async with uow() as tx:
        account_id = await tx.network.transfer_account(returned.end_to_end_id)
        if account_id is None or await tx.network.return_received(returned.return_id):
            return False
        transfer = await tx.refunds.lock_original(
            account_id, returned.end_to_end_id, TransactionType.WITHDRAW
        )
        if transfer is None:
            return False
        institution = transfer.counterpart.ispb if transfer.counterpart else ""
        await credit_return(
            tx,
            transfer,
            amount=returned.amount,
            rtr_id=returned.return_id,
            now=now,
            posting=ledger.receive(account_id, returned.amount, institution),
            description=returned.description,
        )
        await tx.commit()
    return True
