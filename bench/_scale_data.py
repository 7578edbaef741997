"""The scale benchmark's data: accounts, keys, transactions with their ledger entries, outbox rows
and webhook deliveries written straight into a migrated database with set-based SQL.

Every statement is ``INSERT ... SELECT`` into a parent table by column names, so it works whether
the history tables are plain or range-partitioned by month. The whole load is one transaction:
the per-row deferred trigger that proves each posting balances (``ledger_entries_balanced``) and
the per-row look-up that an outside entry is not ours (``ledger_entries_outside``) are disabled for
it and enabled again before the commit; :func:`pixinfra.persistence.ledger_check.check_ledger`
proves afterwards what they would have proved row by row. So are the triggers that stand for the
foreign keys to a partitioned history table (``history_rows_exist`` on insert, one anti-join a
statement; ``history_row_exists`` on update); one anti-join per key proves them before the commit.

Mix (as ``bench/queries.py``): 55% PAYMENT, 40% WITHDRAW, 3% REFUND_IN, 2% REFUND_OUT; 93%
CONFIRMED, 5% ERROR, 2% PENDING, evenly in time over the span, each on a random account. Each
account's first transaction is a confirmed PAYMENT, and money in is larger than money out, so no
balance ends below zero. Postings (``pixcore.ledger``): money in, confirmed: ``receive``; money
out: ``reserve``, then ``settle_out`` (confirmed) or ``release`` (error); a pending one stays
reserved.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg

from pixinfra.postgres.partitions import HISTORY, list_partitions, month_after, month_of, partition_name

__all__ = [
    "COUNTERPART_ISPB",
    "HISTORY_TABLES",
    "KeyTrigger",
    "Shape",
    "generate",
    "key_triggers",
    "prove_keys",
]

COUNTERPART_ISPB = "12345678"
HISTORY_TABLES = (
    "transactions",
    "ledger_entries",
    "outbox",
    "webhook_deliveries",
    "webhook_attempts",
    "idempotency_keys",
)
_LOAD_TRIGGERS = ("ledger_entries_balanced", "ledger_entries_outside")
# the triggers standing for foreign keys to partitioned history tables: (table, trigger, its definition)
_KEY_TRIGGERS = """
SELECT c.relname::text AS owner, t.tgname::text AS name, pg_get_triggerdef(t.oid) AS definition
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
 WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND c.relispartition IS FALSE
   AND pg_get_triggerdef(t.oid) ~ 'history_rows?_exists?[(]'
 ORDER BY 1, 2
"""
_KEY_ARGUMENTS = re.compile(r"history_rows?_exists?[(]'(\w+)', '(\w+)'\)")


@dataclass(frozen=True)
class KeyTrigger:
    """A foreign key kept by a trigger: ``owner.column`` names a row of ``table`` by ``id``."""

    owner: str
    name: str
    table: str
    column: str


async def key_triggers(conn: asyncpg.Connection[Any]) -> list[KeyTrigger]:
    found = []
    for row in await conn.fetch(_KEY_TRIGGERS):
        match = _KEY_ARGUMENTS.search(row["definition"])
        if match is None:
            raise SystemExit(f"unexpected key trigger: {row['definition']}")
        found.append(KeyTrigger(row["owner"], row["name"], match[1], match[2]))
    return found


async def prove_keys(conn: asyncpg.Connection[Any], keys: list[KeyTrigger]) -> None:
    """What the disabled key triggers would have refused, found in one anti-join each."""
    for key in keys:
        orphans = await conn.fetchval(
            f"SELECT count(*) FROM {key.owner} o WHERE o.{key.column} IS NOT NULL"  # noqa: S608 - catalog names
            f" AND NOT EXISTS (SELECT FROM {key.table} r WHERE r.id = o.{key.column})"
        )
        if orphans:
            raise SystemExit(f"{orphans} rows of {key.owner}.{key.column} name no row of {key.table}")


@dataclass(frozen=True)
class Shape:
    """What to generate: ``accounts`` accounts (beside the holder that opened the database, whose
    client secret every generated credential shares), ``transactions`` over ``span`` up to ``end``,
    in chunks of ``chunk`` transactions; one transaction in ``outbox_every`` gets an outbox row.
    ``keep_triggers``: leave the ledger's per-row triggers on (to measure what they cost)."""

    accounts: int
    transactions: int
    end: datetime
    span: timedelta
    chunk: int = 500_000
    outbox_every: int = 50
    keep_triggers: bool = False


