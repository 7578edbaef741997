"""The migration that began keeping revisions (``charge_revisions``): what it could tell of the
charges written before it. Its own SQL is run again on charges whose kept revisions are taken
away (all rolled back), standing for rows of the previous version."""

from __future__ import annotations

import uuid
from datetime import timedelta

import asyncpg

from pixcore.charges.cob import ChargeKind, ChargeStatus, NewCharge
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.piccolo_migrations import pixweb_2026_11_24t13_00_00_000000 as revisions_migration
from tests.contract.rows import FAR, add_account, e2e, receipt


def _new(account_id: int) -> NewCharge:
    location_id = uuid.uuid4().hex
    return NewCharge(
        account_id=account_id,
        txid=uuid.uuid4().hex,
        kind=ChargeKind.COB,
        created_at=FAR,
        expiration=3600,
        amount=1_000,
        modality=0,
        pix_key="shop@example.com",
        location_id=location_id,
        location=f"pix.example.com/qr/v2/{location_id}",
        br_code="000201010212",
    )


async def test_the_migration_keeps_each_charges_current_revision_as_well_as_it_can(
    pg_uow: UnitOfWorkFactory,
    conn: asyncpg.Connection,
) -> None:
    paid_at, revised_at, lapsed_at = (FAR + timedelta(minutes=m) for m in (1, 2, 3))
    async with pg_uow() as tx:
        account = await add_account(tx)
        paid = await tx.charges.add(_new(account.id))  # paid at its revision 0
        lapsed = await tx.charges.add(_new(account.id))  # revised once, then expired
        cancelled = await tx.charges.add(_new(account.id))  # cancelled: its revision 1
        transaction_id = await tx.transactions.add(receipt(account.id))
        await tx.charges.update(
            paid.id,
            status=ChargeStatus.CONCLUIDA,
            revision=0,
            at=paid_at,
            transaction_id=transaction_id,
            paid_end_to_end_id=e2e(),
        )
        await tx.charges.update(lapsed.id, status=ChargeStatus.ATIVA, revision=1, at=revised_at)
        await tx.charges.update(lapsed.id, status=ChargeStatus.REMOVIDA_PELO_PSP, revision=1, at=lapsed_at)
        status = ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR
        await tx.charges.update(cancelled.id, status=status, revision=1, at=revised_at)
        await tx.commit()
    ids = [paid.id, lapsed.id, cancelled.id]

    before = conn.transaction()
    await before.start()
    try:
        await conn.execute("DELETE FROM charge_revisions WHERE charge_id = ANY($1::bigint[])", ids)
        await conn.execute(revisions_migration.BACKFILL)
        await conn.execute(revisions_migration.BACKFILL)  # once more: nothing changes
        rows = await conn.fetch(
            "SELECT charge_id, revision, status, written_at, amount FROM charge_revisions"
            " WHERE charge_id = ANY($1::bigint[]) ORDER BY charge_id, revision",
            ids,
        )
    finally:
        await before.rollback()
    assert [tuple(row) for row in rows] == [
        (paid.id, 0, "ATIVA", FAR, 1_000),  # revision 0: its creation, whatever came after
        (lapsed.id, 1, "ATIVA", lapsed_at, 1_000),  # its revision 0 is lost; its moment is the last change's
        (cancelled.id, 1, "REMOVIDA_PELO_USUARIO_RECEBEDOR", revised_at, 1_000),
    ]
