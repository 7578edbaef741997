"""The rows a contract test starts from, written the same way into either store.

``Rows`` is what a test needs besides the port itself: accounts, secrets, registrations and
outbox events seeded as the API writes them, and the deliveries and registrations read back as
domain objects. ``MemoryRows`` seeds :class:`~pixcore.testing.InMemoryDeliveryStore` through its
own methods; ``PostgresRows`` writes the tables.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

import asyncpg

from pixcore.testing import InMemoryDeliveryStore
from pixcore.testing.deliveries import EPOCH
from pixcore.webhooks.rules import Delivery, DeliveryAttempt, EventType, Webhook
from pixinfra.persistence.webhooks import DEACTIVATE_WEBHOOK, delivery_from_row, webhook_from_row

__all__ = ["MemoryRows", "PostgresRows", "Rows"]


class Rows(Protocol):
    async def account(self) -> int: ...

    async def secret(
        self, account_id: int, secret: str, previous: str | None = None, until: datetime | None = None
    ) -> None: ...

    async def webhook(
        self,
        account_id: int,
        url: str,
        event_type: EventType = EventType.CASH_OUT,
        headers: Mapping[str, str] | None = None,
        *,
        active: bool = True,
        pix_key: str | None = None,
    ) -> int: ...

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None: ...

    async def emit(
        self,
        account_id: int,
        event: dict[str, Any],
        webhook_type: EventType | None,
        *,
        pix_key: str | None = None,
    ) -> int:
        """An outbox row: the payload, and the registration type it goes to. None (to none) only with
        a payload that goes nowhere either: PostgreSQL routes a row written without its type by its
        payload, for the previous version during a rolling update (migration 2026-11-24T01)."""
        ...

    async def dispatched_at(self, outbox_id: int) -> datetime | None: ...

    async def deliveries_of(self, outbox_id: int) -> list[Delivery]: ...

    async def registration(self, webhook_id: int) -> Webhook: ...

    async def attempt_log(self, delivery_id: int) -> list[DeliveryAttempt]:
        """The lines of a delivery's attempt log, oldest first."""
        ...

    async def attempt_count(self) -> int:
        """How many lines the attempt log holds, all deliveries together."""
        ...


class MemoryRows:
    def __init__(self, store: InMemoryDeliveryStore) -> None:
        self.store = store
        self._accounts = itertools.count(1)
        self._ticks = itertools.count(1)

    def _moment(self) -> datetime:
        """A later moment at each call, as ``now()`` is for each PostgreSQL row below."""
        return EPOCH + timedelta(microseconds=next(self._ticks))

    async def account(self) -> int:
        return next(self._accounts)

    async def secret(
        self, account_id: int, secret: str, previous: str | None = None, until: datetime | None = None
    ) -> None:
        self.store.set_secret(account_id, secret, previous=previous, previous_until=until)

    async def webhook(
        self,
        account_id: int,
        url: str,
        event_type: EventType = EventType.CASH_OUT,
        headers: Mapping[str, str] | None = None,
        *,
        active: bool = True,
        pix_key: str | None = None,
    ) -> int:
        return self.store.add_webhook(
            account_id, url, event_type, headers, active=active, at=self._moment(), pix_key=pix_key
        )

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None:
        self.store.deactivate(webhook_id, reason, at)

    async def emit(
        self,
        account_id: int,
        event: dict[str, Any],
        webhook_type: EventType | None,
        *,
        pix_key: str | None = None,
    ) -> int:
        return self.store.emit(account_id, event, webhook_type, at=self._moment(), pix_key=pix_key)

    async def dispatched_at(self, outbox_id: int) -> datetime | None:
        return self.store.events[outbox_id].dispatched_at

    async def deliveries_of(self, outbox_id: int) -> list[Delivery]:
        return self.store.deliveries_of(outbox_id)

    async def registration(self, webhook_id: int) -> Webhook:
        return self.store.webhook(webhook_id)

    async def attempt_log(self, delivery_id: int) -> list[DeliveryAttempt]:
        return self.store.attempt_log(delivery_id)

    async def attempt_count(self) -> int:
        return sum(len(self.store.attempt_log(d.id)) for d in self.store.deliveries())


