"""The webhook rows of the fakes, and the per-account lock that serialises registrations."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pixcore.webhooks.rules import Delivery, DeliveryAttempt, Webhook, WebhookSecret

__all__ = ["AccountLocks", "WebhookTables"]


@dataclass
class WebhookTables:
    """Registrations, secrets and deliveries: committed in a store, or staged in a unit of work.

    Tests may seed ``deliveries``, and a delivery's notification (``payloads``, and the PIX it is
    about, ``about``) and attempt log (``attempt_logs``), directly: the notifier, not these ports,
    writes them.
    """

    webhooks: dict[int, Webhook] = field(default_factory=dict)
    secrets: dict[int, WebhookSecret] = field(default_factory=dict)  # by account
    deliveries: dict[int, Delivery] = field(default_factory=dict)
    payloads: dict[int, dict[str, Any]] = field(default_factory=dict)  # by delivery
    about: dict[int, str] = field(default_factory=dict)
    """The end-to-end id a delivery's notification is about, by delivery (seeded with its payload)."""
    attempt_logs: dict[int, list[DeliveryAttempt]] = field(default_factory=dict)  # by delivery
    last_webhook_id: int = 0  # committed tables only: a sequence, spent even on rollback

    def next_webhook_id(self) -> int:
        self.last_webhook_id += 1
        return self.last_webhook_id

    def conflict(self, staged: WebhookTables) -> str | None:
        """What the database's unique index of active URLs would refuse in ``staged``, if anything."""
        merged = {**self.webhooks, **staged.webhooks}
        active = Counter((w.account_id, w.event_type, w.url) for w in merged.values() if w.is_active)
        duplicates = [key for key, count in active.items() if count > 1]
        return f"an active registration exists already: {duplicates[0]}" if duplicates else None

    def merge(self, staged: WebhookTables) -> None:
        self.webhooks.update(staged.webhooks)
        for account_id, secret in staged.secrets.items():
            if secret.rotated_at is None:  # a first secret: one committed meanwhile wins (ON CONFLICT)
                self.secrets.setdefault(account_id, secret)
            else:
                self.secrets[account_id] = secret
        self.deliveries.update(staged.deliveries)


class AccountLocks:
    """Like ``SELECT ... FOR NO KEY UPDATE`` on an account row: a second unit of work waits for
    the first to commit or roll back."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[object, asyncio.Event]] = {}

    async def acquire(self, account_id: int, owner: object) -> None:
        while (held := self._held.get(account_id)) is not None and held[0] is not owner:
            await held[1].wait()
        if held is None:
            self._held[account_id] = (owner, asyncio.Event())

    def release(self, owner: object) -> None:
        for account_id, (holder, released) in list(self._held.items()):
            if holder is owner:
                del self._held[account_id]
                released.set()
