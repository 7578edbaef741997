"""PostgreSQL repository of the outbox: the events the notifier delivers, written in the
transaction that caused them, each with its type, its payload and where it goes (``webhook_type``,
the registration type the notifier fans it out to). The payload is the event's JSON as
:func:`pixinfra.event_payloads.payload` writes it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from pixcore.events import Event, KeyPixEvent
from pixinfra.event_payloads import payload
from pixinfra.persistence.repository import Repository

__all__ = ["PostgresOutbox"]

# Events may carry Decimal amounts (REFUND's refunds[].payment.amount): written as exact JSON numbers.
_EVENT_ENCODER = msgspec.json.Encoder(decimal_format="number")


def _pix_key(event: Event) -> str | None:
    """The key a PIX event goes to the webhook of (the fan-out matches it); None for the others."""
    return event.pix_key if isinstance(event, KeyPixEvent) else None


class PostgresOutbox(Repository):
    async def add(self, account_id: int, event: Event, at: datetime) -> None:
        await self._conn.execute(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at, pix_key)
               VALUES ($1, $2, $3, $4::jsonb, $5, $6)""",
            account_id,
            event.type.value,
            event.webhook_type.value,
            _EVENT_ENCODER.encode(payload(event)).decode(),
            at,
            _pix_key(event),
        )

    async def add_many(self, account_id: int, events: Sequence[Event], at: datetime) -> None:
        await self._conn.execute(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at, pix_key)
               SELECT $1, event_type, webhook_type, payload::jsonb, $5, pix_key
                 FROM unnest($2::text[], $3::text[], $4::text[], $6::text[])
                   AS e(event_type, webhook_type, payload, pix_key)""",
            account_id,
            [event.type.value for event in events],
            [event.webhook_type.value for event in events],
            [_EVENT_ENCODER.encode(payload(event)).decode() for event in events],
            at,
            [_pix_key(event) for event in events],
        )

    async def add_each(self, events: Sequence[tuple[int, Event]], at: datetime) -> None:
        await self._conn.execute(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
               SELECT account_id, event_type, webhook_type, payload::jsonb, $5
                 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])
                      AS e(account_id, event_type, webhook_type, payload)""",
            [account_id for account_id, _ in events],
            [event.type.value for _, event in events],
            [event.webhook_type.value for _, event in events],
            [_EVENT_ENCODER.encode(payload(event)).decode() for _, event in events],
            at,
        )
