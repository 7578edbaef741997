"""The migration that keeps a ``cobv``'s terms in the domain's own form: a charge and its kept
revisions written in the wire form (``calendario`` and ``valor``, as before it) read the same after
it, and its reverse writes the wire form back."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

import asyncpg

from pixcore.charges.cob import ChargeKind
from pixcore.charges.cobv import (
    DiscountFields,
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    RateFields,
    parse_due_terms,
    payer_day,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.due_terms import terms_text, terms_wire
from pixinfra.postgres.piccolo_migrations import pixweb_2026_11_28t03_30_00_000000 as terms_migration
from tests.contract.rows import FAR, add_account
from tests.contract.test_charges import _due_terms, _new_charge


def _wire_text(terms: DueTerms) -> str:
    """The terms as the column kept them before the migration."""
    calendar, value = terms_wire(terms)
    return json.dumps({"calendario": calendar, "valor": value})


def _other_terms() -> DueTerms:
    """Terms with what :func:`_due_terms` has not: a fixed fine, a rebate, a discount per day."""
    calendar = DueCalendarFields((FAR.date() + timedelta(days=9)).isoformat(), 0)
    value = DueValueFields(
        original="50.00",
        fine=RateFields(1, "3.00"),
        rebate=RateFields(1, "1.05"),
        discount=DiscountFields(3, "0.10"),
    )
    return parse_due_terms(calendar, value, today=payer_day(FAR))


async def test_terms_kept_in_the_wire_form_read_the_same_after_the_migration(
    pg_uow: UnitOfWorkFactory,
    conn: asyncpg.Connection,
) -> None:
    first, second = _due_terms(FAR), _other_terms()
    async with pg_uow() as tx:
        account = await add_account(tx)
        new = _new_charge(account.id, kind=ChargeKind.COBV, due=first, amount=first.original)
        created = await tx.charges.add(new)
        revised = dataclasses.replace(created, due=second, amount=second.original, revision=1, updated_at=FAR)
        await tx.charges.revise(revised)
        await tx.commit()
    rows = (
        ("UPDATE charges SET terms = $1::jsonb WHERE id = $2", _wire_text(second), created.id),
        (
            "UPDATE charge_revisions SET terms = $1::jsonb WHERE charge_id = $2 AND revision = 0",
            _wire_text(first),
            created.id,
        ),
        (
            "UPDATE charge_revisions SET terms = $1::jsonb WHERE charge_id = $2 AND revision = 1",
            _wire_text(second),
            created.id,
        ),
    )
    for statement, *arguments in rows:
        assert await conn.execute(statement, *arguments) == "UPDATE 1"

    written = (
        "SELECT array_agg(terms ORDER BY revision) FROM"
        " (SELECT -1 AS revision, terms FROM charges WHERE id = $1"
        "  UNION ALL SELECT revision, terms FROM charge_revisions WHERE charge_id = $1) AS kept"
    )
    wire = [json.loads(_wire_text(t)) for t in (second, first, second)]
    async with conn.transaction():
        await conn.execute(terms_migration.HELPERS + terms_migration.SQL)
        migrated = [json.loads(t) for t in await conn.fetchval(written, created.id)]
        assert migrated == [
            json.loads(terms_text(t)) for t in (second, first, second)
        ]  # as the adapter writes
        await conn.execute(terms_migration.HELPERS + terms_migration.REVERSE)
        assert [json.loads(t) for t in await conn.fetchval(written, created.id)] == wire
        await conn.execute(terms_migration.HELPERS + terms_migration.SQL)
        await conn.execute(terms_migration.HELPERS + terms_migration.SQL)  # once more: nothing changes
        assert [json.loads(t) for t in await conn.fetchval(written, created.id)] == migrated

    async with pg_uow() as tx:
        assert await tx.charges.get(account.id, new.txid) == revised
        assert await tx.charges.revision(created.id, 0) == created
        assert await tx.charges.revision(created.id, 1) == revised
