"""The PostgreSQL outbox adapter: a typed event becomes a row whose ``event_type`` is the event's
type, whose ``webhook_type`` is where it goes and whose ``payload`` is
``pixinfra.event_payloads.payload`` of it, refund amounts as exact numbers. And the migration that
added ``webhook_type``: rows written before it get, from their payload, the type the notifier used
to read there."""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import UTC, datetime
from decimal import Decimal

import asyncpg
import pytest

from pixcore.accounts.accounts_service import open_account
from pixcore.events import (
    Event,
    Holder,
    MedEvent,
    ReceiveEvent,
    RefundDirection,
    Refunded,
    RefundEvent,
    TransferEvent,
)
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.testing import PlainHasher
from pixcore.transfers.rules import SpiError
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import REGISTRABLE
from pixinfra.event_payloads import payload
from pixinfra.postgres.piccolo_migrations import pixweb_2026_11_24t01_00_00_000000 as route_migration
from tests.support import random_cpf

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

EVERY_EVENT: list[Event] = [
    *EVENTS,
    *(
        dataclasses.replace(EVENTS[-1], status=status)
        for status in MedStatus
        if status is not MedStatus.REJECTED
    ),
]
"""Each registration type once at least: every MED status, both directions of a refund."""


async def test_an_event_is_stored_with_its_type_and_its_payload(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    opened = await open_account(
        pg_uow, PlainHasher(), ispb="99999999", name="Outbox Holder", document=random_cpf(), city="RECIFE"
    )
    async with pg_uow() as uow:
        for event in EVERY_EVENT:
            await uow.outbox.add(opened.account.id, event, AT)
        await uow.commit()

    rows = await conn.fetch(
        "SELECT event_type, webhook_type, payload::text AS payload, created_at FROM outbox"
        " WHERE account_id = $1 ORDER BY id",
        opened.account.id,
    )
    stored = [json.loads(row["payload"], parse_float=Decimal) for row in rows]
    assert stored == [payload(event) for event in EVERY_EVENT]
    assert [row["event_type"] for row in rows] == [event.type.value for event in EVERY_EVENT]
    assert [row["event_type"] for row in rows] == [item["type"] for item in stored]
    assert [row["webhook_type"] for row in rows] == [event.webhook_type.value for event in EVERY_EVENT]
    assert {row["created_at"] for row in rows} == {AT}
    # The refund's amount is a JSON number with its two decimals, not a string, nor a float's digits.
    assert '"amount": 5.00' in rows[2]["payload"]
    assert '"amount": 10.00' in rows[3]["payload"]


# The rules the notifier applied to a stored payload before the route was stored with it: each case,
# written out. A payload the service never writes goes nowhere (NULL), as it did.
LEGACY_ROUTES: list[tuple[dict[str, object], str | None]] = [
    ({"type": "RECEIVE", "data": {"id": 1}}, "cash_in"),
    ({"type": "TRANSFER", "data": {"id": 1, "creditDebitType": "DEBIT"}}, "cash_out"),
    ({"type": "REFUND", "data": {"creditDebitType": "DEBIT"}}, "refund_in"),
    ({"type": "REFUND", "data": {"creditDebitType": "CREDIT"}}, "refund_out"),
    ({"type": "REFUND", "data": {}}, "refund_out"),  # anything but DEBIT is a refund received
    ({"type": "REFUND", "data": None}, "refund_out"),
    ({"type": "MED", "data": {"status": "CREATED"}}, "med_created"),
    ({"type": "MED", "data": {"status": "ACCEPTED"}}, "med_accepted"),
    ({"type": "MED", "data": {"status": "REJECTED"}}, "med_rejected"),
    ({"type": "MED", "data": {"status": "UNKNOWN"}}, None),
    ({"type": "MED", "data": {"status": "created"}}, None),
    ({"type": "MED", "data": {}}, None),
    ({"type": "MED"}, None),
    ({"type": "CHARGE", "data": {"creditDebitType": "DEBIT"}}, None),
    ({"type": "receive", "data": {}}, None),
    ({"data": {"status": "CREATED"}}, None),
]


async def test_the_migration_gives_rows_written_before_it_the_type_their_payload_named(
    conn: asyncpg.Connection,
) -> None:
    """The migration's own SQL, run on an outbox as it was before it (a temporary table of that
    shape, which shadows the real one; all rolled back): each legacy payload gets its route, and
    each payload the service writes gets its event's ``webhook_type``."""
    cases = [*LEGACY_ROUTES, *((payload(event), event.webhook_type.value) for event in EVERY_EVENT)]
    before = conn.transaction()
    await before.start()
    try:
        await conn.execute(
            """
            CREATE TEMPORARY TABLE outbox (
                id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id    bigint      NOT NULL,
                event_type    varchar(10) NOT NULL,
                payload       jsonb       NOT NULL,
                created_at    timestamptz NOT NULL,
                dispatched_at timestamptz
            )
            """
        )
        await conn.executemany(
            "INSERT INTO outbox (account_id, event_type, payload, created_at)"
            " VALUES (1, $1, $2::jsonb, now())",
            [(str(event.get("type", "?"))[:10], json.dumps(event, default=str)) for event, _ in cases],
        )
        assert await conn.fetchval("SELECT count(*) FROM pg_temp.outbox") == len(cases)

        await conn.execute(route_migration.SQL)

        routes = await conn.fetch("SELECT webhook_type FROM pg_temp.outbox ORDER BY id")
    finally:
        await before.rollback()
    assert [row["webhook_type"] for row in routes] == [route for _, route in cases]
    # Every registration type is some legacy payload's route, so a lost branch would show above.
    assert {route for _, route in LEGACY_ROUTES} == {*(t.value for t in REGISTRABLE), None}


async def test_a_row_written_without_its_type_by_the_previous_version_gets_it(
    pg_uow: UnitOfWorkFactory,
    conn: asyncpg.Connection,
) -> None:
    """During a rolling update the previous version still writes ``(account_id, event_type, payload,
    created_at)``: the trigger routes its rows as its own notifier would have. A row written with its
    type keeps it."""
    opened = await open_account(
        pg_uow, PlainHasher(), ispb="99999999", name="Outbox Holder", document=random_cpf(), city="RECIFE"
    )
    during = conn.transaction()
    await during.start()
    try:
        legacy = [
            await conn.fetchval(
                """INSERT INTO outbox (account_id, event_type, payload, created_at)
                   VALUES ($1, $2, $3::jsonb, now()) RETURNING webhook_type""",
                opened.account.id,
                str(event.get("type", "?"))[:10],
                json.dumps(event),
            )
            for event, _ in LEGACY_ROUTES
        ]
        typed = await conn.fetchval(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
               VALUES ($1, 'TRANSFER', 'refund_out', $2::jsonb, now()) RETURNING webhook_type""",
            opened.account.id,
            json.dumps(LEGACY_ROUTES[1][0]),
        )
    finally:
        await during.rollback()
    assert legacy == [route for _, route in LEGACY_ROUTES]
    assert typed == "refund_out"  # the TRANSFER payload would say cash_out: the written type wins


async def test_the_stored_route_admits_registration_types_only(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    opened = await open_account(
        pg_uow, PlainHasher(), ispb="99999999", name="Outbox Holder", document=random_cpf(), city="RECIFE"
    )
    with pytest.raises(asyncpg.CheckViolationError):
        await conn.execute(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
               VALUES ($1, 'TRANSFER', 'TRANSFER', '{}'::jsonb, now())""",
            opened.account.id,
        )
