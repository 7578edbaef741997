"""The foreign keys to partitioned history tables, checked once a statement on insert.

Each such key was a row trigger (``history_row_exists``): a plpgsql call and an index probe of every
month of ``transactions`` for each row inserted. A transfer group's one statement inserts some
twenty such rows (its ledger entries, transfers and idempotency keys) while it holds the hot
account's balance lock: that was half a millisecond a group, about the 11-14% two API processes
had lost against the schema before partitioning.

Now an insert is checked by an ``AFTER INSERT ... FOR EACH STATEMENT`` trigger on the statement's
new rows (a transition table), in one anti-join: ``history_rows_exist(table, column)``. An update
of the column keeps the row trigger, and fires it only when the value changes. The refusal is the
same: SQLSTATE 23503, "``<table>.<column> = <id> names no row of <table>``" (the table is the one
the statement wrote, the partitioned table rather than its partition).

A statement trigger is not copied to partitions: a row inserted straight into a partition of
``ledger_entries`` or ``idempotency_keys`` (never done by the service) is not checked.
"""

from __future__ import annotations

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import connection_migration

ID = "2026-12-01T06:00:00:000066"
VERSION = "1.38.0"
DESCRIPTION = "history foreign keys checked once a statement on insert"

ROWS_EXIST = """
CREATE FUNCTION history_rows_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    missing bigint;
BEGIN
    CASE TG_ARGV[0] || '.' || TG_ARGV[1]
        WHEN 'transactions.transaction_id' THEN
            SELECT n.transaction_id INTO missing FROM new_rows n
             WHERE n.transaction_id IS NOT NULL
               AND NOT EXISTS (SELECT FROM transactions t WHERE t.id = n.transaction_id OFFSET 0)
             LIMIT 1;
        WHEN 'transactions.original_transaction_id' THEN
            SELECT n.original_transaction_id INTO missing FROM new_rows n
             WHERE n.original_transaction_id IS NOT NULL
               AND NOT EXISTS (SELECT FROM transactions t WHERE t.id = n.original_transaction_id OFFSET 0)
             LIMIT 1;
        WHEN 'outbox.outbox_id' THEN
            SELECT n.outbox_id INTO missing FROM new_rows n
             WHERE n.outbox_id IS NOT NULL
               AND NOT EXISTS (SELECT FROM outbox o WHERE o.id = n.outbox_id OFFSET 0)
             LIMIT 1;
        ELSE  -- another table (none of the service's): planned for each statement
            EXECUTE format(
                'SELECT n.%1$I FROM new_rows n WHERE n.%1$I IS NOT NULL'
                ' AND NOT EXISTS (SELECT FROM %2$I r WHERE r.id = n.%1$I OFFSET 0) LIMIT 1',
                TG_ARGV[1], TG_ARGV[0]) INTO missing;
    END CASE;
    -- OFFSET 0 keeps each NOT EXISTS a look-up by index for each new row: as a join, a plan made
    -- while a month was small would read that whole month for every statement once it has grown.
    IF missing IS NOT NULL THEN
        RAISE foreign_key_violation USING MESSAGE = format(
            '%s.%s = %s names no row of %s', TG_TABLE_NAME, TG_ARGV[1], missing, TG_ARGV[0]);
    END IF;
    RETURN NULL;
END $$;
"""

KEYS = """
SELECT t.tgname::text AS name, t.tgrelid::regclass::text AS owner, t.tgargs
  FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
 WHERE p.proname = 'history_row_exists' AND NOT t.tgisinternal AND t.tgparentid = 0
 ORDER BY 2, 1
"""


async def _by_statement(conn: Any) -> None:
    await conn.execute(ROWS_EXIST)
    for row in await conn.fetch(KEYS):
        table, column = (part.decode() for part in row["tgargs"].split(b"\x00")[:2])
        owner, name = row["owner"], row["name"]
        await conn.execute(f'DROP TRIGGER "{name}" ON {owner}')
        await conn.execute(
            f'CREATE TRIGGER "{name}" BEFORE UPDATE OF {column} ON {owner} FOR EACH ROW'
            f" WHEN (NEW.{column} IS NOT NULL AND NEW.{column} IS DISTINCT FROM OLD.{column})"
            f" EXECUTE FUNCTION history_row_exists('{table}', '{column}')"
        )
        await conn.execute(
            f'CREATE TRIGGER "{owner}_{column}_inserted" AFTER INSERT ON {owner}'
            " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT"
            f" EXECUTE FUNCTION history_rows_exist('{table}', '{column}')"
        )


async def forwards() -> MigrationManager:
    return connection_migration(ID, DESCRIPTION, _by_statement)
