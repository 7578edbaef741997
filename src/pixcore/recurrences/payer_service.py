"""The payer's side of Pix Automático, simulated by the sandbox: the payer's bank and its holder.

* Balances: the sandbox sets a payer's balance at their bank (:func:`set_payer_balance`); a
  recurring charge's attempt debits it.
* Answers: the holder accepts or refuses a request (JORNADA_1, :func:`answer_request`), accepts a
  recurrence through a QR code (JORNADA_2 to 4, :func:`accept_recurrence`; JORNADA_3 pays its
  immediate charge from the payer's balance in the same step), refuses one
  (:func:`refuse_recurrence`) or cancels an authorization (:func:`cancel_by_payer`).
* The bank's day (:func:`run_recurring_charges`, the worker's step): it schedules each attempt
  asked of it, and on an attempt's date debits the payer. Enough funds: the attempt PAGA, the
  charge CONCLUIDA, and the money arrives in the receiver's account as any receipt does (a
  CONFIRMED PAYMENT record, the ledger's ``receive`` posting, the RECEIVE event) in the same
  transaction as the debit. Not enough: the attempt EXPIRADA, and the charge EXPIRADA once no
  retry is left (:func:`~pixcore.recurrences.charge_service.retry_possible`).

Dates are the payer's days on the service clock (the sandbox moves it).
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from typing import TYPE_CHECKING

from pixcore import ledger
from pixcore.accounts.rules import Counterpart
from pixcore.charges.cob_service import IMMEDIATE_KINDS, payment_terms
from pixcore.clock import Clock
from pixcore.documents import parse_document
from pixcore.errors import InvalidAmount, ValidationError
from pixcore.identifiers import new_end_to_end_id, validate_ispb
from pixcore.money import format_amount_string
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.recurrences.charge_service import retry_possible
from pixcore.recurrences.closing import (
    cancel_charge_locked,
    cancel_recurrence_locked,
    save_charge,
    save_recurrence,
    today_of,
)
from pixcore.recurrences.errors import (
    PayerFundsShort,
    PayerMismatch,
    RecurrenceClosed,
    RecurrenceNotFound,
    RecurrenceRequestNotFound,
)
from pixcore.recurrences.lifecycles import (
    AttemptLifecycle,
    AttemptStatus,
    RecurrenceLifecycle,
    RecurrenceStatus,
    RecurringChargeLifecycle,
    RecurringChargeStatus,
    RequestLifecycle,
    RequestStatus,
)
from pixcore.recurrences.records import Attempt, Payer, Recurrence, RecurrenceRequest, RecurringCharge
from pixcore.recurrences.terms import AUTHORIZATION_ENDED, PAYER_CANCELLED, PAYER_REFUSED, Journey
from pixcore.transfers.receipt_service import credit_receipt, receive_event

if TYPE_CHECKING:
    from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "PAYER_NAME",
    "accept_recurrence",
    "answer_request",
    "cancel_by_payer",
    "payer_balance",
    "refuse_recurrence",
    "run_recurring_charges",
    "set_payer_balance",
]

PAYER_NAME = "Pagador Pix Automático"
"""The payer's name on a receipt when the payer is not the recurrence's debtor (their bank does
not tell it)."""


def _checked(payer: Payer) -> Payer:
    validate_ispb(payer.ispb)
    parse_document(payer.document)
    return payer


async def set_payer_balance(uow: UnitOfWorkFactory, *, payer: Payer, amount: int) -> int:
    """The sandbox sets ``payer``'s balance at their bank to ``amount`` centavos (zero or more)."""
    if amount < 0:
        raise InvalidAmount("a payer's balance is zero or more")
    async with uow() as tx:
        await tx.payer_bank.set_balance(_checked(payer), amount)
        await tx.commit()
    return amount


async def payer_balance(uow: UnitOfWorkFactory, *, payer: Payer) -> int:
    """``payer``'s balance at their bank."""
    async with uow() as tx:
        return await tx.payer_bank.balance(_checked(payer))


