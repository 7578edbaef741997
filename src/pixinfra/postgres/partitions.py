"""The partitioned tables' partitions: created ahead of the rows that need them.

``transactions``, ``ledger_entries`` and ``outbox`` (by ``created_at``) and ``webhook_attempts``
(by ``attempted_at``) are PostgreSQL range-partitioned tables, one partition a calendar month in
UTC (``transactions_y2027m01``); ``idempotency_keys`` (by ``stored_at``, the database's clock) one
a day (``idempotency_keys_y2027m01d31``): its rows live 25 hours. Each also has the partition that
holds what came before the conversion (``transactions_before_y2026m12``: everything before that
month) and a DEFAULT partition that catches a row no partition takes yet, so an insert never fails
for want of one.

:func:`ensure_partitions` creates every missing period up to a date. ``pixweb migrate``, ``pixweb
serve`` at start and the settlement loop call it through ``max(database now, service clock)`` plus
:data:`AHEAD` periods: a row's time comes from the service clock, which the sandbox may move
forward. A row that reached the DEFAULT partition (the clock moved past the periods made) moves
into its period's partition when that one is made. Why the tables are split this way:
docs/decisions/partitions.md.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

__all__ = [
    "AHEAD",
    "HISTORY",
    "KEYS",
    "PARTITIONED",
    "HistoryTable",
    "PartitionInfo",
    "ensure_partitions",
    "list_partitions",
    "month_after",
    "month_of",
    "partition_name",
    "period_after",
    "period_of",
]

log = logging.getLogger(__name__)

AHEAD = 2
"""Periods (months, or days for :data:`KEYS`) made ahead of the latest clock."""


@dataclass(frozen=True, slots=True)
class HistoryTable:
    name: str
    column: str
    """The row's time: its partition key."""
    period: Literal["month", "day"] = "month"
    """What one partition holds."""
    by_database_clock: bool = False
    """The rows' time is the database's ``now()``, not the service clock: their partitions are made
    ahead of the database's clock only."""


HISTORY = (
    HistoryTable("transactions", "created_at"),
    HistoryTable("ledger_entries", "created_at"),
    HistoryTable("outbox", "created_at"),
    HistoryTable("webhook_attempts", "attempted_at"),
)
"""The history: a partition a month."""

KEYS = HistoryTable("idempotency_keys", "stored_at", "day", by_database_clock=True)
"""The transfers' idempotency keys: a partition a day, by the database's clock."""

PARTITIONED = (*HISTORY, KEYS)


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    table: str
    name: str
    start: datetime | None
    """None: from the beginning (the partition from before the conversion), or the DEFAULT one."""
    end: datetime | None
    """None: the DEFAULT partition."""
    rows: int
    """The planner's estimate (``pg_class.reltuples``; -1 before the first ANALYZE)."""
    bytes: int
    """The partition's table and indexes."""


def month_of(moment: datetime) -> date:
    """The first day of ``moment``'s month in UTC."""
    utc = moment.astimezone(UTC)
    return date(utc.year, utc.month, 1)


