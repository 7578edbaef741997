"""A record's timeline on its page, oldest first, each event linked to its own page: a transaction's
creation, settlement or failure, each refund asked for and finished, each webhook notification about
it with its outcome and attempts; a charge's creation and each PIX that paid it (with the
notifications about those); a refund's request and end (with the refund notifications about its PIX).
The events come from the same use cases as the API's reads (``GET /pix/{e2eid}`` for the refunds,
``GET /api/webhooks/deliveries`` for the notifications); what each kind says is in ``timeline.html``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pixcore.charges.cob_service import ChargeView, read_received
from pixcore.errors import NotFound
from pixcore.queries.rules import Movement, TransactionView
from pixcore.records import TransactionStatus
from pixcore.refunds.rules import Refund, RefundStatus
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import DeliveryFilter, DeliveryStatus, EventType
from pixcore.webhooks.webhook_service import list_deliveries

__all__ = ["Event", "Timeline", "charge_timeline", "refund_timeline", "transaction_timeline"]

SHOWN = 50
"""The most notifications a timeline lists (the deliveries page lists them all, filtered)."""
REFUND_EVENTS = frozenset({EventType.REFUND_IN, EventType.REFUND_OUT})
"""The notifications a refund's timeline shows among those about its PIX."""


@dataclass(frozen=True, slots=True)
class Event:
    """One line of a timeline: ``kind`` picks its words in the template."""

    at: datetime
    kind: str
    """created, settled, failed, paid, refund, refund-finished or webhook."""
    status: str | None = None
    link: str | None = None
    name: str | None = None
    """The refund's id, or the notification's event type."""
    attempts: int | None = None

    @property
    def when(self) -> str:
        return f"{self.at.astimezone(UTC):%Y-%m-%d %H:%M:%S}"


@dataclass(frozen=True, slots=True)
class Timeline:
    events: list[Event]
    waiting: bool
    """A notification is still to be delivered: the page keeps following the record."""


async def _notifications(
    uow: UnitOfWorkFactory, account_id: int, e2e: str, kinds: frozenset[EventType] | None = None
) -> tuple[list[Event], bool]:
    """The webhook notifications about the PIX ``e2e`` (of ``kinds`` only, when given), and whether
    one is still to be delivered."""
    deliveries = await list_deliveries(
        uow, account_id=account_id, limit=SHOWN, filters=DeliveryFilter(end_to_end_id=e2e)
    )
    shown = [delivery for delivery in deliveries if kinds is None or delivery.event_type in kinds]
    events = [
        Event(
            delivery.created_at,
            "webhook",
            delivery.status.value,
            f"/console/webhooks/deliveries/{delivery.id}",
            delivery.event_type.value,
            delivery.attempts,
        )
        for delivery in shown
    ]
    return events, any(delivery.status is DeliveryStatus.PENDING for delivery in shown)


def _refund_events(refund: Refund, e2e: str) -> list[Event]:
    link = f"/console/refunds/{e2e}/{refund.refund_id}"
    events = [Event(refund.requested_at, "refund", refund.status.value, link, refund.refund_id)]
    if refund.status is not RefundStatus.EM_PROCESSAMENTO and refund.finished_at is not None:
        events.append(
            Event(refund.finished_at, "refund-finished", refund.status.value, link, refund.refund_id)
        )
    return events


def _timeline(events: list[Event], waiting: bool) -> Timeline:
    return Timeline(sorted(events, key=lambda event: event.at), waiting)


async def transaction_timeline(uow: UnitOfWorkFactory, view: TransactionView) -> Timeline:
    events = [Event(view.created_at, "created", view.status.value)]
    if view.processed_at is not None and view.status is not TransactionStatus.PENDING:
        settled = view.status is TransactionStatus.CONFIRMED
        events.append(Event(view.processed_at, "settled" if settled else "failed", view.status.value))
    e2e = view.end_to_end_id
    if e2e is None:
        return _timeline(events, waiting=False)
    if view.movement is Movement.CREDIT:
        try:
            received = await read_received(uow, account_id=view.account_id, end_to_end_id=e2e)
        except NotFound:
            received = None  # a credit that is not a received PIX (a refund coming back)
        for refund in received.refunds if received else ():
            events += _refund_events(refund, e2e)
    notified, waiting = await _notifications(uow, view.account_id, e2e)
    return _timeline(events + notified, waiting)


async def charge_timeline(uow: UnitOfWorkFactory, view: ChargeView) -> Timeline:
    """Created, then each PIX that paid it (linked to the search, which finds its record) and the
    notifications about that PIX."""
    charge = view.charge
    events = [Event(charge.created_at, "created", charge.status.value)]
    waiting = False
    for paid in view.pix:
        events.append(
            Event(
                paid.received_at, "paid", None, f"/console/search?q={paid.end_to_end_id}", paid.end_to_end_id
            )
        )
        notified, pending = await _notifications(uow, charge.account_id, paid.end_to_end_id)
        events += notified
        waiting = waiting or pending
    return _timeline(events, waiting)


async def refund_timeline(uow: UnitOfWorkFactory, refund: Refund, e2e: str) -> Timeline:
    """Asked for and finished, and the refund notifications about its PIX."""
    notified, waiting = await _notifications(uow, refund.account_id, e2e, REFUND_EVENTS)
    return _timeline(_refund_events(refund, e2e) + notified, waiting)
