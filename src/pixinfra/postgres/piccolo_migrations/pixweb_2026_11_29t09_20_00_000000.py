"""The parts of the amount a ``cobv`` was paid (``charges.paid_parts``: original, rebate,
discount, fine, interest), kept when the payment settles: a received PIX shows them as the
standard's ``componentesValor``, and they must stay what was paid even if the rules of the amount
change later.

A ``cobv`` paid before this migration has them computed once, here, by the rules of the code that
runs it (``pixcore.charges.cobv.amount_breakdown`` on the payer's day of ``paid_at``), and kept
only when they add up to what its PAYMENT record says was paid; one they do not add up to keeps
none, and shows its whole amount as ``original`` (docs/decisions/due-charges.md).
"""

from __future__ import annotations

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixcore.charges.cobv import amount_breakdown, payer_day
from pixcore.errors import DueChargeClosed
from pixinfra.due_terms import parts_text, stored_terms
from pixinfra.postgres.sql_migration import connection_migration

ID = "2026-11-29T09:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges: the parts of the amount a cobv was paid"

SQL = """
ALTER TABLE charges
    ADD COLUMN paid_parts jsonb,
    ADD CHECK (paid_parts IS NULL OR (kind = 'cobv' AND status = 'CONCLUIDA'));
"""
PAID = """
SELECT c.id, c.terms::text AS terms, c.paid_at, t.amount
  FROM charges c JOIN transactions t ON t.id = c.transaction_id
 WHERE c.kind = 'cobv' AND c.status = 'CONCLUIDA' AND c.paid_parts IS NULL
"""
"""The ``cobv`` paid before the column, with what their PAYMENT record says was paid."""


def parts_of(row: Any) -> str | None:
    """The parts of the payment of ``row`` (a row of :data:`PAID`) as the column keeps them, or None
    when the rules of today do not give the amount that was paid."""
    try:
        parts = amount_breakdown(stored_terms(row["terms"]), payer_day(row["paid_at"]))
    except DueChargeClosed:
        return None
    return parts_text(parts) if parts.final == row["amount"] else None


async def backfill(connection: Any) -> None:
    """Add the column, then keep the parts of each ``cobv`` paid before it (:func:`parts_of`)."""
    await connection.execute(SQL)
    for row in await connection.fetch(PAID):
        parts = parts_of(row)
        if parts is not None:
            await connection.execute(
                "UPDATE charges SET paid_parts = $2::jsonb WHERE id = $1", row["id"], parts
            )


async def forwards() -> MigrationManager:
    return connection_migration(ID, DESCRIPTION, backfill)
