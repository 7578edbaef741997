"""What every use case of Pix Automático shares: the payer's day, and the changes that tell the
outbox (a recurrence's or a recurring charge's new status), the end of a recurrence with
everything still open under it."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from typing import TYPE_CHECKING

from pixcore.charges.cobv import payer_day
from pixcore.events import RecurrenceEvent, RecurringChargeEvent
from pixcore.recurrences.lifecycles import (
    AttemptLifecycle,
    RecurrenceLifecycle,
    RecurringChargeLifecycle,
    RequestLifecycle,
)
from pixcore.recurrences.records import Recurrence, RecurringCharge
from pixcore.recurrences.terms import AUTHORIZATION_ENDED, Closing

if TYPE_CHECKING:
    from pixcore.unit_of_work import UnitOfWork

__all__ = ["cancel_charge_locked", "cancel_recurrence_locked", "save_charge", "save_recurrence", "today_of"]


def today_of(now: datetime) -> date:
    """The payer's day at ``now`` (São Paulo's calendar): the day dates of Pix Automático mean."""
    return payer_day(now)


async def save_recurrence(tx: UnitOfWork, recurrence: Recurrence, *, at: datetime, moved: bool) -> None:
    """Store the (locked) recurrence; ``moved``: its status changed, which the outbox is told."""
    await tx.recurrences.save(recurrence)
    if moved:
        await tx.outbox.add(recurrence.account_id, RecurrenceEvent(recurrence), at)


async def save_charge(tx: UnitOfWork, charge: RecurringCharge, *, at: datetime) -> None:
    """Store the (locked) recurring charge, whose status or an attempt's changed: the outbox is told."""
    await tx.recurring_charges.save(charge)
    await tx.outbox.add(charge.account_id, RecurringChargeEvent(charge), at)


async def cancel_charge_locked(
    tx: UnitOfWork, charge: RecurringCharge, closing: Closing, now: datetime
) -> RecurringCharge:
    """The (locked) charge CANCELADA for ``closing``, its pending attempt with it; stored and told."""
    status = RecurringChargeLifecycle(charge.status).cancel()
    cancelled = dataclasses.replace(charge.moved(status, now), closing=closing)
    if (pending := charge.pending) is not None:
        cancelled = cancelled.with_attempt(pending.moved(AttemptLifecycle(pending.status).cancel(), now))
    await save_charge(tx, cancelled, at=now)
    return cancelled


async def cancel_recurrence_locked(
    tx: UnitOfWork, recurrence: Recurrence, closing: Closing, now: datetime
) -> Recurrence:
    """The (locked) recurrence CANCELADA for ``closing``: its open request cancelled, and its charges
    still to be paid (CRIADA, ATIVA) cancelled with their pending attempts, so that the payer's
    bank debits nothing more under it. All in the caller's unit of work."""
    status = RecurrenceLifecycle(recurrence.status).cancel()
    cancelled = dataclasses.replace(recurrence.moved(status, now), closing=closing)
    await save_recurrence(tx, cancelled, at=now, moved=True)
    for request in await tx.recurrence_requests.of_recurrence(recurrence.id):
        if request.status.open:
            locked = await tx.recurrence_requests.lock(request.account_id, request.request_id)
            if locked is not None and locked.status.open:
                await tx.recurrence_requests.save(locked.moved(RequestLifecycle(locked.status).cancel(), now))
    for charge in await tx.recurring_charges.lock_live(recurrence.id):
        await cancel_charge_locked(tx, charge, AUTHORIZATION_ENDED, now)
    return cancelled
