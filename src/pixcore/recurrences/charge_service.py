"""Recurring charges (``/cobr``): create, read, list, cancel, and ask a retry on a date.

A recurring charge bills one cycle of an APROVADA recurrence: created CRIADA with its first
attempt (AGND) SOLICITADA of the payer's bank, for the due date (moved to the next business day
with ``ajusteDiaUtil``). The payer's bank schedules it (the charge ATIVA, the attempt AGENDADA) and
debits the payer on that date: :mod:`pixcore.recurrences.payer_service`. An attempt whose date
came without the funds is EXPIRADA; under ``PERMITE_3R_7D`` the receiver may then ask up to three
retries (``POST /cobr/{txid}/retentativa/{data}``), each on a future date of its own within seven
days after the first attempt's date; when none is left, the charge is EXPIRADA.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from pixcore.charges.cob_service import load_account
from pixcore.clock import Clock
from pixcore.errors import DuplicateCharge
from pixcore.identifiers import new_end_to_end_id, new_txid, validate_txid
from pixcore.problems import Problem
from pixcore.recurrences.closing import cancel_charge_locked, save_charge, today_of
from pixcore.recurrences.errors import (
    CancelTooLate,
    InvalidRecurringCharge,
    RecurrenceTransition,
    RecurringChargeNotFound,
    RetryNotAllowed,
    RetryRefused,
)
from pixcore.recurrences.lifecycles import AttemptStatus, RecurrenceStatus, RecurringChargeStatus
from pixcore.recurrences.queries import ChargeListQuery
from pixcore.recurrences.records import Attempt, NewRecurringCharge, Recurrence, RecurringCharge
from pixcore.recurrences.requests import ChargeTerms, RecurringChargeField
from pixcore.recurrences.terms import (
    MAX_RETRIES,
    RECEIVER_CANCELLED,
    RETRY_WINDOW,
    AttemptType,
    RetryPolicy,
    StatusChange,
    cycle_of,
    settlement_date,
)

if TYPE_CHECKING:
    from pixcore.accounts.rules import Account
    from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = [
    "RecurringChargeListing",
    "ask_retry",
    "cancel_recurring_charge",
    "create_recurring_charge",
    "list_recurring_charges",
    "read_recurring_charge",
    "retry_possible",
]


@dataclass(frozen=True, slots=True)
class RecurringChargeListing:
    """A page of ``GET /cobr``: ``total`` matches in all."""

    total: int
    charges: tuple[RecurringCharge, ...]


def _refuse(field: RecurringChargeField, text: str) -> InvalidRecurringCharge:
    problem = Problem.of(field, text)
    return InvalidRecurringCharge(problem, problems=[problem])


def _judge_against(terms: ChargeTerms, recurrence: Recurrence, account: Account, today: date) -> None:
    """The rules of a new charge that read its recurrence and the receiver's account."""
    problems: list[Problem] = []
    status = recurrence.status_at(today)
    if status is not RecurrenceStatus.APROVADA:
        text = f"the recurrence is {status.value}: charges are made of an APROVADA one"
        problems.append(Problem.of(RecurringChargeField.REC_ID, text))
    if terms.due_date < recurrence.start or (recurrence.end is not None and terms.due_date > recurrence.end):
        problems.append(Problem.of(RecurringChargeField.DUE_DATE, "must be within the recurrence's calendar"))
    if recurrence.fixed_amount is not None and terms.amount != recurrence.fixed_amount:
        problems.append(Problem.of(RecurringChargeField.AMOUNT, "must be the recurrence's fixed amount"))
    if terms.receiver_account != account.number or terms.receiver_branch not in (None, account.branch):
        problems.append(Problem.of(RecurringChargeField.RECEIVER_ACCOUNT, "not an account of yours"))
    if problems:
        raise InvalidRecurringCharge(problems=problems, summary="Invalid recurring charge: {}")


async def create_recurring_charge(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, txid: str | None, terms: ChargeTerms
) -> RecurringCharge:
    """``PUT /cobr/{txid}`` (``POST /cobr``: ``txid`` None, the service chooses one): a CRIADA
    charge of the account's APROVADA recurrence ``terms.rec_id``, its first attempt asked of the
    payer's bank. One charge per cycle of the recurrence, unless the earlier was REJEITADA or
    CANCELADA; a txid is the account's across every kind of charge."""
    txid = new_txid() if txid is None else validate_txid(txid)
    now = clock.now()
    today = today_of(now)
    terms.judge(today)
    async with uow() as tx:
        account = await load_account(tx, account_id)
        recurrence = await tx.recurrences.lock(account_id, terms.rec_id)
        if recurrence is None:  # the standard's POST /cobr has no 404: a CobROperacaoInvalida
            raise _refuse(RecurringChargeField.REC_ID, "names no recurrence of yours")
        _judge_against(terms, recurrence, account, today)
        if await tx.charges.get(account_id, txid) is not None:
            raise DuplicateCharge(f"a charge with txid {txid} exists already")
        payer = recurrence.payer
        if payer is None:  # an APROVADA recurrence has its payer
            raise RecurrenceTransition("the recurrence has no payer")
        first = Attempt(
            number=0,
            type=AttemptType.AGND,
            settles_on=settlement_date(terms.due_date, adjust=terms.adjust_to_business_day),
            end_to_end_id=new_end_to_end_id(payer.ispb, now),
            history=(StatusChange(AttemptStatus.SOLICITADA, now),),
        )
        charge = await tx.recurring_charges.add(
            NewRecurringCharge(
                account_id=account_id,
                txid=txid,
                recurrence_id=recurrence.id,
                rec_id=recurrence.rec_id,
                cycle=cycle_of(recurrence.start, recurrence.periodicity, terms.due_date),
                amount=terms.amount,
                due_date=terms.due_date,
                adjust_to_business_day=terms.adjust_to_business_day,
                retry_policy=recurrence.retry_policy,
                information=terms.information,
                receiver_account=terms.receiver_account,
                receiver_branch=terms.receiver_branch,
                receiver_account_type=terms.receiver_account_type.value,
                debtor_email=terms.debtor_email,
                debtor_street=terms.debtor_street,
                debtor_city=terms.debtor_city,
                debtor_state=terms.debtor_state,
                debtor_postal_code=terms.debtor_postal_code,
                created_at=now,
                first_attempt=first,
            )
        )
        await tx.commit()
    return charge


