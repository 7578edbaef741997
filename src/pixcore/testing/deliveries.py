"""``InMemoryDeliveryStore``: the notifier's ``DeliveryStore`` port in memory, for unit tests.

It holds the tables the notifier reads and writes (outbox events, registrations, the accounts'
signing secrets, deliveries) and keeps the contract of
``pixinfra.persistence.deliveries.PostgresDeliveryStore``:

* :meth:`~InMemoryDeliveryStore.dispatch` fans each undispatched event (oldest first) out to the
  active registrations of its account and of the registration type stored with it (never read
  from its payload), in id order, and marks it dispatched;
* a claim leases a delivery: it is due again only when ``lease_until`` has passed, and an
  outcome (or a give-back) is stored only while the claim's lease is still the delivery's;
* an outcome counts an attempt and stores the verdict (a retry's moment, or the end); a 410's
  verdict deactivates the registration in the same step;
* :meth:`~InMemoryDeliveryStore.release` makes leased deliveries due again at once.

Each method runs without a pause (no ``await`` inside), as one PostgreSQL statement would: two
notifiers sharing the store never claim the same delivery (``SKIP LOCKED``). The suite in
``tests/contract/test_delivery_store.py`` runs against this fake and PostgreSQL alike.

Tests seed it as the API would have written (:meth:`~InMemoryDeliveryStore.add_webhook`,
:meth:`~InMemoryDeliveryStore.set_secret`, :meth:`~InMemoryDeliveryStore.emit`) and read the
outcome back as domain objects (:meth:`~InMemoryDeliveryStore.delivery_to`,
:meth:`~InMemoryDeliveryStore.webhook`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from pixcore.webhooks.delivery import (
    GONE_REASON,
    INACTIVE_REASON,
    MAX_REASON,
    Attempted,
    Claim,
    Verdict,
    message_id,
)
from pixcore.webhooks.rules import (
    Delivery,
    DeliveryAttempt,
    DeliveryStatus,
    EventType,
    Webhook,
    WebhookSecret,
)

__all__ = ["InMemoryDeliveryStore", "OutboxEvent"]

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class OutboxEvent:
    """One row of the outbox: a notification ``{type, data}`` of an account, the registration type it
    goes to (None: to none), dispatched or not."""

    id: int
    account_id: int
    event: dict[str, Any]
    webhook_type: EventType | None
    created_at: datetime
    dispatched_at: datetime | None = None
    pix_key: str | None = None  # a PIX event: the key whose webhook it goes to


@dataclass
class _DeliveryRow:
    id: int
    message_id: str
    outbox_id: int
    webhook_id: int
    account_id: int
    created_at: datetime
    status: DeliveryStatus = DeliveryStatus.PENDING
    attempts: int = 0
    next_attempt_at: datetime | None = None
    last_attempt_at: datetime | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    finished_at: datetime | None = None

    def leased_by(self, claim: Claim) -> bool:
        """The claim's lease still holds: the row is pending and due when the lease ends."""
        return self.status is DeliveryStatus.PENDING and self.next_attempt_at == claim.lease_until