_ACCOUNTS = """
INSERT INTO accounts (ispb, branch, number, name, document, city, created_at)
SELECT $1, '0001', lpad((900000 + i)::text, 8, '0'), 'Scale Holder ' || i,
       lpad((10000000000 + i)::text, 11, '0'), 'RECIFE', $2
  FROM generate_series(1, $3) AS i
"""

_SCALE_ACCOUNTS = """
CREATE TEMP TABLE scale_accounts ON COMMIT DROP AS
SELECT (row_number() OVER (ORDER BY a.id))::int - 1 AS idx, a.id AS account_id,
       'holder' || a.number || '@scale.example' AS pix_key
  FROM accounts a WHERE a.name LIKE 'Scale Holder %'
"""

_KEYS_AND_CREDENTIALS = """
WITH keys AS (
    INSERT INTO pix_keys (account_id, key_type, key_value, created_at)
    SELECT account_id, 'EMAIL', pix_key, $2 FROM scale_accounts
), creds AS (
    INSERT INTO client_credentials (client_id, account_id, secret_hash, created_at)
    SELECT 'pix_scale' || lpad(idx::text, 15, '0'), account_id, $1, $2 FROM scale_accounts
)
INSERT INTO balances (account_id, available, blocked, updated_at)
SELECT account_id, 0, 0, $2 FROM scale_accounts
"""

# $1 first g, $2 last g, $3 transactions in all, $4 start, $5 span, $6 accounts, $7 our ISPB
_TRANSACTIONS = """
INSERT INTO transactions (account_id, type, status, amount, fee, external_id, end_to_end_id,
                          pix_key, counterpart_name, counterpart_document, counterpart_ispb,
                          counterpart_bank, counterpart_branch, counterpart_account, created_at,
                          updated_at, processed_at)
SELECT s.account_id, d.kind, d.status,
       CASE WHEN d.kind IN ('PAYMENT', 'REFUND_IN') THEN 5000 + d.g % 100000 ELSE 100 + d.g % 1000 END,
       0,
       CASE WHEN d.kind = 'PAYMENT' AND d.g % 3 = 0 THEN 'cashin-' || d.g
            WHEN d.kind = 'WITHDRAW' THEN md5(d.g::text)::uuid::text END,
       'E' || $7 || to_char(d.at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MI') || lpad(d.g::text, 11, '0'),
       CASE WHEN d.kind IN ('PAYMENT', 'REFUND_OUT') THEN s.pix_key
            ELSE 'dest' || d.g % 2000 || '@external.example' END,
       'Counterpart ' || d.g % 977, '11144477735', '12345678', 'OTHER BANK', '0001',
       (d.g % 10000)::text, d.at, d.at,
       CASE WHEN d.status <> 'PENDING' THEN d.at END
  FROM (
    SELECT g, $4::timestamptz + $5::interval * (g::float8 / $3::bigint) AS at,
           CASE WHEN g <= $6::int THEN g - 1 ELSE (hashint8(g) & 2147483647) % $6::int END AS idx,
           CASE WHEN g <= $6::int OR r1 < 0.55 THEN 'PAYMENT' WHEN r1 < 0.95 THEN 'WITHDRAW'
                WHEN r1 < 0.98 THEN 'REFUND_IN' ELSE 'REFUND_OUT' END AS kind,
           CASE WHEN g <= $6::int OR r2 < 0.93 THEN 'CONFIRMED' WHEN r2 < 0.98 THEN 'ERROR'
                ELSE 'PENDING' END AS status
      FROM (SELECT g, random() AS r1, random() AS r2 FROM generate_series($1::bigint, $2::bigint) g) r
  ) d JOIN scale_accounts s ON s.idx = d.idx
 ORDER BY d.g
"""