async def _any_recurrence(tx: UnitOfWork, rec_id: str) -> Recurrence:
    recurrence = await tx.recurrences.lock_any(rec_id)
    if recurrence is None:
        raise RecurrenceNotFound()
    return recurrence


def _open(recurrence: Recurrence, today: date) -> None:
    status = recurrence.status_at(today)
    if status.closed:
        raise RecurrenceClosed(f"the recurrence is {status.value}")


async def answer_request(
    uow: UnitOfWorkFactory, clock: Clock, *, request_id: str, authorized: bool
) -> tuple[RecurrenceRequest, Recurrence]:
    """The holder asked by a request answers it (JORNADA_1): the request reaches their bank
    (ENVIADA, RECEBIDA) and is ACEITA, its recurrence APROVADA with the holder as its payer; or
    REJEITADA, its recurrence REJEITADA. A request past its expiry is answered no more."""
    now = clock.now()
    today = today_of(now)
    async with uow() as tx:
        request = await tx.recurrence_requests.lock_any(request_id)
        if request is None:
            raise RecurrenceRequestNotFound()
        lifecycle = RequestLifecycle(request.status_at(now))
        if lifecycle.state is RequestStatus.CRIADA:
            request = request.moved(lifecycle.send(), now)
        if lifecycle.state is RequestStatus.ENVIADA:
            request = request.moved(lifecycle.receive(), now)
        request = request.moved(lifecycle.accept() if authorized else lifecycle.refuse(), now)
        recurrence = await _any_recurrence(tx, request.rec_id)
        _open(recurrence, today)
        machine = RecurrenceLifecycle(recurrence.status)
        if authorized:
            answered = dataclasses.replace(
                recurrence.moved(machine.approve(), now),
                journey=Journey.JORNADA_1,
                payer=request.recipient,
                journey_txid=None,
            )
        else:
            answered = dataclasses.replace(recurrence.moved(machine.reject(), now), closing=PAYER_REFUSED)
        await tx.recurrence_requests.save(request)
        await save_recurrence(tx, answered, at=now, moved=True)
        await tx.commit()
    return request, answered


async def accept_recurrence(
    uow: UnitOfWorkFactory, clock: Clock, *, rec_id: str, journey: Journey, payer: Payer
) -> Recurrence:
    """The payer authorizes a CRIADA recurrence through a QR code: JORNADA_2 (the recurrence's own,
    so it must be at a location), JORNADA_3 (a composite one: the payer pays the recurrence's
    immediate charge, ``dadosJornada.txid``, from their balance in the same step) or JORNADA_4 (a
    due-date charge's composite one; that charge is paid, or not, apart). JORNADA_1 is answered
    through its request (:func:`answer_request`)."""
    if journey not in (Journey.JORNADA_2, Journey.JORNADA_3, Journey.JORNADA_4):
        raise ValidationError(
            "a QR code authorizes by JORNADA_2, JORNADA_3 or JORNADA_4 (JORNADA_1: its request)"
        )
    now = clock.now()
    async with uow() as tx:
        recurrence = await _any_recurrence(tx, rec_id)
        _open(recurrence, today_of(now))
        status = RecurrenceLifecycle(recurrence.status).approve()
        if journey is Journey.JORNADA_2 and recurrence.loc_id is None:
            raise ValidationError("the recurrence is at no location: it has no QR code of its own")
        txid = None
        if journey is Journey.JORNADA_3:
            txid = await _pay_journey_charge(tx, recurrence, _checked(payer), now)
        approved = dataclasses.replace(
            recurrence.moved(status, now), journey=journey, payer=_checked(payer), journey_txid=txid
        )
        await save_recurrence(tx, approved, at=now, moved=True)
        await tx.commit()
    return approved


