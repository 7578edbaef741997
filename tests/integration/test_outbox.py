"""The PostgreSQL outbox adapter: a typed event becomes a row whose ``event_type`` is the event's
type and whose ``payload`` is ``pixcore.events.payload`` of it, refund amounts as exact numbers."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from decimal import Decimal

import asyncpg
import pytest

from pixcore.events import (
    Event,
    Holder,
    MedEvent,
    ReceiveEvent,
    RefundDirection,
    Refunded,
    RefundEvent,
    TransferEvent,
    payload,
)
from pixcore.med import MedReason, MedStatus
from pixcore.testing import PlainHasher
from pixcore.transfers import SpiError
from pixcore.usecases import open_account
from tests.support import pg_uow, random_cpf

E2E = "E99999999202601011200abcdefghijk"
AT = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
EVENTS: list[Event] = [
    TransferEvent(
        transaction_id=7,
        pix_key="pix@example.com",
        amount=1050,
        end_to_end_id=E2E,
        idempotency_key=uuid.uuid4(),
        creditor=Holder("Loja Exemplo", "11222333000181"),
        creditor_ispb="12345678",
        description=None,
        error=SpiError.BLOCKED_ACCOUNT,
    ),
    ReceiveEvent(
        transaction_id=9, tx_id=None, amount=1, end_to_end_id=E2E, debtor=Holder("Maria", "52998224725")
    ),
    RefundEvent(
        transaction_id=11,
        tx_id="abcdefghijklmnopqrstuvwxyz123",
        amount=1050,
        end_to_end_id=E2E,
        refund=Refunded(500, "D12345678202601020304abcdefghijk", AT, "troca"),
        direction=RefundDirection.DEBIT,
    ),
    RefundEvent(
        transaction_id=12,
        tx_id=None,
        amount=1050,
        end_to_end_id=E2E,
        refund=Refunded(1000, "D12345678202601020304abcdefghijk", AT),
        direction=RefundDirection.CREDIT,
    ),
    MedEvent(
        case_id=3, end_to_end_id=E2E, status=MedStatus.REJECTED, reason=MedReason.MED_OPERACIONAL, amount=7
    ),
]


@pytest.fixture
async def conn(migrated_database: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(migrated_database)
    try:
        yield connection
    finally:
        await connection.close()


async def test_an_event_is_stored_with_its_type_and_its_payload(conn: asyncpg.Connection) -> None:
    opened = await open_account(
        pg_uow, PlainHasher(), ispb="99999999", name="Outbox Holder", document=random_cpf(), city="RECIFE"
    )
    async with pg_uow() as uow:
        for event in EVENTS:
            await uow.outbox.add(opened.account.id, event, AT)
        await uow.commit()

    rows = await conn.fetch(
        "SELECT event_type, payload::text AS payload, created_at FROM outbox"
        " WHERE account_id = $1 ORDER BY id",
        opened.account.id,
    )
    stored = [json.loads(row["payload"], parse_float=Decimal) for row in rows]
    assert stored == [payload(event) for event in EVENTS]
    assert [row["event_type"] for row in rows] == [event.type.value for event in EVENTS]
    assert [row["event_type"] for row in rows] == [item["type"] for item in stored]
    assert {row["created_at"] for row in rows} == {AT}
    # The refund's amount is a JSON number with its two decimals, not a string, nor a float's digits.
    assert '"amount": 5.00' in rows[2]["payload"]
    assert '"amount": 10.00' in rows[3]["payload"]
