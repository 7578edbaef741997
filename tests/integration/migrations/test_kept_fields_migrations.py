"""The migrations that keep the standard's fields, on rows written before them: an account gets the
placeholder address (``2026_11_29t09_00``), and a ``cobv`` paid before ``2026_11_29t09_20`` gets
the parts of its amount computed once, when they add up to what was paid. Each runs again on the
columns taken away (all rolled back), standing for the rows of the previous version."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, time, timedelta

import asyncpg

from pixcore.amount_parts import DueAmount
from pixcore.charges.cob import ChargeKind, ChargeStatus
from pixcore.charges.cobv import PAYER_ZONE, amount_breakdown
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.due_terms import stored_parts
from pixinfra.postgres.piccolo_migrations import pixweb_2026_11_29t09_00_00_000000 as address_migration
from pixinfra.postgres.piccolo_migrations import pixweb_2026_11_29t09_20_00_000000 as parts_migration
from tests.contract.rows import FAR, add_account, e2e, receipt
from tests.contract.test_charges import _due_terms, _new_charge


async def test_an_account_from_before_gets_the_placeholder_address_with_its_own_city(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    async with pg_uow() as tx:
        account = await add_account(tx)  # RECIFE
        await tx.commit()
    before = conn.transaction()
    await before.start()
    try:
        await conn.execute(
            "ALTER TABLE accounts DROP COLUMN street, DROP COLUMN state, DROP COLUMN postal_code"
        )
        await conn.execute(address_migration.SQL)
        row = await conn.fetchrow(
            "SELECT street, city, state, postal_code FROM accounts WHERE id = $1", account.id
        )
    finally:
        await before.rollback()
    assert row is not None
    assert tuple(row) == ("NAO INFORMADO", "RECIFE", "SP", "00000000")


async def test_a_cobv_paid_before_gets_its_parts_when_they_add_up_to_what_was_paid(
    pg_uow: UnitOfWorkFactory, conn: asyncpg.Connection
) -> None:
    terms = _due_terms(FAR)
    late = terms.effective_due_date() + timedelta(days=2)
    paid_at = datetime.combine(late, time(12), tzinfo=PAYER_ZONE)
    parts = amount_breakdown(terms, late)
    assert (parts.fine, parts.interest) != (0, 0)
    async with pg_uow() as tx:
        account = await add_account(tx)
        new = _new_charge(account.id, created_at=FAR, kind=ChargeKind.COBV, due=terms, amount=terms.original)
        matching = await tx.charges.add(new)
        other = await tx.charges.add(
            dataclasses.replace(new, txid=uuid.uuid4().hex, location_id=uuid.uuid4().hex)
        )
        cob = await tx.charges.add(_new_charge(account.id))
        for charge, amount in ((matching, parts.final), (other, parts.final + 1), (cob, cob.amount)):
            transaction_id = await tx.transactions.add(receipt(account.id, amount, at=paid_at))
            await tx.charges.update(
                charge.id,
                status=ChargeStatus.CONCLUIDA,
                revision=0,
                at=paid_at,
                transaction_id=transaction_id,
                paid_end_to_end_id=e2e(),
            )
        await tx.commit()
    ids = [matching.id, other.id, cob.id]

    before = conn.transaction()
    await before.start()
    try:
        await conn.execute("ALTER TABLE charges DROP COLUMN paid_parts")
        await parts_migration.backfill(conn)
        kept = await conn.fetch(
            "SELECT paid_parts::text FROM charges WHERE id = ANY($1::bigint[])"
            " ORDER BY array_position($1::bigint[], id)",
            ids,
        )
    finally:
        await before.rollback()
    found: list[DueAmount | None] = [None if r[0] is None else stored_parts(r[0]) for r in kept]
    # the one paid what its terms give that day; not the one paid another amount, nor a cob
    assert found == [parts, None, None]
