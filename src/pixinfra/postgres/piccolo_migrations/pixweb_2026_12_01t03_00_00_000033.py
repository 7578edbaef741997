"""``idempotency_keys`` becomes a range-partitioned table, a partition a day by ``stored_at`` (the
database's clock), in place (docs/decisions/partitions.md).

The table is renamed and attached, rows untouched, as the first partition of a new partitioned
table of the same name, columns, defaults, checks, foreign keys and triggers: it holds every key
stored before the day after the later of now and its newest key
(``idempotency_keys_before_y2026m12d02``). A CHECK of that range, added first, spares ``ATTACH``
its scan. Then a DEFAULT partition and the days up to two ahead (``pixinfra.postgres.partitions``).

The primary key becomes ``(key, account_id, stored_at)``: PostgreSQL requires the partition column
in a unique key, so it no longer makes a key unique per account by itself. The key comes first: a
look-up of some keys of an account then can only probe them (with the account first, a generic
plan may read every key of the account's window and filter them: a hot account's whole day). The
writers take a transaction-scoped advisory lock per (account, key) before they look for the key and claim it
(``pixinfra.persistence.idempotency``). The indexes on ``created_at`` and ``stored_at`` served the
purge by ``DELETE``, which dropping a day's partition replaces; they go.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.partitions import ensure_partitions
from pixinfra.postgres.sql_migration import connection_migration

ID = "2026-12-01T03:00:00:000033"
VERSION = "1.38.0"
DESCRIPTION = "idempotency_keys: daily range partitions by stored_at"

TABLE = "idempotency_keys"


def _day_after(moment: datetime) -> date:
    return moment.astimezone(UTC).date() + timedelta(days=1)


async def _run(conn: Any) -> None:
    triggers = await conn.fetch(
        "SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = $1::regclass"
        " AND NOT tgisinternal ORDER BY tgname",
        TABLE,
    )
    keys = await conn.fetch(
        "SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint"
        " WHERE conrelid = $1::regclass AND contype = 'f'",
        TABLE,
    )
    newest = await conn.fetchval(f"SELECT max(stored_at) FROM {TABLE}")  # noqa: S608 - our names
    now = await conn.fetchval("SELECT now()")
    bound = _day_after(max(now, newest or now))
    old = f"{TABLE}_before_y{bound.year:04d}m{bound.month:02d}d{bound.day:02d}"
    edge = f"{bound.isoformat()} 00:00:00+00"

    for trigger in triggers:
        await conn.execute(f'DROP TRIGGER "{trigger["tgname"]}" ON {TABLE}')
    await conn.execute(f'ALTER TABLE {TABLE} DROP CONSTRAINT "{TABLE}_pkey"')
    await conn.execute(f"DROP INDEX {TABLE}_created_idx, {TABLE}_stored_idx")
    await conn.execute(f"ALTER TABLE {TABLE} RENAME TO {old}")

    await conn.execute(
        f"CREATE TABLE {TABLE} (LIKE {old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)"
        " PARTITION BY RANGE (stored_at)"
    )
    await conn.execute(
        f'ALTER TABLE {TABLE} ADD CONSTRAINT "{TABLE}_pkey" PRIMARY KEY (key, account_id, stored_at)'
    )
    for key in keys:
        await conn.execute(f'ALTER TABLE {TABLE} ADD CONSTRAINT "{key["conname"]}" {key["def"]}')

    await conn.execute(f"ALTER TABLE {old} ADD CONSTRAINT {old}_range CHECK (stored_at < '{edge}')")
    await conn.execute(f"ALTER TABLE {TABLE} ATTACH PARTITION {old} FOR VALUES FROM (MINVALUE) TO ('{edge}')")
    await conn.execute(f"ALTER TABLE {old} DROP CONSTRAINT {old}_range")
    for trigger in triggers:
        await conn.execute(trigger["def"])
    await conn.execute(f"CREATE TABLE {TABLE}_default PARTITION OF {TABLE} DEFAULT")
    await ensure_partitions(conn, now)


async def forwards() -> MigrationManager:
    return connection_migration(ID, DESCRIPTION, _run)
