"""The history tables become range partitions by month, in place: ``transactions``,
``ledger_entries`` and ``outbox`` by ``created_at``, ``webhook_attempts`` by ``attempted_at``
(docs/decisions/partitions.md).

Each table is renamed and attached, rows untouched, as the first partition of a new partitioned
table of the same name, columns, defaults, checks, indexes, triggers and identity: it holds every
row before the month after the later of now and its newest row (``transactions_before_y2027m01``).
A CHECK of that range, added first, spares ``ATTACH`` its scan; building the new primary keys
(``id`` with the partition column: PostgreSQL requires it) reads each table once. Then a DEFAULT
partition, and the months up to two ahead (``pixinfra.postgres.partitions``).

The foreign keys that pointed at ``transactions`` and ``outbox`` are dropped: a key referencing a
partitioned table must contain its partition column, which the eight referring tables do not
hold, and retention must be able to drop a month that older rows once pointed at. Each becomes a
trigger that refuses, as the key did, a row naming one that does not exist.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.partitions import ensure_partitions
from pixinfra.postgres.sql_migration import connection_migration

ID = "2026-12-01T01:00:00:000022"
VERSION = "1.38.0"
DESCRIPTION = "transactions, ledger_entries, outbox, webhook_attempts: monthly range partitions"

TABLES = (
    ("transactions", "created_at"),
    ("ledger_entries", "created_at"),
    ("outbox", "created_at"),
    ("webhook_attempts", "attempted_at"),
)


def _month_after(moment: datetime) -> date:
    utc = moment.astimezone(UTC)
    return date(utc.year + utc.month // 12, utc.month % 12 + 1, 1)


ROW_EXISTS = """
CREATE FUNCTION history_row_exists() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    referred bigint := (to_jsonb(NEW) ->> TG_ARGV[1])::bigint;
    found boolean;
BEGIN
    EXECUTE format('SELECT EXISTS (SELECT FROM %I WHERE id = $1)', TG_ARGV[0]) INTO found USING referred;
    IF NOT found THEN
        RAISE foreign_key_violation USING MESSAGE = format(
            '%s.%s = %s names no row of %s', TG_TABLE_NAME, TG_ARGV[1], referred, TG_ARGV[0]);
    END IF;
    RETURN NEW;
END $$;
"""
"""A foreign key to a partitioned history table, as a trigger: a row naming a row of ``TG_ARGV[0]``
(by ``id``) in its column ``TG_ARGV[1]`` that does not exist is refused as the key refused it
(SQLSTATE 23503)."""


async def _convert(conn: Any, table: str, column: str) -> None:
    for row in await conn.fetch(
        "SELECT c.conrelid::regclass::text AS owner, c.conname, a.attname AS referring"
        "  FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]"
        " WHERE c.contype = 'f' AND c.confrelid = $1::regclass",
        table,
    ):
        owner, referring = row["owner"], row["referring"]
        await conn.execute(f'ALTER TABLE {owner} DROP CONSTRAINT "{row["conname"]}"')
        await conn.execute(
            f"CREATE TRIGGER {owner}_{referring}_exists BEFORE INSERT OR UPDATE OF {referring} ON {owner}"
            f" FOR EACH ROW WHEN (NEW.{referring} IS NOT NULL)"
            f" EXECUTE FUNCTION history_row_exists('{table}', '{referring}')"
        )
    triggers = await conn.fetch(
        "SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = $1::regclass"
        " AND NOT tgisinternal ORDER BY tgname",
        table,
    )
    indexes = await conn.fetch(
        "SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i"
        " JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1::regclass AND NOT i.indisprimary",
        table,
    )
    keys = await conn.fetch(
        "SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint"
        " WHERE conrelid = $1::regclass AND contype = 'f'",
        table,
    )
    next_id = await conn.fetchval(
        f"SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('{table}', 'id')), 0) + 1"
    )
    newest = await conn.fetchval(f"SELECT max({column}) FROM {table}")  # noqa: S608 - our names
    now = await conn.fetchval("SELECT now()")
    bound = _month_after(max(now, newest or now))
    old = f"{table}_before_y{bound.year:04d}m{bound.month:02d}"
    edge = f"{bound.isoformat()} 00:00:00+00"

    for trigger in triggers:
        await conn.execute(f'DROP TRIGGER "{trigger["tgname"]}" ON {table}')
    await conn.execute(f"ALTER TABLE {table} ALTER COLUMN id DROP IDENTITY")
    await conn.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{table}_pkey"')
    await conn.execute(f"ALTER TABLE {table} RENAME TO {old}")
    for index in indexes:
        await conn.execute(f'ALTER INDEX "{index["name"]}" RENAME TO "{index["name"]}_before"')

    await conn.execute(
        f"CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)"
        f" PARTITION BY RANGE ({column})"
    )
    await conn.execute(
        f"ALTER TABLE {table} ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (START WITH {next_id})"
    )
    await conn.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{table}_pkey" PRIMARY KEY (id, {column})')
    for key in keys:
        await conn.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{key["conname"]}" {key["def"]}')
    for index in indexes:
        await conn.execute(index["def"])  # the same name and definition, on the new table

    await conn.execute(
        f"ALTER TABLE {old} ADD CONSTRAINT {old}_range CHECK ({column} IS NOT NULL AND {column} < '{edge}')"
    )
    await conn.execute(f"ALTER TABLE {old} ALTER COLUMN {column} SET NOT NULL")
    await conn.execute(f"ALTER TABLE {table} ATTACH PARTITION {old} FOR VALUES FROM (MINVALUE) TO ('{edge}')")
    await conn.execute(f"ALTER TABLE {old} DROP CONSTRAINT {old}_range")
    for trigger in triggers:
        await conn.execute(trigger["def"])
    await conn.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")


async def _run(conn: Any) -> None:
    await conn.execute(ROW_EXISTS)
    for table, column in TABLES:
        await _convert(conn, table, column)
    # The months ahead: the same function the service calls (it only adds tables).
    await ensure_partitions(conn, await conn.fetchval("SELECT now()"))


async def forwards() -> MigrationManager:
    return connection_migration(ID, DESCRIPTION, _run)
