"""Fakes of the webhook ports: registrations, secrets, deliveries, and a fixed name resolver."""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
from collections.abc import Mapping, Sequence
from datetime import datetime

from pixcore.testing._store import IntegrityError, Repository
from pixcore.testing._webhook_data import WebhookTables
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

__all__ = ["InMemoryWebhooks", "StaticResolver"]


class InMemoryWebhooks(Repository):
    @property
    def _mine(self) -> WebhookTables:
        return self._staged.webhooks

    @property
    def _theirs(self) -> WebhookTables:
        return self._committed.webhooks

    def _webhooks(self) -> list[Webhook]:
        return sorted({**self._theirs.webhooks, **self._mine.webhooks}.values(), key=lambda w: w.id)

    def _deliveries(self) -> list[Delivery]:
        return list({**self._theirs.deliveries, **self._mine.deliveries}.values())

    async def lock_account(self, account_id: int) -> bool:
        if account_id not in self._staged.accounts and account_id not in self._committed.accounts:
            return False
        await self._uow.store.account_locks.acquire(account_id, self._uow)
        return True

    async def add(self, new: NewWebhook) -> Webhook:
        self._require_account(new.account_id)
        if new.pix_key is None and any(
            w.is_active
            and w.pix_key is None
            and (w.account_id, w.event_type, w.url) == (new.account_id, new.event_type, new.url)
            for w in self._webhooks()
        ):
            raise IntegrityError(f"{new.url} is registered already for {new.event_type}")
        if new.event_type in (EventType.REC, EventType.COBR) and any(
            w.is_active and (w.account_id, w.event_type) == (new.account_id, new.event_type)
            for w in self._webhooks()
        ):
            raise IntegrityError(f"{new.url} is registered already for {new.event_type}")
        if new.pix_key is not None and any(
            w.is_active and (w.account_id, w.pix_key) == (new.account_id, new.pix_key)
            for w in self._webhooks()
        ):
            raise IntegrityError(f"{new.pix_key} has an active webhook already")
        webhook = Webhook(
            id=self._theirs.next_webhook_id(),
            account_id=new.account_id,
            event_type=new.event_type,
            url=new.url,
            headers=dict(new.headers),
            version=1,
            is_active=True,
            created_at=new.created_at,
            updated_at=new.created_at,
            pix_key=new.pix_key,
            webhook_url=new.webhook_url,
        )
        self._mine.webhooks[webhook.id] = webhook
        return webhook

    async def get(self, account_id: int, webhook_id: int) -> Webhook | None:
        webhook = self._mine.webhooks.get(webhook_id) or self._theirs.webhooks.get(webhook_id)
        if webhook is None or webhook.account_id != account_id or webhook.webhook_url is not None:
            return None
        return webhook

    async def of_key(self, account_id: int, pix_key: str) -> Webhook | None:
        return next(
            (
                w
                for w in self._webhooks()
                if w.is_active and (w.account_id, w.pix_key) == (account_id, pix_key)
            ),
            None,
        )

    async def of_keys(
        self, account_id: int, *, start: datetime | None, end: datetime | None, offset: int, limit: int
    ) -> tuple[int, list[Webhook]]:
        found = [
            w
            for w in self._webhooks()
            if w.is_active
            and w.account_id == account_id
            and w.pix_key is not None
            and (start is None or w.created_at >= start)
            and (end is None or w.created_at <= end)
        ]
        found.sort(key=lambda w: (w.created_at, w.id))
        return len(found), found[offset : offset + limit]

    async def active(self, account_id: int, event_type: EventType) -> list[Webhook]:
        return [
            w
            for w in self._webhooks()
            if w.account_id == account_id and w.event_type == event_type and w.is_active
        ]

    async def list_for(self, account_id: int) -> list[Webhook]:
        return [w for w in self._webhooks() if w.account_id == account_id and w.webhook_url is None]

    def _current(self, webhook_id: int) -> Webhook | None:
        return self._mine.webhooks.get(webhook_id) or self._theirs.webhooks.get(webhook_id)

    async def update_headers(self, webhook_id: int, headers: Mapping[str, str], at: datetime) -> Webhook:
        webhook = self._current(webhook_id)
        if webhook is None or not webhook.is_active:
            # As the adapter, whose guarded UPDATE finds no row: the caller checks first.
            raise RuntimeError(f"webhook {webhook_id} is not an active registration")
        updated = dataclasses.replace(
            webhook, headers=dict(headers), version=webhook.version + 1, updated_at=at
        )
        self._mine.webhooks[webhook_id] = updated
        return updated

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None:
        webhook = self._current(webhook_id)
        if webhook is not None and webhook.is_active:  # otherwise nothing changes, as in the adapter
            self._mine.webhooks[webhook_id] = dataclasses.replace(
                webhook, is_active=False, updated_at=at, deactivated_at=at, deactivation_reason=reason
            )

    async def secret(self, account_id: int) -> WebhookSecret | None:
        return self._mine.secrets.get(account_id) or self._theirs.secrets.get(account_id)

    async def add_secret(self, account_id: int, secret: str, at: datetime) -> WebhookSecret:
        existing = await self.secret(account_id)
        if existing is not None:
            return existing
        self._require_account(account_id)
        stored = WebhookSecret(account_id=account_id, secret=secret, created_at=at)
        self._mine.secrets[account_id] = stored
        return stored

    async def rotate_secret(
        self, account_id: int, secret: str, at: datetime, previous_until: datetime
    ) -> WebhookSecret:
        existing = await self.secret(account_id)
        if existing is None:
            return await self.add_secret(account_id, secret, at)
        rotated = dataclasses.replace(
            existing,
            secret=secret,
            previous_secret=existing.secret,
            previous_until=previous_until,
            rotated_at=at,
        )
        self._mine.secrets[account_id] = rotated
        return rotated

    async def deliveries(
        self,
        account_id: int,
        *,
        limit: int,
        status: DeliveryStatus | None = None,
        filters: DeliveryFilter | None = None,
    ) -> list[Delivery]:
        f = filters or DeliveryFilter()
        rows = [
            d
            for d in self._deliveries()
            if d.account_id == account_id
            and (status is None or d.status is status)
            and (f.status is None or d.status is f.status)
            and (f.webhook_id is None or d.webhook_id == f.webhook_id)
            and (f.event_type is None or d.event_type is f.event_type)
            and (f.created_from is None or d.created_at >= f.created_from)
            and (f.created_to is None or d.created_at <= f.created_to)
            and f.end_to_end_id in (None, self._theirs.about.get(d.id))
        ]
        rows.sort(key=lambda d: (d.created_at, d.id), reverse=True)
        return rows[:limit]

    async def get_delivery(self, account_id: int, delivery_id: int) -> Delivery | None:
        delivery = self._mine.deliveries.get(delivery_id) or self._theirs.deliveries.get(delivery_id)
        return delivery if delivery is not None and delivery.account_id == account_id else None

    async def delivery_detail(self, account_id: int, delivery_id: int) -> DeliveryDetail | None:
        delivery = await self.get_delivery(account_id, delivery_id)
        if delivery is None:
            return None
        return DeliveryDetail(
            delivery=delivery,
            payload=dict(self._theirs.payloads.get(delivery_id, {})),
            attempts=tuple(self._theirs.attempt_logs.get(delivery_id, ())),
        )

    async def requeue_delivery(self, account_id: int, delivery_id: int, at: datetime) -> Delivery | None:
        delivery = await self.get_delivery(account_id, delivery_id)
        if delivery is None:
            return None
        if delivery.status is DeliveryStatus.PENDING:
            due = delivery.next_attempt_at
            requeued = dataclasses.replace(delivery, next_attempt_at=at if due is None else min(due, at))
        else:
            requeued = dataclasses.replace(
                delivery, status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=at, finished_at=None
            )
        self._mine.deliveries[delivery_id] = requeued
        return requeued


class StaticResolver:
    """A ``HostResolver`` answering from a fixed table; unknown names do not resolve.

    It answers as the operating system's resolver does (``pixinfra.dns.SystemResolver``): a name in
    any case (the table's names too), an IP literal as itself in its canonical form (whatever the
    table says), and the addresses sorted, each once. ``calls`` records each host asked for.
    """

    def __init__(self, hosts: Mapping[str, Sequence[str]] | None = None) -> None:
        self.hosts = {name: list(addresses) for name, addresses in (hosts or {}).items()}
        self.calls: list[tuple[str, int]] = []

    async def resolve(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            pass  # a name
        else:  # as getaddrinfo writes it: IPv6 by the C library (an IPv4 address inside stays dotted)
            if literal.version == 4:
                return [str(literal)]
            return [socket.inet_ntop(socket.AF_INET6, literal.packed)]
        name = host.lower()
        named = [addresses for known, addresses in self.hosts.items() if known.lower() == name]
        return sorted({address for addresses in named for address in addresses})