_ACCOUNT_NUMBERS = itertools.count(1)  # accounts outlive a test: their numbers are unique per run


class PostgresRows:
    """The rows in PostgreSQL, written on ``pool`` (a pool, or one connection of a test's)."""

    def __init__(self, pool: asyncpg.Pool[asyncpg.Record] | asyncpg.Connection[asyncpg.Record]) -> None:
        self.pool = pool

    async def account(self) -> int:
        account_id: int = await self.pool.fetchval(
            """INSERT INTO accounts (ispb, branch, number, name, document, city)
               VALUES ('99999999', '0001', $1, 'Contract Test', '12345678909', 'RECIFE') RETURNING id""",
            f"{next(_ACCOUNT_NUMBERS):08d}",
        )
        return account_id

    async def secret(
        self, account_id: int, secret: str, previous: str | None = None, until: datetime | None = None
    ) -> None:
        await self.pool.execute(
            """INSERT INTO webhook_secrets (account_id, secret, previous_secret, previous_until, created_at)
               VALUES ($1, $2, $3, $4, now())""",
            account_id,
            secret,
            previous,
            until,
        )

    async def webhook(
        self,
        account_id: int,
        url: str,
        event_type: EventType = EventType.CASH_OUT,
        headers: Mapping[str, str] | None = None,
        *,
        active: bool = True,
        pix_key: str | None = None,
    ) -> int:
        webhook_id: int = await self.pool.fetchval(
            """INSERT INTO webhooks (account_id, event_type, url, headers, is_active, created_at, updated_at,
                                     pix_key, webhook_url)
               VALUES ($1, $2, $3, $4::jsonb, $5, now(), now(), $6, $7) RETURNING id""",
            account_id,
            EventType(event_type).value,
            url,
            json.dumps(dict(headers or {})),
            active,
            pix_key,
            None if pix_key is None else url,
        )
        return webhook_id

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None:
        await self.pool.execute(DEACTIVATE_WEBHOOK, webhook_id, reason, at)  # as the API does it

    async def emit(
        self,
        account_id: int,
        event: dict[str, Any],
        webhook_type: EventType | None,
        *,
        pix_key: str | None = None,
    ) -> int:
        outbox_id: int = await self.pool.fetchval(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at, pix_key)
               VALUES ($1, $2, $3, $4::jsonb, now(), $5) RETURNING id""",
            account_id,
            event["type"],
            webhook_type and webhook_type.value,
            json.dumps(event),
            pix_key,
        )
        return outbox_id

    async def dispatched_at(self, outbox_id: int) -> datetime | None:
        moment: datetime | None = await self.pool.fetchval(
            "SELECT dispatched_at FROM outbox WHERE id = $1", outbox_id
        )
        return moment

    async def deliveries_of(self, outbox_id: int) -> list[Delivery]:
        rows = await self.pool.fetch(
            """SELECT d.*, w.event_type, w.url
               FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
               WHERE d.outbox_id = $1 ORDER BY d.id""",
            outbox_id,
        )
        return [delivery_from_row(row) for row in rows]

    async def registration(self, webhook_id: int) -> Webhook:
        row = await self.pool.fetchrow("SELECT * FROM webhooks WHERE id = $1", webhook_id)
        assert row is not None, f"no webhook {webhook_id}"
        return webhook_from_row(row)

    async def attempt_log(self, delivery_id: int) -> list[DeliveryAttempt]:
        rows = await self.pool.fetch(
            """SELECT attempted_at, status_code, duration_ms, error, response_body FROM webhook_attempts
               WHERE delivery_id = $1 ORDER BY id""",
            delivery_id,
        )
        return [DeliveryAttempt(**dict(row)) for row in rows]

    async def attempt_count(self) -> int:
        count: int = await self.pool.fetchval("SELECT count(*) FROM webhook_attempts")
        return count
