"""The history tables' monthly partitions: created ahead of the rows that need them.

``transactions``, ``ledger_entries`` and ``outbox`` (by ``created_at``) and ``webhook_attempts``
(by ``attempted_at``) are PostgreSQL range-partitioned tables, one partition a calendar month in
UTC (``transactions_y2027m01``), plus the partition that holds what came before the conversion
(``transactions_before_y2026m12``: everything before that month) and a DEFAULT partition that
catches a row no month partition takes yet, so an insert never fails for want of one.

:func:`ensure_partitions` creates every missing month up to a date. ``pixweb migrate``, ``pixweb
serve`` at start and the settlement loop call it through ``max(database now, service clock)`` plus
:data:`AHEAD` months: a row's time comes from the service clock, which the sandbox may move
forward. A row that reached the DEFAULT partition (the clock moved past the months made) moves
into its month's partition when that month is made. Why the tables are split this way:
docs/decisions/partitions.md.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

__all__ = [
    "AHEAD",
    "HISTORY",
    "HistoryTable",
    "PartitionInfo",
    "ensure_partitions",
    "list_partitions",
    "month_after",
    "month_of",
    "partition_name",
]

log = logging.getLogger(__name__)

AHEAD = 2
"""Months made ahead of the latest clock."""


@dataclass(frozen=True, slots=True)
class HistoryTable:
    name: str
    column: str
    """The row's time: its partition key."""


HISTORY = (
    HistoryTable("transactions", "created_at"),
    HistoryTable("ledger_entries", "created_at"),
    HistoryTable("outbox", "created_at"),
    HistoryTable("webhook_attempts", "attempted_at"),
)


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


def partition_name(table: str, month: date) -> str:
    return f"{table}_y{month.year:04d}m{month.month:02d}"


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
    """Every partition of the history tables, oldest first within each table."""
    found: list[PartitionInfo] = []
    for table in HISTORY:
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
    """Create every month partition of the history tables missing up to ``through``'s month plus
    :data:`AHEAD` (in one transaction); returns the names created. A month's rows that the DEFAULT
    partition caught meanwhile move into it."""
    last = month_of(through)
    for _ in range(AHEAD):
        last = month_after(last)
    made: list[str] = []
    async with conn.transaction():
        for table in HISTORY:
            rows = await conn.fetch(_PARTITIONS, table.name)
            if not rows:
                continue  # not partitioned (a database before the conversion)
            ends = [end for start, end in (_dates(row["bound"]) for row in rows) if end is not None]
            month = max(ends)
            while month <= last:
                made.append(await _make_month(conn, table, month))
                month = month_after(month)
    return made


async def _make_month(conn: Any, table: HistoryTable, month: date) -> str:
    name, default = partition_name(table.name, month), f"{table.name}_default"
    start, end = _bound(month), _bound(month_after(month))
    first, after = _moment(month), _moment(month_after(month))
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
    # The DEFAULT partition holds rows of this month: they move into the month's own table, made
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