class InMemoryDeliveryStore:
    """The notifier's tables in memory (see the module's docstring)."""

    def __init__(self) -> None:
        self.events: dict[int, OutboxEvent] = {}
        self.webhooks: dict[int, Webhook] = {}
        self.secrets: dict[int, WebhookSecret] = {}  # by account
        self._deliveries: dict[int, _DeliveryRow] = {}
        self._attempts: list[tuple[int, DeliveryAttempt]] = []  # (delivery id, line), in insertion order

    # ------------------------------------------------------------------------ seeding

    def add_webhook(
        self,
        account_id: int,
        url: str,
        event_type: EventType = EventType.CASH_OUT,
        headers: Mapping[str, str] | None = None,
        *,
        active: bool = True,
        at: datetime = EPOCH,
        pix_key: str | None = None,
    ) -> int:
        """A registration, as the API stores it (``pix_key``: a key's webhook, type PIX); its id."""
        webhook_id = max(self.webhooks, default=0) + 1
        self.webhooks[webhook_id] = Webhook(
            id=webhook_id,
            account_id=account_id,
            event_type=event_type,
            url=url,
            headers=dict(headers or {}),
            version=1,
            is_active=active,
            created_at=at,
            updated_at=at,
            pix_key=pix_key,
            webhook_url=None if pix_key is None else url,
        )
        return webhook_id

    def set_secret(
        self,
        account_id: int,
        secret: str,
        *,
        previous: str | None = None,
        previous_until: datetime | None = None,
        at: datetime = EPOCH,
    ) -> None:
        """The account's signing secret (and, during a rotation, the previous one until a moment)."""
        self.secrets[account_id] = WebhookSecret(
            account_id=account_id,
            secret=secret,
            created_at=at,
            previous_secret=previous,
            previous_until=previous_until,
            rotated_at=at if previous else None,
        )

    def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None:
        """Deactivate an active registration (as its owner would); an inactive one is left alone."""
        hook = self.webhooks[webhook_id]
        if hook.is_active:
            self.webhooks[webhook_id] = replace(
                hook, is_active=False, updated_at=at, deactivated_at=at, deactivation_reason=reason
            )

    def emit(
        self,
        account_id: int,
        event: Mapping[str, Any],
        webhook_type: EventType | None,
        at: datetime = EPOCH,
        *,
        pix_key: str | None = None,
    ) -> int:
        """Queue a notification in the outbox, as an outbox adapter writes it: the payload and the
        registration type it goes to (``pixcore.events``' ``webhook_type``; None: to none; a PIX
        event's ``pix_key`` too). Its id."""
        outbox_id = max(self.events, default=0) + 1
        self.events[outbox_id] = OutboxEvent(
            outbox_id, account_id, copy.deepcopy(dict(event)), webhook_type, at, pix_key=pix_key
        )
        return outbox_id

    # ------------------------------------------------------------------------ reading

    def webhook(self, webhook_id: int) -> Webhook:
        return self.webhooks[webhook_id]

    def deliveries(self) -> list[Delivery]:
        """Every delivery, in id order."""
        return [self._view(row) for row in self._deliveries.values()]

    def deliveries_of(self, outbox_id: int) -> list[Delivery]:
        """The deliveries of one event, in id order."""
        return [self._view(row) for row in self._deliveries.values() if row.outbox_id == outbox_id]

    def delivery_to(self, outbox_id: int, webhook_id: int) -> Delivery:
        """The delivery of one event to one registration (``KeyError`` if there is none)."""
        for row in self._deliveries.values():
            if (row.outbox_id, row.webhook_id) == (outbox_id, webhook_id):
                return self._view(row)
        raise KeyError(f"no delivery of event {outbox_id} to webhook {webhook_id}")

    def attempt_log(self, delivery_id: int) -> list[DeliveryAttempt]:
        """The lines of a delivery's attempt log, oldest first."""
        return [line for owner, line in self._attempts if owner == delivery_id]

    def _view(self, row: _DeliveryRow) -> Delivery:
        hook = self.webhooks[row.webhook_id]
        return Delivery(
            id=row.id,
            message_id=row.message_id,
            webhook_id=row.webhook_id,
            account_id=row.account_id,
            event_type=hook.event_type,
            url=hook.url,
            status=row.status,
            attempts=row.attempts,
            created_at=row.created_at,
            next_attempt_at=row.next_attempt_at,
            last_attempt_at=row.last_attempt_at,
            last_status_code=row.last_status_code,
            last_error=row.last_error,
            finished_at=row.finished_at,
        )

    # ------------------------------------------------------------------------ the port

    async def dispatch(self, now: datetime, limit: int) -> list[int]:
        waiting = sorted(e.id for e in self.events.values() if e.dispatched_at is None)[:limit]
        for outbox_id in waiting:
            event = self.events[outbox_id]
            targets = sorted(
                hook.id
                for hook in self.webhooks.values()
                if hook.is_active
                and hook.account_id == event.account_id
                and hook.event_type is event.webhook_type
                and hook.pix_key == event.pix_key  # a key's webhook gets its key's PIX only
                and hook.created_at <= event.created_at  # registered once it happened
            )
            for webhook_id in targets:
                delivery_id = max(self._deliveries, default=0) + 1
                self._deliveries[delivery_id] = _DeliveryRow(
                    id=delivery_id,
                    message_id=message_id(outbox_id, webhook_id),
                    outbox_id=outbox_id,
                    webhook_id=webhook_id,
                    account_id=event.account_id,
                    created_at=now,
                    next_attempt_at=now,
                )
            event.dispatched_at = now
        return waiting

    async def claim_due(self, now: datetime, limit: int, lease_until: datetime) -> list[Claim]:
        due = sorted(
            (row.next_attempt_at, row.id)
            for row in self._deliveries.values()
            if row.status is DeliveryStatus.PENDING
            and row.next_attempt_at is not None
            and row.next_attempt_at <= now
        )[:limit]
        claims = []
        for _, delivery_id in due:
            row = self._deliveries[delivery_id]
            row.next_attempt_at = lease_until
            claims.append(self._claim(row, now, lease_until))
        return claims

    def _claim(self, row: _DeliveryRow, now: datetime, lease_until: datetime) -> Claim:
        hook = self.webhooks[row.webhook_id]
        secret = self.secrets.get(hook.account_id)
        keys: tuple[str | None, ...] = ()
        if secret is not None:
            rotating = secret.previous_until is not None and secret.previous_until > now
            keys = (secret.secret, secret.previous_secret if rotating else None)
        return Claim(
            id=row.id,
            message_id=row.message_id,
            webhook_id=row.webhook_id,
            account_id=row.account_id,
            attempts=row.attempts,
            lease_until=lease_until,
            event=copy.deepcopy(self.events[row.outbox_id].event),
            url=hook.url,
            headers=dict(hook.headers),
            active=hook.is_active,
            secrets=tuple(key for key in keys if key),
        )

    def _store(self, outcome: Attempted) -> bool:
        row = self._deliveries.get(outcome.claim.id)
        if row is None or not row.leased_by(outcome.claim):
            return False
        verdict = outcome.verdict
        row.attempts += 1
        row.status = verdict.status
        row.next_attempt_at = verdict.next_attempt_at
        row.last_attempt_at = outcome.attempted_at
        row.last_status_code = outcome.status_code
        row.last_error = verdict.reason[:MAX_REASON] if verdict.reason else None
        row.finished_at = outcome.attempted_at if verdict.status is not DeliveryStatus.PENDING else None
        self._attempts.append(
            (
                row.id,
                DeliveryAttempt(
                    attempted_at=outcome.attempted_at,
                    status_code=outcome.status_code,
                    duration_ms=max(0, outcome.duration_ms),
                    error=outcome.log_error(),
                    response_body=outcome.log_body(),
                ),
            )
        )
        return True

    async def record(
        self,
        claim: Claim,
        verdict: Verdict,
        *,
        attempted_at: datetime,
        status_code: int | None,
        duration_ms: int = 0,
        error: str | None = None,
        response_body: str | None = None,
    ) -> bool:
        outcome = Attempted(claim, verdict, attempted_at, status_code, duration_ms, error, response_body)
        if not self._store(outcome):
            return False
        if verdict.deactivate:
            self.deactivate(claim.webhook_id, GONE_REASON, attempted_at)
        return True

    async def record_many(self, outcomes: Sequence[Attempted]) -> set[int]:
        if any(outcome.verdict.deactivate for outcome in outcomes):
            raise ValueError("a 410 deactivates its registration: store it with record()")
        return {outcome.claim.id for outcome in outcomes if self._store(outcome)}

    async def finish_inactive(self, claim: Claim, now: datetime) -> bool:
        row = self._deliveries.get(claim.id)
        if row is None or not row.leased_by(claim):
            return False
        row.status = DeliveryStatus.FAILED
        row.next_attempt_at = None
        row.finished_at = now
        row.last_error = INACTIVE_REASON
        return True

    async def release(self, claims: Sequence[Claim], now: datetime) -> int:
        released = 0
        for claim in claims:
            row = self._deliveries.get(claim.id)
            if row is not None and row.leased_by(claim):
                row.next_attempt_at = now
                released += 1
        return released

    async def prune_attempts(self, before: datetime, limit: int) -> int:
        old = sorted(
            (line.attempted_at, index)
            for index, (_, line) in enumerate(self._attempts)
            if line.attempted_at < before
        )[:limit]
        doomed = {index for _, index in old}
        self._attempts = [entry for index, entry in enumerate(self._attempts) if index not in doomed]
        return len(doomed)