# the postings of the transactions with id > $1, as pixcore.ledger writes them
_LEDGER = """
INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at, institution)
SELECT t.id, e.posting, CASE WHEN e.outside THEN NULL ELSE t.account_id END, e.bucket,
       e.sign * t.amount, t.created_at, CASE WHEN e.outside THEN t.counterpart_ispb END
  FROM transactions t
  JOIN (VALUES
    (true,  'CONFIRMED', 1, 'receive',    true,  'external',  -1),
    (true,  'CONFIRMED', 2, 'receive',    false, 'available',  1),
    (false, NULL,        1, 'reserve',    false, 'available', -1),
    (false, NULL,        2, 'reserve',    false, 'blocked',    1),
    (false, 'CONFIRMED', 3, 'settle_out', false, 'blocked',   -1),
    (false, 'CONFIRMED', 4, 'settle_out', true,  'external',   1),
    (false, 'ERROR',     3, 'release',    false, 'blocked',   -1),
    (false, 'ERROR',     4, 'release',    false, 'available',  1)
  ) AS e(incoming, status, line, posting, outside, bucket, sign)
    ON e.incoming = (t.type IN ('PAYMENT', 'REFUND_IN')) AND (e.status IS NULL OR e.status = t.status)
 WHERE t.id > $1 AND (t.type NOT IN ('PAYMENT', 'REFUND_IN') OR t.status = 'CONFIRMED')
 ORDER BY t.id, e.line
"""

_OUTBOX = """
INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at, dispatched_at)
SELECT t.account_id, t.type, CASE WHEN t.type = 'PAYMENT' THEN 'cash_in' ELSE 'cash_out' END,
       jsonb_build_object('transactionId', t.id, 'endToEndId', t.end_to_end_id, 'amount', t.amount,
                          'status', t.status),
       t.created_at, t.created_at + interval '1 second'
  FROM transactions t
 WHERE t.id > $1 AND t.status = 'CONFIRMED' AND t.type IN ('PAYMENT', 'WITHDRAW') AND t.id % $2 = 0
 ORDER BY t.id
"""

_WEBHOOKS = """
INSERT INTO webhooks (account_id, event_type, url, created_at, updated_at)
SELECT account_id, kind, 'https://hooks.scale.example/' || idx || '/' || kind, $1, $1
  FROM scale_accounts, (VALUES ('cash_in'), ('cash_out')) AS k(kind)
"""

_DELIVERIES = """
INSERT INTO webhook_deliveries (message_id, outbox_id, webhook_id, account_id, status, attempts,
                                last_attempt_at, last_status_code, created_at, finished_at)
SELECT 'scale-' || o.id, o.id, w.id, o.account_id, 'delivered', 1, o.dispatched_at, 200,
       o.created_at, o.dispatched_at
  FROM outbox o JOIN webhooks w ON w.account_id = o.account_id AND w.event_type = o.webhook_type
                               AND w.is_active AND w.pix_key IS NULL
 WHERE o.id > $1
 ORDER BY o.id
"""

_ATTEMPTS = """
INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms)
SELECT d.id, d.last_attempt_at, 200, 20 + d.id % 200
  FROM webhook_deliveries d WHERE d.id > $1 ORDER BY d.id
"""

_BALANCES = """
UPDATE balances b
   SET available = s.available, blocked = s.blocked, updated_at = $1
  FROM (SELECT account_id,
               coalesce(sum(amount) FILTER (WHERE bucket = 'available'), 0) AS available,
               coalesce(sum(amount) FILTER (WHERE bucket = 'blocked'), 0) AS blocked
          FROM ledger_entries WHERE account_id IN (SELECT account_id FROM scale_accounts)
         GROUP BY account_id) s
 WHERE b.account_id = s.account_id
"""


async def _last_id(conn: asyncpg.Connection[Any], table: str) -> int:
    value: int = await conn.fetchval(f"SELECT coalesce(max(id), 0) FROM {table}")  # noqa: S608 - ours
    return value


async def _chunk(
    conn: asyncpg.Connection[Any], shape: Shape, ispb: str, first: int, last: int, *, spent: dict[str, float]
) -> int:
    """Transactions ``first`` to ``last`` with their postings, outbox rows and deliveries; the
    ledger entries written. ``spent`` gathers the seconds of each step."""
    after_tx = await _last_id(conn, "transactions")
    after_outbox = await _last_id(conn, "outbox")
    after_delivery = await _last_id(conn, "webhook_deliveries")
    start = shape.end - shape.span
    steps: list[tuple[str, str, tuple[Any, ...]]] = [
        (
            "transactions",
            _TRANSACTIONS,
            (first, last, shape.transactions, start, shape.span, shape.accounts, ispb),
        ),
        ("ledger", _LEDGER, (after_tx,)),
        ("outbox", _OUTBOX, (after_tx, shape.outbox_every)),
        ("webhooks", _DELIVERIES, (after_outbox,)),
        ("webhooks", _ATTEMPTS, (after_delivery,)),
    ]
    entries = 0
    for name, sql, args in steps:
        began = time.perf_counter()
        status = await conn.execute(sql, *args)
        spent[name] = spent.get(name, 0.0) + time.perf_counter() - began
        if name == "ledger":
            entries = int(status.split()[-1])
    return entries


