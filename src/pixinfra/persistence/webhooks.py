"""PostgreSQL repository of webhook registrations, secrets and the deliveries' state.

Registrations of one account are serialised by locking its ``accounts`` row
``FOR NO KEY UPDATE``: the lock waits for other registrations of the account
but not for inserts that merely reference the account (those take
``FOR KEY SHARE``), so transfers are never held up by it. The unique index of
active URLs per account and event type is the database's own guard.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime

import asyncpg

from pixcore.webhooks.rules import (
    Delivery,
    DeliveryAttempt,
    DeliveryDetail,
    DeliveryFilter,
    DeliveryStatus,
    EventType,
    NewWebhook,
    Webhook,
    WebhookSecret,
)
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose

__all__ = ["DEACTIVATE_WEBHOOK", "PostgresWebhooks", "delivery_from_row", "webhook_from_row"]

DEACTIVATE_WEBHOOK = """
UPDATE webhooks SET is_active = false, updated_at = $3, deactivated_at = $3, deactivation_reason = $2
WHERE id = $1 AND is_active
"""
"""Arguments: the registration's id, the reason, the moment. A registration is deactivated by its
owner (``DELETE /api/webhooks/{id}``, :meth:`PostgresWebhooks.deactivate`) or by its receiver
answering 410 Gone (:mod:`pixinfra.persistence.deliveries`): the same statement either way, which
leaves an inactive registration (and its first deactivation's time and reason) alone."""

_WEBHOOK_COLUMNS = (
    "id, account_id, event_type, url, headers, version, is_active, created_at, updated_at,"
    " deactivated_at, deactivation_reason, pix_key, webhook_url"
)
_DELIVERY_COLUMNS = (
    "d.id, d.message_id, d.webhook_id, d.account_id, w.event_type, w.url, d.status, d.attempts,"
    " d.created_at, d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_error, d.finished_at"
)


def webhook_from_row(row: asyncpg.Record) -> Webhook:
    return Webhook(
        id=row["id"],
        account_id=row["account_id"],
        event_type=EventType(row["event_type"]),
        url=row["url"],
        headers=json.loads(row["headers"]),
        version=row["version"],
        is_active=row["is_active"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        deactivated_at=row["deactivated_at"],
        deactivation_reason=row["deactivation_reason"],
        pix_key=row["pix_key"],
        webhook_url=row["webhook_url"],
    )


def _secret(row: asyncpg.Record) -> WebhookSecret:
    return WebhookSecret(
        account_id=row["account_id"],
        secret=row["secret"],
        created_at=row["created_at"],
        previous_secret=row["previous_secret"],
        previous_until=row["previous_until"],
        rotated_at=row["rotated_at"],
    )


def delivery_from_row(row: asyncpg.Record) -> Delivery:
    """A delivery of the API (and of the contract tests), from a row of `webhook_deliveries`
    joined with its registration's `event_type` and `url`."""
    return Delivery(
        id=row["id"],
        message_id=row["message_id"],
        webhook_id=row["webhook_id"],
        account_id=row["account_id"],
        event_type=EventType(row["event_type"]),
        url=row["url"],
        status=DeliveryStatus(row["status"]),
        attempts=row["attempts"],
        created_at=row["created_at"],
        next_attempt_at=row["next_attempt_at"],
        last_attempt_at=row["last_attempt_at"],
        last_status_code=row["last_status_code"],
        last_error=row["last_error"],
        finished_at=row["finished_at"],
    )


def _one(row: asyncpg.Record | None) -> asyncpg.Record:
    if row is None:
        raise RuntimeError("the statement returned no row")
    return row


class PostgresWebhooks(Repository):
    async def lock_account(self, account_id: int) -> bool:
        row = await self._conn.fetchrow("SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE", account_id)
        return row is not None

    async def add(self, new: NewWebhook) -> Webhook:
        row = await self._conn.fetchrow(
            compose(
                """
            INSERT INTO webhooks (account_id, event_type, url, headers, created_at, updated_at, pix_key,
                                  webhook_url)
            VALUES ($1, $2, $3, $4::jsonb, $5, $5, $6, $7)
            RETURNING """,
                _WEBHOOK_COLUMNS,
                """
            """,
            ),
            new.account_id,
            new.event_type.value,
            new.url,
            json.dumps(dict(new.headers)),
            new.created_at,
            new.pix_key,
            new.webhook_url,
        )
        return webhook_from_row(_one(row))

    async def get(self, account_id: int, webhook_id: int) -> Webhook | None:
        row = await self._conn.fetchrow(
            compose(
                "SELECT ",
                _WEBHOOK_COLUMNS,
                " FROM webhooks WHERE id = $1 AND account_id = $2 AND webhook_url IS NULL",
            ),
            webhook_id,
            account_id,
        )
        return webhook_from_row(row) if row else None

    async def of_key(self, account_id: int, pix_key: str) -> Webhook | None:
        row = await self._conn.fetchrow(
            compose(
                "SELECT ",
                _WEBHOOK_COLUMNS,
                " FROM webhooks WHERE account_id = $1 AND pix_key = $2 AND is_active",
            ),
            account_id,
            pix_key,
        )
        return webhook_from_row(row) if row else None

    async def of_keys(
        self, account_id: int, *, start: datetime | None, end: datetime | None, offset: int, limit: int
    ) -> tuple[int, list[Webhook]]:
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _WEBHOOK_COLUMNS,
                """, count(*) OVER () AS total FROM webhooks
             WHERE account_id = $1 AND pix_key IS NOT NULL AND is_active
               AND ($2::timestamptz IS NULL OR created_at >= $2)
               AND ($3::timestamptz IS NULL OR created_at <= $3)
             ORDER BY created_at, id OFFSET $4 LIMIT $5
            """,
            ),
            account_id,
            start,
            end,
            offset,
            limit,
        )
        if rows:
            return rows[0]["total"], [webhook_from_row(row) for row in rows]
        total = await self._conn.fetchval(
            """
            SELECT count(*) FROM webhooks
             WHERE account_id = $1 AND pix_key IS NOT NULL AND is_active
               AND ($2::timestamptz IS NULL OR created_at >= $2)
               AND ($3::timestamptz IS NULL OR created_at <= $3)
            """,
            account_id,
            start,
            end,
        )
        return int(total or 0), []

    async def active(self, account_id: int, event_type: EventType) -> list[Webhook]:
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _WEBHOOK_COLUMNS,
                """ FROM webhooks
             WHERE account_id = $1 AND event_type = $2 AND is_active ORDER BY id
            """,
            ),
            account_id,
            event_type.value,
        )
        return [webhook_from_row(row) for row in rows]

    async def list_for(self, account_id: int) -> list[Webhook]:
        rows = await self._conn.fetch(
            compose(
                "SELECT ",
                _WEBHOOK_COLUMNS,
                " FROM webhooks WHERE account_id = $1 AND webhook_url IS NULL ORDER BY id",
            ),
            account_id,
        )
        return [webhook_from_row(row) for row in rows]

    async def update_headers(self, webhook_id: int, headers: Mapping[str, str], at: datetime) -> Webhook:
        row = await self._conn.fetchrow(
            compose(
                """
            UPDATE webhooks SET headers = $2::jsonb, version = version + 1, updated_at = $3
             WHERE id = $1 AND is_active
            RETURNING """,
                _WEBHOOK_COLUMNS,
                """
            """,
            ),
            webhook_id,
            json.dumps(dict(headers)),
            at,
        )
        return webhook_from_row(_one(row))

    async def deactivate(self, webhook_id: int, reason: str, at: datetime) -> None:
        await self._conn.execute(DEACTIVATE_WEBHOOK, webhook_id, reason, at)

    async def secret(self, account_id: int) -> WebhookSecret | None:
        row = await self._conn.fetchrow("SELECT * FROM webhook_secrets WHERE account_id = $1", account_id)
        return _secret(row) if row else None

    async def add_secret(self, account_id: int, secret: str, at: datetime) -> WebhookSecret:
        # A concurrent first use waits for the other insert, then keeps the other's secret.
        await self._conn.execute(
            """
            INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, $3)
            ON CONFLICT (account_id) DO NOTHING
            """,
            account_id,
            secret,
            at,
        )
        return _secret(
            _one(await self._conn.fetchrow("SELECT * FROM webhook_secrets WHERE account_id = $1", account_id))
        )

    async def rotate_secret(
        self, account_id: int, secret: str, at: datetime, previous_until: datetime
    ) -> WebhookSecret:
        row = await self._conn.fetchrow(
            """
            INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, $3)
            ON CONFLICT (account_id) DO UPDATE
               SET previous_secret = webhook_secrets.secret, previous_until = $4,
                   secret = EXCLUDED.secret, rotated_at = $3
            RETURNING *
            """,
            account_id,
            secret,
            at,
            previous_until,
        )
        return _secret(_one(row))

    async def deliveries(
        self,
        account_id: int,
        *,
        limit: int,
        status: DeliveryStatus | None = None,
        filters: DeliveryFilter | None = None,
    ) -> list[Delivery]:
        f = filters or DeliveryFilter()
        if status is not None and f.status is not None and status is not f.status:
            return []
        wanted = status or f.status
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _DELIVERY_COLUMNS,
                """ FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
             WHERE d.account_id = $1 AND ($3::text IS NULL OR d.status = $3)
               AND ($4::bigint IS NULL OR d.webhook_id = $4)
               AND ($5::text IS NULL OR w.event_type = $5)
               AND ($6::timestamptz IS NULL OR d.created_at >= $6)
               AND ($7::timestamptz IS NULL OR d.created_at <= $7)
               AND ($8::text IS NULL OR EXISTS (
                     SELECT 1 FROM outbox o WHERE o.id = d.outbox_id
                        AND (o.payload -> 'data' ->> 'endToEndId' = $8
                             OR o.payload -> 'data' -> 'pix' -> 0 ->> 'endToEndId' = $8)))
             ORDER BY d.created_at DESC, d.id DESC LIMIT $2
            """,
            ),
            account_id,
            limit,
            wanted.value if wanted else None,
            f.webhook_id,
            f.event_type.value if f.event_type else None,
            f.created_from,
            f.created_to,
            f.end_to_end_id,
        )
        return [delivery_from_row(row) for row in rows]

    async def get_delivery(self, account_id: int, delivery_id: int) -> Delivery | None:
        row = await self._conn.fetchrow(
            compose(
                """
            SELECT """,
                _DELIVERY_COLUMNS,
                """ FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
             WHERE d.id = $1 AND d.account_id = $2
            """,
            ),
            delivery_id,
            account_id,
        )
        return delivery_from_row(row) if row else None

    async def delivery_detail(self, account_id: int, delivery_id: int) -> DeliveryDetail | None:
        row = await self._conn.fetchrow(
            compose(
                """
            SELECT """,
                _DELIVERY_COLUMNS,
                """, o.payload::text AS payload
              FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
              JOIN outbox o ON o.id = d.outbox_id
             WHERE d.id = $1 AND d.account_id = $2
            """,
            ),
            delivery_id,
            account_id,
        )
        if row is None:
            return None
        lines = await self._conn.fetch(
            """
            SELECT attempted_at, status_code, duration_ms, error, response_body FROM webhook_attempts
             WHERE delivery_id = $1 ORDER BY id
            """,
            delivery_id,
        )
        event = json.loads(row["payload"])
        return DeliveryDetail(
            delivery=delivery_from_row(row),
            payload={"type": event["type"], "data": event["data"]},  # the envelope sent (encode_body)
            attempts=tuple(
                DeliveryAttempt(
                    attempted_at=line["attempted_at"],
                    status_code=line["status_code"],
                    duration_ms=line["duration_ms"],
                    error=line["error"],
                    response_body=line["response_body"],
                )
                for line in lines
            ),
        )

    async def requeue_delivery(self, account_id: int, delivery_id: int, at: datetime) -> Delivery | None:
        # A finished delivery starts a fresh schedule; a pending one is due at once, attempts kept.
        # (A pending delivery a notifier holds at this moment loses its lease: its outcome is not
        # stored, and the next claim sends it again, with the same webhook-id.)
        row = await self._conn.fetchrow(
            compose(
                """
            WITH d AS (
                UPDATE webhook_deliveries
                   SET status = 'pending',
                       attempts = CASE WHEN status = 'pending' THEN attempts ELSE 0 END,
                       next_attempt_at = CASE WHEN status = 'pending' THEN LEAST(next_attempt_at, $3)
                                              ELSE $3 END,
                       finished_at = NULL
                 WHERE id = $1 AND account_id = $2
                RETURNING *
            )
            SELECT """,
                _DELIVERY_COLUMNS,
                """ FROM d JOIN webhooks w ON w.id = d.webhook_id
            """,
            ),
            delivery_id,
            account_id,
            at,
        )
        return delivery_from_row(row) if row else None