def month_after(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def period_of(table: HistoryTable, moment: datetime) -> date:
    """The first day of the period of ``table`` that holds ``moment``."""
    if table.period == "day":
        return moment.astimezone(UTC).date()
    return month_of(moment)


def period_after(table: HistoryTable, first: date) -> date:
    return first + timedelta(days=1) if table.period == "day" else month_after(first)


def partition_name(table: str, first: date, period: Literal["month", "day"] = "month") -> str:
    """``<table>_yYYYYmMM`` for a month, ``<table>_yYYYYmMMdDD`` for a day."""
    name = f"{table}_y{first.year:04d}m{first.month:02d}"
    return f"{name}d{first.day:02d}" if period == "day" else name


def _bound(month: date) -> str:
    return f"{month.isoformat()} 00:00:00+00"


_BOUND = re.compile(r"'(\d{4}-\d{2}-\d{2}) 00:00:00\+00'")

_PARTITIONS = """
SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, c.reltuples::bigint AS rows,
       pg_total_relation_size(c.oid) AS bytes
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = to_regclass($1)
 ORDER BY c.relname
"""


def _dates(bound: str) -> tuple[date | None, date | None]:
    """``FOR VALUES FROM (...) TO (...)`` as its two months (None: MINVALUE, or DEFAULT)."""
    if bound == "DEFAULT":
        return None, None
    found = [date.fromisoformat(text) for text in _BOUND.findall(bound)]
    if "MINVALUE" in bound:
        return None, found[0]
    return found[0], found[1]


def _moment(day: date | None) -> datetime | None:
    return None if day is None else datetime(day.year, day.month, day.day, tzinfo=UTC)


async def list_partitions(conn: Any) -> list[PartitionInfo]:
    """Every partition of the partitioned tables, oldest first within each table."""
    found: list[PartitionInfo] = []
    for table in PARTITIONED:
        rows = await conn.fetch(_PARTITIONS, table.name)
        infos = []
        for row in rows:
            start, end = _dates(row["bound"])
            infos.append(
                PartitionInfo(
                    table.name, row["name"], _moment(start), _moment(end), row["rows"], row["bytes"]
                )
            )
        infos.sort(key=lambda info: (info.end is None, info.end or datetime.max.replace(tzinfo=UTC)))
        found.extend(infos)
    return found


async def ensure_partitions(conn: Any, through: datetime) -> list[str]:
    """Create every partition of the partitioned tables missing up to ``through``'s period plus
    :data:`AHEAD` (the database's now for a table on its clock: :data:`KEYS`), in one transaction;
    returns the names created. A period's rows that the DEFAULT partition caught meanwhile move
    into it."""
    made: list[str] = []
    async with conn.transaction():
        database_now: datetime = await conn.fetchval("SELECT now()")
        for table in PARTITIONED:
            last = period_of(table, database_now if table.by_database_clock else through)
            for _ in range(AHEAD):
                last = period_after(table, last)
            rows = await conn.fetch(_PARTITIONS, table.name)
            if not rows:
                continue  # not partitioned (a database before the conversion)
            ends = [end for start, end in (_dates(row["bound"]) for row in rows) if end is not None]
            period = max(ends)
            if table.by_database_clock:
                # Keys are stored at the database's now: a day gone by gets none, so none is made
                # for it (after a long stop, the days since would be made empty, only to be dropped).
                period = max(period, period_of(table, database_now))
            while period <= last:
                made.append(await _make_period(conn, table, period))
                period = period_after(table, period)
    return made


async def _make_period(conn: Any, table: HistoryTable, period: date) -> str:
    name, default = partition_name(table.name, period, table.period), f"{table.name}_default"
    start, end = _bound(period), _bound(period_after(table, period))
    first, after = _moment(period), _moment(period_after(table, period))
    caught = await conn.fetchval(
        f"SELECT EXISTS (SELECT FROM {default} WHERE {table.column} >= $1::timestamptz"  # noqa: S608 - our names
        f" AND {table.column} < $2::timestamptz)",
        first,
        after,
    )
    if not caught:
        await conn.execute(
            f"CREATE TABLE {name} PARTITION OF {table.name} FOR VALUES FROM ('{start}') TO ('{end}')"
        )
        return name
    # The DEFAULT partition holds rows of this period: they move into the period's own table, made
    # apart and attached once filled (a partition cannot be created over rows the DEFAULT holds).
    # The move is no change of the rows: the tables' own triggers (the ledger is append-only)
    # stay out of it.
    await conn.execute(f"CREATE TABLE {name} (LIKE {table.name} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
    await conn.execute(f"ALTER TABLE {default} DISABLE TRIGGER USER")
    await conn.execute(f"ALTER TABLE {name} DISABLE TRIGGER USER")
    moved = await conn.execute(
        f"WITH moved AS (DELETE FROM {default} WHERE {table.column} >= $1::timestamptz"  # noqa: S608
        f" AND {table.column} < $2::timestamptz RETURNING *) INSERT INTO {name} SELECT * FROM moved",
        first,
        after,
    )
    await conn.execute(f"ALTER TABLE {default} ENABLE TRIGGER USER")
    await conn.execute(
        f"ALTER TABLE {table.name} ATTACH PARTITION {name} FOR VALUES FROM ('{start}') TO ('{end}')"
    )
    await conn.execute(f"ALTER TABLE {name} ENABLE TRIGGER USER")
    log.warning("%s rows of %s moved from %s into %s", moved.split()[-1], table.name, default, name)
    return name