async def history_months(conn: asyncpg.Connection[Any], first: datetime) -> bool:
    """A month partition of each history table for every month from ``first``'s, as a service
    running those months would have made them. A new database's months start at its migration's
    month: its partition of the rows from before (``<table>_before_…``, empty) gives way to the
    months. False, changing nothing, when that partition holds rows already."""
    infos = await list_partitions(conn)
    befores = {info.table: info for info in infos if info.start is None and info.end is not None}
    for info in befores.values():
        if await conn.fetchval(f"SELECT EXISTS (SELECT FROM {info.name})"):  # noqa: S608 - our names
            return False
    start = month_of(first)
    for table in HISTORY:
        before = befores[table.name]
        assert before.end is not None
        await conn.execute(f"ALTER TABLE {table.name} DETACH PARTITION {before.name}")
        await conn.execute(f"DROP TABLE {before.name}")
        edge = f"{start.isoformat()} 00:00:00+00"
        await conn.execute(
            f"CREATE TABLE {table.name}_before_y{start.year:04d}m{start.month:02d} PARTITION OF {table.name}"
            f" FOR VALUES FROM (MINVALUE) TO ('{edge}')"
        )
        month = start
        while month < before.end.date():
            after = month_after(month)
            await conn.execute(
                f"CREATE TABLE {partition_name(table.name, month)} PARTITION OF {table.name}"
                f" FOR VALUES FROM ('{month.isoformat()} 00:00:00+00') TO ('{after.isoformat()} 00:00:00+00')"
            )
            month = after
    return True


async def generate(conn: asyncpg.Connection[Any], shape: Shape, *, ispb: str, secret_hash: str) -> None:
    """The whole load, in one transaction on ``conn`` (a migrated database), with progress
    printed per chunk; then ``VACUUM ANALYZE``."""
    began = time.perf_counter()
    async with conn.transaction():
        if await history_months(conn, shape.end - shape.span):
            print("  the history tables partitioned by month over the whole span", flush=True)
        keys = [] if shape.keep_triggers else await key_triggers(conn)
        triggers = [] if shape.keep_triggers else [("ledger_entries", name) for name in _LOAD_TRIGGERS]
        triggers += [(key.owner, key.name) for key in keys]
        for table, trigger in triggers:
            await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        await conn.execute(_ACCOUNTS, ispb, shape.end - shape.span, shape.accounts)
        await conn.execute(_SCALE_ACCOUNTS)
        await conn.execute(_KEYS_AND_CREDENTIALS, secret_hash, shape.end - shape.span)
        await conn.execute(_WEBHOOKS, shape.end - shape.span)
        # statistics for the joins of every chunk (the planner would take these tables for empty)
        await conn.execute("ANALYZE scale_accounts, webhooks")
        print(f"  {shape.accounts:,} accounts, keys, credentials and webhooks", flush=True)
        done, entries, spent = 0, 0, dict[str, float]()
        while done < shape.transactions:
            last = min(done + shape.chunk, shape.transactions)
            entries += await _chunk(conn, shape, ispb, done + 1, last, spent=spent)
            done = last
            elapsed = time.perf_counter() - began
            steps = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in spent.items())
            print(
                f"  {done:,} transactions, {entries:,} ledger entries in {elapsed:.0f} s"
                f" ({done / elapsed:,.0f} transactions/s; {steps})",
                flush=True,
            )
        await conn.execute(_BALANCES, shape.end)
        print(f"  balances in {time.perf_counter() - began:.0f} s; committing", flush=True)
        await prove_keys(conn, keys)
        for table, trigger in triggers:
            await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
    loaded = time.perf_counter() - began
    await conn.execute("VACUUM ANALYZE")
    print(f"  loaded in {loaded:.1f} s; VACUUM ANALYZE {time.perf_counter() - began - loaded:.1f} s")
