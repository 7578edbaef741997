"""The ports of webhooks: registrations and deliveries, the notifier's store, the host resolver
and the probe of a URL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pixcore.webhooks.delivery import Attempted, Claim, Verdict
from pixcore.webhooks.rules import (
    Delivery,
    DeliveryDetail,
    DeliveryFilter,
    DeliveryStatus,
    EventType,
    NewWebhook,
    Webhook,
    WebhookSecret,
)

__all__ = ["DeliveryStore", "HostResolver", "Ping", "ProbeResult", "WebhookProbe", "WebhookRepository"]


class WebhookRepository(Protocol):
    """Webhook registrations, the account's signing secret, and the deliveries' state."""

    async def lock_account(self, account_id: int) -> bool:
        """Serialise the account's registration changes until the unit of work ends (other
        units wait here); False if there is no such account."""
        ...

    async def add(self, new: NewWebhook) -> Webhook:
        """Store an active registration (version 1)."""
        ...

    async def get(self, account_id: int, webhook_id: int) -> Webhook | None:
        """One of the account's registrations, active or not; None for another account's and for
        a key's webhook (those are the standard's ``/webhook``'s, not ``/api/webhooks``')."""
        ...

    async def of_key(self, account_id: int, pix_key: str) -> Webhook | None:
        """The active webhook of one of the account's keys (type PIX), if any."""
        ...

    async def of_keys(
        self, account_id: int, *, start: datetime | None, end: datetime | None, offset: int, limit: int
    ) -> tuple[int, list[Webhook]]:
        """A page of the account's active key webhooks created between ``start`` and ``end``
        (inclusive, None: unbounded), oldest first, and how many match in all."""
        ...

    async def active(self, account_id: int, event_type: EventType) -> list[Webhook]:
        """The account's active registrations of one event type, oldest first."""
        ...

    async def list_for(self, account_id: int) -> list[Webhook]:
        """Every registration of the account, active or not, oldest first (key webhooks aside)."""
        ...

    async def update_headers(self, webhook_id: int, headers: Mapping[str, str], at: datetime) -> Webhook:
        """Replace an active registration's headers and bump its version."""
        ...

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None: ...

    async def secret(self, account_id: int) -> WebhookSecret | None: ...

    async def add_secret(self, account_id: int, secret: str, at: datetime) -> WebhookSecret:
        """Store the account's first secret; if it has one already, that one is kept and returned."""
        ...

    async def rotate_secret(
        self, account_id: int, secret: str, at: datetime, previous_until: datetime
    ) -> WebhookSecret:
        """Make ``secret`` current; the current one (if any) signs too until ``previous_until``."""
        ...

    async def deliveries(
        self,
        account_id: int,
        *,
        limit: int,
        status: DeliveryStatus | None = None,
        filters: DeliveryFilter | None = None,
    ) -> list[Delivery]:
        """The account's most recent deliveries, newest first, narrowed by ``status`` and ``filters``
        (each of its fields that is set; the dates bound ``created_at``, inclusive)."""
        ...

    async def get_delivery(self, account_id: int, delivery_id: int) -> Delivery | None: ...

    async def delivery_detail(self, account_id: int, delivery_id: int) -> DeliveryDetail | None:
        """A delivery of the account with its notification and its attempts, oldest first; None if
        there is no such delivery of the account."""
        ...

    async def requeue_delivery(self, account_id: int, delivery_id: int, at: datetime) -> Delivery | None:
        """A finished (delivered or failed) delivery becomes pending again, due at ``at``, with no
        attempts; a pending one becomes due at ``at`` (if not due earlier), its attempts kept. None
        (and nothing changed) if it is not the account's."""
        ...


class DeliveryStore(Protocol):
    """The notifier's tables: the outbox, registrations and secrets (read), the deliveries.

    Any number of notifiers may share one store. Each outbox event is fanned out once; a claim is
    a lease: a claimed delivery is not claimable again until ``lease_until`` has passed, and an
    outcome is stored only while the claim's lease is still the delivery's (a notifier that lost
    its lease writes nothing: the methods below return False, or leave the delivery out).
    """

    async def dispatch(self, now: datetime, limit: int) -> list[int]:
        """Consume up to ``limit`` undispatched outbox events, oldest first: one pending delivery,
        due at ``now``, per active registration of each event's account and type that was made
        when the event happened (``created_at`` not after the event's: a registration never
        receives older events). Returns the ids of the events consumed (with or without
        registrations)."""
        ...

    async def claim_due(self, now: datetime, limit: int, lease_until: datetime) -> list[Claim]:
        """Lease up to ``limit`` pending deliveries due at ``now`` (oldest due first) until
        ``lease_until``."""
        ...

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
        """Store an attempt's outcome and its line of the attempt log (``Attempted.log_error``,
        ``Attempted.log_body``), and deactivate the registration if the verdict says so (410),
        together. False: the lease was lost, nothing was written."""
        ...

    async def record_many(self, outcomes: Sequence[Attempted]) -> set[int]:
        """Store many outcomes at once, each with its line of the attempt log (none may
        deactivate: ``ValueError``); the ids of the deliveries whose lease still held (the others
        get no line)."""
        ...

    async def prune_attempts(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` lines of the attempt log made before ``before``, oldest first;
        how many were deleted."""
        ...

    async def finish_inactive(self, claim: Claim, now: datetime) -> bool:
        """Fail, without an attempt, a delivery whose registration went inactive after the fan-out
        (``INACTIVE_REASON``); False if the lease was lost."""
        ...

    async def release(self, claims: Sequence[Claim], now: datetime) -> int:
        """Give leases back unused: those deliveries are due again at ``now``. How many were."""
        ...


class HostResolver(Protocol):
    """Name resolution (DNS): the addresses a host name stands for."""

    async def resolve(self, host: str, port: int) -> list[str]:
        """The host's IP addresses as text; empty if it does not resolve."""
        ...


@dataclass(frozen=True, slots=True)
class Ping:
    """The test event sent to one registration: which one, and when it was sent."""

    webhook_id: int
    sent_at: datetime


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What a test event got: the receiver's status code, or an error (no answer)."""

    success: bool
    status_code: int | None
    duration_ms: int
    error: str | None


class WebhookProbe(Protocol):
    """Sends one signed notification to a registration now, once (no retry): the test event of
    ``POST /api/webhooks/{id}/test``. The notifier implements it (``pixnotify.probe``) with its
    own HTTP client and signer, so the address guard and the TLS settings apply."""

    async def send(
        self,
        *,
        url: str,
        headers: Mapping[str, str],
        secrets: Sequence[str],
        msg_id: str,
        event: Ping,
    ) -> ProbeResult:
        """POST ``event`` signed with ``secrets`` as ``msg_id`` (its ``webhook-timestamp`` the wall
        clock's, which receivers check it against)."""
        ...
