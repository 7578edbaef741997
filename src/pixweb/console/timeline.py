"""A transaction's timeline on its page: created, settled or failed, each refund asked for and
finished, each webhook notification about it with its outcome and attempts, oldest first, each
linked to its own page. The events come from the same use cases as the API's reads
(``GET /pix/{e2eid}`` for the refunds, ``GET /api/webhooks/deliveries`` for the notifications);
what each kind of event says is written in ``timeline.html``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pixcore.charges.cob_service import read_received
from pixcore.errors import NotFound
from pixcore.queries.rules import Movement, TransactionView
from pixcore.records import TransactionStatus
from pixcore.refunds.rules import RefundStatus
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import DeliveryFilter, DeliveryStatus
from pixcore.webhooks.webhook_service import list_deliveries

__all__ = ["Event", "Timeline", "transaction_timeline"]

SHOWN = 50
"""The most notifications a timeline lists (the deliveries page lists them all, filtered)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One line of a timeline: ``kind`` picks its words in the template."""

    at: datetime
    kind: str
    """created, settled, failed, refund, refund-finished or webhook."""
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


async def transaction_timeline(uow: UnitOfWorkFactory, view: TransactionView) -> Timeline:
    events = [Event(view.created_at, "created", view.status.value)]
    if view.processed_at is not None and view.status is not TransactionStatus.PENDING:
        settled = view.status is TransactionStatus.CONFIRMED
        events.append(Event(view.processed_at, "settled" if settled else "failed", view.status.value))
    e2e = view.end_to_end_id
    waiting = False
    if e2e is not None:
        if view.movement is Movement.CREDIT:
            try:
                received = await read_received(uow, account_id=view.account_id, end_to_end_id=e2e)
            except NotFound:
                received = None  # a credit that is not a received PIX (a refund coming back)
            for refund in received.refunds if received else ():
                link = f"/console/refunds/{e2e}/{refund.refund_id}"
                events.append(
                    Event(refund.requested_at, "refund", refund.status.value, link, refund.refund_id)
                )
                if refund.status is not RefundStatus.EM_PROCESSAMENTO and refund.finished_at is not None:
                    events.append(
                        Event(
                            refund.finished_at, "refund-finished", refund.status.value, link, refund.refund_id
                        )
                    )
        deliveries = await list_deliveries(
            uow, account_id=view.account_id, limit=SHOWN, filters=DeliveryFilter(end_to_end_id=e2e)
        )
        for delivery in deliveries:
            events.append(
                Event(
                    delivery.created_at,
                    "webhook",
                    delivery.status.value,
                    f"/console/webhooks/deliveries/{delivery.id}",
                    delivery.event_type.value,
                    delivery.attempts,
                )
            )
            waiting = waiting or delivery.status is DeliveryStatus.PENDING
    events.sort(key=lambda event: event.at)
    return Timeline(events, waiting)