async def read_recurring_charge(uow: UnitOfWorkFactory, *, account_id: int, txid: str) -> RecurringCharge:
    """``GET /cobr/{txid}``: the account's recurring charge with its attempts."""
    validate_txid(txid)
    async with uow() as tx:
        charge = await tx.recurring_charges.get(account_id, txid)
    if charge is None:
        raise RecurringChargeNotFound()
    return charge


async def list_recurring_charges(
    uow: UnitOfWorkFactory, *, account_id: int, query: ChargeListQuery
) -> RecurringChargeListing:
    """``GET /cobr``: the account's recurring charges created in the window."""
    if query.matches_nothing:
        return RecurringChargeListing(0, ())
    async with uow() as tx:
        total, found = await tx.recurring_charges.search(account_id, query)
    return RecurringChargeListing(total, tuple(found))


async def cancel_recurring_charge(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, txid: str
) -> RecurringCharge:
    """``PATCH /cobr/{txid}`` with status CANCELADA: a CRIADA or ATIVA charge, before the date of
    its first attempt (on or after it: ``CancelTooLate``); its pending attempt is cancelled too."""
    validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        charge = await tx.recurring_charges.lock(account_id, txid)
        if charge is None:
            raise RecurringChargeNotFound()
        if not charge.status.live:
            raise InvalidRecurringCharge(f"a {charge.status.value} recurring charge cannot be cancelled")
        if today_of(now) >= charge.first_date:
            raise CancelTooLate()
        cancelled = await cancel_charge_locked(tx, charge, RECEIVER_CANCELLED, now)
        await tx.commit()
    return cancelled


def retry_possible(charge: RecurringCharge, today: date) -> bool:
    """Whether the receiver may still ask a retry of ``charge`` after ``today``: the policy allows
    them, fewer than three were asked, and a day after ``today`` is within the window."""
    return (
        charge.retry_policy is RetryPolicy.PERMITE_3R_7D
        and charge.retries < MAX_RETRIES
        and today < charge.first_date + RETRY_WINDOW
    )


def _judge_retry(charge: RecurringCharge, day: date, today: date) -> None:
    """Every rule of ``POST /cobr/{txid}/retentativa/{data}``, the first broken one raised."""
    if charge.retry_policy is RetryPolicy.NAO_PERMITE:
        raise RetryNotAllowed()
    if (pending := charge.pending) is not None:
        raise RetryRefused(f"an attempt is {pending.status.value} already (for {pending.settles_on})")
    if charge.status is not RecurringChargeStatus.ATIVA:
        raise RetryRefused(f"a {charge.status.value} recurring charge takes no retry")
    if day <= today:
        raise RetryRefused("the date of a retry must be a future date")
    if any(attempt.settles_on == day for attempt in charge.attempts):
        raise RetryRefused(f"the charge had an attempt on {day} already")
    if day > charge.first_date + RETRY_WINDOW:
        raise RetryRefused(
            f"a retry is dated within 7 days after the first attempt's date ({charge.first_date})"
        )
    if charge.retries >= MAX_RETRIES:
        raise RetryRefused(f"{MAX_RETRIES} retries were asked already")


async def ask_retry(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, txid: str, day: date
) -> RecurringCharge:
    """``POST /cobr/{txid}/retentativa/{data}``: a new attempt (NTAG) of an ATIVA charge on ``day``,
    asked of the payer's bank (SOLICITADA)."""
    validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        charge = await tx.recurring_charges.lock(account_id, txid)
        if charge is None:
            raise RecurringChargeNotFound()
        _judge_retry(charge, day, today_of(now))
        recurrence = await tx.recurrences.get(account_id, charge.rec_id)
        if recurrence is None or recurrence.payer is None:
            raise RecurrenceTransition("the charge's recurrence has no payer")
        attempt = Attempt(
            number=len(charge.attempts),
            type=AttemptType.NTAG,
            settles_on=day,
            end_to_end_id=new_end_to_end_id(recurrence.payer.ispb, now),
            history=(StatusChange(AttemptStatus.SOLICITADA, now),),
        )
        retried = charge.with_attempt(attempt)
        await save_charge(tx, retried, at=now)
        await tx.commit()
    return retried