async def _pay_journey_charge(tx: UnitOfWork, recurrence: Recurrence, payer: Payer, now: datetime) -> str:
    """JORNADA_3: the recurrence's immediate charge paid from the payer's balance, as any payment
    of a charge is credited (``pay_charge``'s steps). Returns its txid."""
    txid = recurrence.journey_txid
    if txid is None:
        raise ValidationError("JORNADA_3 needs the recurrence's immediate charge (its dadosJornada.txid)")
    charge, status, credited, parts = payment_terms(
        await tx.charges.lock(recurrence.account_id, txid), None, now, kinds=IMMEDIATE_KINDS
    )
    if not await tx.payer_bank.debit(payer, credited):
        raise PayerFundsShort(f"the payer's balance does not cover {format_amount_string(credited)}")
    e2e = new_end_to_end_id(payer.ispb, now)
    transaction_id = await credit_receipt(
        tx,
        account_id=charge.account_id,
        amount=credited,
        payer=_counterpart(recurrence, payer),
        end_to_end_id=e2e,
        at=now,
        pix_key=charge.pix_key,
        tx_id=charge.txid,
        description=charge.payer_request,
        amount_parts=parts,
    )
    await tx.charges.update(
        charge.id,
        status=status,
        revision=charge.revision,
        at=now,
        transaction_id=transaction_id,
        paid_end_to_end_id=e2e,
        paid_parts=parts,
    )
    return txid


async def refuse_recurrence(uow: UnitOfWorkFactory, clock: Clock, *, rec_id: str) -> Recurrence:
    """The payer refuses a CRIADA recurrence they were shown (by a QR code): REJEITADA."""
    now = clock.now()
    async with uow() as tx:
        recurrence = await _any_recurrence(tx, rec_id)
        _open(recurrence, today_of(now))
        rejected = RecurrenceLifecycle(recurrence.status).reject()
        refused = dataclasses.replace(recurrence.moved(rejected, now), closing=PAYER_REFUSED)
        await save_recurrence(tx, refused, at=now, moved=True)
        await tx.commit()
    return refused


async def cancel_by_payer(uow: UnitOfWorkFactory, clock: Clock, *, rec_id: str, payer: Payer) -> Recurrence:
    """The payer cancels their authorization of an APROVADA recurrence (at their bank): CANCELADA
    by the paying user, with its charges still to be paid."""
    now = clock.now()
    async with uow() as tx:
        recurrence = await _any_recurrence(tx, rec_id)
        _open(recurrence, today_of(now))
        if recurrence.payer is None or (recurrence.payer.document, recurrence.payer.ispb) != (
            payer.document,
            payer.ispb,
        ):
            raise PayerMismatch()
        cancelled = await cancel_recurrence_locked(tx, recurrence, PAYER_CANCELLED, now)
        await tx.commit()
    return cancelled


# -- the bank's day: scheduling and debits ---------------------------------------------------------


def _counterpart(recurrence: Recurrence, payer: Payer) -> Counterpart:
    """The payer as a receipt names them: the recurrence's debtor when the payer is that holder."""
    name = recurrence.debtor.name if recurrence.debtor.document == payer.document else PAYER_NAME
    return Counterpart(name, payer.document, payer.ispb)


async def _receive(
    tx: UnitOfWork, charge: RecurringCharge, attempt: Attempt, payer: Counterpart, now: datetime
) -> int:
    """The money of a paid attempt arriving in the receiver's account: a CONFIRMED PAYMENT record
    (the attempt's end-to-end id, the charge's txid), the ledger's ``receive`` posting from the
    payer's institution and the RECEIVE event; as any receipt, without a key (a recurring charge
    names an account, not a key). Returns the record's id."""
    transaction_id = await tx.transactions.add(
        NewTransaction(
            account_id=charge.account_id,
            type=TransactionType.PAYMENT,
            status=TransactionStatus.CONFIRMED,
            amount=charge.amount,
            created_at=now,
            end_to_end_id=attempt.end_to_end_id,
            description=charge.information,
            counterpart=payer,
            processed_at=now,
        )
    )
    await tx.ledger.post(transaction_id, ledger.receive(charge.account_id, charge.amount, payer.ispb), now)
    event = receive_event(
        transaction_id,
        amount=charge.amount,
        payer=payer,
        end_to_end_id=attempt.end_to_end_id,
        tx_id=charge.txid,
    )
    await tx.outbox.add(charge.account_id, event, now)
    return transaction_id


