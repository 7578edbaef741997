"""Retention of the history's months: a month wholly older than its table's setting is detached,
then dropped or kept aside, unless something still needs it. Each month is judged and let go in
a transaction of its own; each refusal is reported with its reason.

What a month must no longer hold:
- ``ledger_entries``: nothing; its sums per ledger account go to ``ledger_closings`` in the same
  transaction, and the ledger check adds them;
- ``transactions``: a record the refund window still covers, a PENDING record, a record a refund
  or a MED case points at, or one ledger entries still point at (their months go first);
- ``outbox``: an event with a pending webhook delivery;
- ``webhook_attempts``: nothing.

The idempotency keys' days (:func:`release_key_days`) go once every key of theirs is older than
``PIX_RETENTION_IDEMPOTENCY_KEYS`` hours (at least 25: a key is honoured that long) by the
database's clock, never the service clock, which the sandbox moves forward.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from pixcore.refunds.rules import REFUND_WINDOW
from pixinfra.postgres.partitions import KEYS, list_partitions, month_of

__all__ = ["ACTIONS", "ORDER", "months_before", "release_key_days", "run_retention", "start_of_month"]

ACTIONS = ("drop", "keep")
"""``PIX_RETENTION_ACTION``: drop a detached month, or keep it as ``<partition>_detached``."""

ORDER = ("ledger_entries", "outbox", "webhook_attempts", "transactions")
"""The tables in the order a pass judges them: the ledger before the records its entries point at."""


def start_of_month(moment: datetime) -> datetime:
    """The first instant of ``moment``'s month in UTC."""
    first = month_of(moment)
    return datetime(first.year, first.month, 1, tzinfo=UTC)


def months_before(month: datetime, count: int) -> datetime:
    """The first instant of the month ``count`` months before ``month`` (a first instant)."""
    index = month.year * 12 + month.month - 1 - count
    return month.replace(year=index // 12, month=index % 12 + 1)


_CLOSE = """
INSERT INTO ledger_closings (partition, account_id, bucket, institution, amount, entries)
SELECT $1, account_id, bucket, institution, sum(amount), count(*)
  FROM {partition} GROUP BY account_id, bucket, institution
"""


_NEEDED: dict[str, tuple[tuple[str, str], ...]] = {
    "transactions": (
        ("a record is still PENDING", "SELECT 1 FROM {p} WHERE status = 'PENDING'"),
        (
            "a refund points at a record",
            "SELECT 1 FROM refunds r JOIN {p} t ON t.id IN (r.original_transaction_id, r.transaction_id)",
        ),
        (
            "a MED case points at a record",
            "SELECT 1 FROM med_cases m JOIN {p} t ON t.id = m.original_transaction_id",
        ),
        (
            "ledger entries point at a record",
            "SELECT 1 FROM ledger_entries e JOIN {p} t ON t.id = e.transaction_id",
        ),
    ),
    "outbox": (
        (
            "a webhook delivery of an event is pending",
            "SELECT 1 FROM webhook_deliveries d JOIN {p} o ON o.id = d.outbox_id WHERE d.status = 'pending'",
        ),
    ),
}
"""Per table, what a month must not hold to be let go: the reason, and the rows that show it."""


async def _refusal(conn: Any, table: str, partition: str, ends: datetime, now: datetime) -> str | None:
    """Why ``partition`` of ``table`` must stay (None: it may go)."""
    for reason, rows in _NEEDED.get(table, ()):
        if await conn.fetchval("SELECT EXISTS (" + rows.format(p=partition) + ")"):
            return reason
    if table == "transactions" and ends > now - REFUND_WINDOW:
        return "the refund window still covers its records"
    return None


async def _let_go(conn: Any, table: str, partition: str, action: str) -> None:
    await conn.execute(f"ALTER TABLE {table} DETACH PARTITION {partition}")
    if action == "drop":
        await conn.execute(f"DROP TABLE {partition}")
    else:
        await conn.execute(f"ALTER TABLE {partition} RENAME TO {partition}_detached")


async def release_key_days(
    conn: Any, kept: timedelta, action: str, now: datetime, *, dry_run: bool = False
) -> list[dict[str, Any]]:
    """Every day's partition of ``idempotency_keys`` that ended ``kept`` or more before ``now`` (the
    database's clock), let go by ``action`` unless ``dry_run``; returns them as
    :func:`run_retention` reports what went."""
    if action not in ACTIONS:
        raise ValueError(f"the retention action is one of {ACTIONS}, not {action!r}")
    released: list[dict[str, Any]] = []
    for info in await list_partitions(conn):
        if info.table != KEYS.name or info.end is None or info.end > now - kept:
            continue
        released.append({"table": KEYS.name, "partition": info.name, "ends": info.end.isoformat()})
        if not dry_run:
            async with conn.transaction():
                await _let_go(conn, KEYS.name, info.name, action)
    return released


async def run_retention(
    conn: Any, months: Mapping[str, int], action: str, now: datetime, *, dry_run: bool = False
) -> dict[str, Any]:
    """One pass: every month of a table with a setting (``months``: table → months to keep, the
    current one included) that ended before the kept ones, judged and, unless ``dry_run``, let go
    by ``action``. The report lists what went (or would), and what stayed and why."""
    if action not in ACTIONS:
        raise ValueError(f"the retention action is one of {ACTIONS}, not {action!r}")
    released: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    for table in ORDER:
        if table not in months:
            continue
        cutoff = months_before(start_of_month(now), months[table] - 1)
        listed = await list_partitions(conn)  # oldest first; the DEFAULT one has no end
        for info in (each for each in listed if each.table == table):
            name, ends = info.name, info.end
            if ends is None or ends > cutoff:
                continue
            async with conn.transaction():
                reason = await _refusal(conn, table, name, ends, now)
                if reason is not None:
                    refused.append({"table": table, "partition": name, "reason": reason})
                    continue
                released.append({"table": table, "partition": name, "ends": ends.isoformat()})
                if dry_run:
                    continue
                if table == "ledger_entries":
                    await conn.execute(_CLOSE.format(partition=name), name)
                await _let_go(conn, table, name, action)
    return {
        "dryRun": dry_run,
        "action": action,
        "released": released,
        "refused": refused,
        "at": now.isoformat(),
    }