async def _schedule(
    tx: UnitOfWork,
    charge: RecurringCharge,
    attempt: Attempt,
    *,
    recurrence: Recurrence,
    today: date,
    now: datetime,
) -> RecurringCharge:
    """The payer's bank answers an attempt asked of it: AGENDADA (the charge ATIVA on its first),
    or, when the recurrence is closed meanwhile, the charge CANCELADA."""
    if recurrence.status_at(today) is not RecurrenceStatus.APROVADA:
        return await cancel_charge_locked(tx, charge, AUTHORIZATION_ENDED, now)
    scheduled = charge.with_attempt(attempt.moved(AttemptLifecycle(attempt.status).schedule(), now))
    if charge.status is RecurringChargeStatus.CRIADA:
        scheduled = scheduled.moved(RecurringChargeLifecycle(charge.status).activate(), now)
    await save_charge(tx, scheduled, at=now)
    return scheduled


async def _settle(
    tx: UnitOfWork,
    charge: RecurringCharge,
    attempt: Attempt,
    *,
    recurrence: Recurrence,
    today: date,
    now: datetime,
) -> RecurringCharge:
    """An AGENDADA attempt's date has come: the payer is debited, or the attempt fails."""
    payer = recurrence.payer
    if payer is not None and await tx.payer_bank.debit(payer, charge.amount):
        paid = attempt.moved(AttemptLifecycle(attempt.status).pay(), now)
        transaction_id = await _receive(tx, charge, paid, _counterpart(recurrence, payer), now)
        status = RecurringChargeLifecycle(charge.status).conclude()
        settled = dataclasses.replace(
            charge.with_attempt(paid).moved(status, now), transaction_id=transaction_id, paid_at=now
        )
    else:
        settled = charge.with_attempt(attempt.moved(AttemptLifecycle(attempt.status).expire(), now))
        if not retry_possible(settled, today):
            settled = settled.moved(RecurringChargeLifecycle(charge.status).expire(), now)
    await save_charge(tx, settled, at=now)
    return settled


async def _advance(tx: UnitOfWork, charge: RecurringCharge, today: date, now: datetime) -> bool:
    """Everything due for ``charge`` on ``today``; whether anything changed."""
    recurrence = await tx.recurrences.get(charge.account_id, charge.rec_id)
    if recurrence is None:
        return False
    changed = False
    pending = charge.pending
    if pending is not None and pending.status is AttemptStatus.SOLICITADA:
        charge = await _schedule(tx, charge, pending, recurrence=recurrence, today=today, now=now)
        changed = True
        pending = charge.pending
    if pending is not None and pending.status is AttemptStatus.AGENDADA and pending.settles_on <= today:
        await _settle(tx, charge, pending, recurrence=recurrence, today=today, now=now)
        return True
    if pending is None and charge.status is RecurringChargeStatus.ATIVA and not retry_possible(charge, today):
        await save_charge(tx, charge.moved(RecurringChargeLifecycle(charge.status).expire(), now), at=now)
        return True
    return changed


async def run_recurring_charges(uow: UnitOfWorkFactory, clock: Clock, *, limit: int = 100) -> int:
    """The payer's bank's step (the settlement loop runs it): in one transaction, the recurring
    charges with work on the payer's day (``lock_due``) are advanced; returns how many changed.
    A charge another worker holds is skipped, and taken in a later round."""
    now = clock.now()
    today = today_of(now)
    changed = 0
    async with uow() as tx:
        for charge in await tx.recurring_charges.lock_due(today, limit):
            changed += await _advance(tx, charge, today, now)
        await tx.commit()
    return changed
