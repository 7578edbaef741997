"""The read side of the transaction records (the adapter of ``pixcore.queries.rules.TransactionQueries``).

A list is one statement: the count of the matches and the page, from one
snapshot. The page is found in the index first (ids only, so a deep offset is
skipped inside the index) and only its rows are read from the table::

    SELECT c.total, t.* FROM (SELECT count(*) ...) c
      LEFT JOIN (SELECT ... FROM transactions t
                  WHERE t.id = ANY (ARRAY(SELECT id ... ORDER BY created_at DESC, id DESC
                                          LIMIT $n OFFSET $m))) t ON true

(an array of ids rather than a join, so that the rows are always fetched by
primary key, however many the page holds)

The SQL text depends only on which filters are present, never on their values
(those are parameters), so every shape is prepared once per connection.
:func:`list_statement` and :func:`find_statement` give the exact statements,
for the benchmark and the query-plan tests.

Reads run on a pooled connection, outside any transaction: each is a single
statement, which PostgreSQL runs on one snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import asyncpg

from pixcore.queries.rules import (
    DayFlow,
    Identifier,
    ListQuery,
    TransactionPage,
    TransactionView,
    credit_types,
)
from pixcore.records import TransactionStatus, TransactionType
from pixinfra.persistence.sql import compose
from pixinfra.postgres.pool import Database

__all__ = ["PostgresTransactionQueries", "daily_flows_statement", "find_statement", "list_statement"]

COLUMNS = (
    "id",
    "account_id",
    "type",
    "status",
    "amount",
    "fee",
    "created_at",
    "updated_at",
    "processed_at",
    "external_id",
    "end_to_end_id",
    "pix_key",
    "counterpart_name",
    "counterpart_document",
    "counterpart_ispb",
    "counterpart_bank",
    "counterpart_branch",
    "counterpart_account",
)
_SELECTED = ", ".join(f"t.{column}" for column in COLUMNS)
_PLAIN = ", ".join(COLUMNS)
_RANKED = {
    rank: compose("SELECT ", str(rank), " AS rank, ", _PLAIN, " FROM transactions") for rank in (1, 2, 3)
}
"""The start of a look-up's branch of each rank."""


def list_statement(account_id: int, query: ListQuery, *, cap: int | None = None) -> tuple[str, list[Any]]:
    """The SQL and arguments of one page of a list, with its (capped) total in every row.

    With no match on the page, one row comes back with the total and NULLs.
    """
    f = query.filter
    args: list[Any] = [account_id, f.start, f.end]
    where = ["account_id = $1", "created_at >= $2", "created_at <= $3"]
    for column, value in (
        ("pix_key", f.pix_key),
        ("status", f.status.value if f.status else None),
        ("type", f.type.value if f.type else None),
        ("external_id", f.external_id),
        ("end_to_end_id", f.end_to_end_id),
        ("amount", f.amount),
    ):
        if value is not None:
            args.append(value)
            where.append(f"{column} = ${len(args)}")
    matches = " AND ".join(where)
    if cap is None:
        count = compose("SELECT count(*) AS total FROM transactions WHERE ", matches)
        limit, offset = query.size, query.offset
    else:
        args.append(cap)
        at_cap = f"${len(args)}"
        capped = compose("SELECT 1 FROM transactions WHERE ", matches, " LIMIT ", at_cap)
        count = compose("SELECT count(*) AS total FROM (", capped, ") m")
        offset = min(query.offset, cap)
        limit = min(query.size, cap - offset)
    args += [limit, offset]
    at_limit, at_offset = f"${len(args) - 1}", f"${len(args)}"
    newest_first = compose(
        "SELECT id FROM transactions WHERE ",
        matches,
        " ORDER BY created_at DESC, id DESC LIMIT ",
        at_limit,
        " OFFSET ",
        at_offset,
    )
    if cap is None:
        # A page past the middle is found from the other end: the same rows, with the shorter
        # skip (the last page of 85,000 matches skips 0 rows instead of 84,980).
        oldest_first = compose(
            "SELECT id FROM transactions WHERE ",
            matches,
            " ORDER BY created_at, id LIMIT greatest(least(",
            at_limit,
            ", c.total - ",
            at_offset,
            "), 0) OFFSET greatest(c.total - ",
            at_offset,
            " - ",
            at_limit,
            ", 0)",
        )
        ids = compose(
            "CASE WHEN 2 * ",
            at_offset,
            " + ",
            at_limit,
            " <= c.total THEN ARRAY(",
            newest_first,
            ") ELSE ARRAY(",
            oldest_first,
            ") END",
        )
    else:  # the capped count is no position from the oldest end
        ids = compose("ARRAY(", newest_first, ")")
    sql = compose(
        """
SELECT c.total, """,
        _SELECTED,
        """
  FROM (""",
        count,
        """) c
  LEFT JOIN LATERAL (
        SELECT """,
        _SELECTED,
        """
          FROM transactions t
         WHERE t.id = ANY (""",
        ids,
        # The range again: the ids are of rows in it, and it spares the other months' partitions.
        """) AND t.created_at >= $2 AND t.created_at <= $3
       ) t ON true
 ORDER BY t.created_at DESC, t.id DESC
""",
    )
    return sql, args


def find_statement(
    account_id: int, identifier: Identifier, *, pix_key: str | None = None
) -> tuple[str, list[Any]]:
    """The SQL and arguments of a look-up: one branch per reading of the identifier, ranked."""
    args: list[Any] = [account_id]
    scope = "account_id = $1"
    if pix_key is not None:
        args.append(pix_key)
        scope += f" AND pix_key = ${len(args)}"
    branches = []
    for rank, (column, value) in enumerate(
        (
            ("end_to_end_id", identifier.end_to_end_id),
            ("id", identifier.id),
            ("external_id", identifier.external_id),
        ),
        start=1,
    ):
        if value is not None:
            args.append(value)
            branches.append(compose(_RANKED[rank], " WHERE ", column, " = ", f"${len(args)}", " AND ", scope))
    if not branches:
        raise ValueError("an identifier that nothing can match needs no query")
    union = " UNION ALL ".join(branches)
    sql = compose("SELECT ", _PLAIN, " FROM (", union, ") m ORDER BY rank, created_at DESC, id DESC LIMIT 1")
    return sql, args


_CREDIT_VALUES = tuple(kind.value for kind in credit_types())
if not all(value.isidentifier() for value in _CREDIT_VALUES):  # the enum's own names, quoted as SQL text
    raise RuntimeError(f"a credit type that is not a plain name: {_CREDIT_VALUES}")
_CREDITS = ", ".join(f"'{value}'" for value in _CREDIT_VALUES)

DAILY_FLOWS = compose(
    """
SELECT d.day::date AS day, f.incoming, f.outgoing
  FROM generate_series($2::date::timestamp, $3::date::timestamp, interval '1 day') AS d(day)
 CROSS JOIN LATERAL (
        SELECT count(*) AS settled,
               coalesce(sum(amount - fee) FILTER (WHERE type IN (""",
    _CREDITS,
    """)), 0)::bigint AS incoming,
               coalesce(sum(amount + fee) FILTER (WHERE type NOT IN (""",
    _CREDITS,
    """)), 0)::bigint AS outgoing
          FROM transactions
         WHERE account_id = $1 AND status = 'CONFIRMED'
           AND created_at >= d.day AT TIME ZONE 'UTC'
           AND created_at < (d.day + interval '1 day') AT TIME ZONE 'UTC'
           -- The whole window again, in constants: only its months' partitions are read.
           AND created_at >= $2::date::timestamp AT TIME ZONE 'UTC'
           AND created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
       ) f
 WHERE f.settled > 0
 ORDER BY d.day
""",
)
"""Money in and out per UTC day: for each day, one range of ``transactions_account_flows_idx`` (a
partial index of the settled records carrying type, amount and fee), summed where it lies, no row of
the table read. (A single ``GROUP BY`` of the whole window sorts every record by day first: twice
the time at 10,000 records.) ``d.day`` is a timestamp without zone, its midnight read as UTC."""


def daily_flows_statement(account_id: int, first: date, last: date) -> tuple[str, list[Any]]:
    """The SQL and arguments of :meth:`PostgresTransactionQueries.daily_flows`: ``first`` to
    ``last``, whole UTC days, both included."""
    return DAILY_FLOWS, [account_id, first, last]


_TYPES = {kind.value: kind for kind in TransactionType}
_STATUSES = {status.value: status for status in TransactionStatus}


def _view(row: asyncpg.Record, skip: int = 0) -> TransactionView:
    """A record from a row whose columns, from ``skip`` on, are :data:`COLUMNS` in order (by
    position: a large page makes thousands of these)."""
    r = tuple(row)[skip:]
    return TransactionView(r[0], r[1], _TYPES[r[2]], _STATUSES[r[3]], *r[4:])


class PostgresTransactionQueries:
    """Reads on ``database``'s pool, outside any transaction."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def list(self, account_id: int, query: ListQuery, *, cap: int | None = None) -> TransactionPage:
        sql, args = list_statement(account_id, query, cap=cap)
        async with self._database.acquire() as conn:
            rows = await conn.fetch(sql, *args)
        total = rows[0]["total"] if rows else 0
        items = [_view(row, skip=1) for row in rows if row["id"] is not None]
        return TransactionPage(items=items, page=query.page, size=query.size, total=total)

    async def find(
        self, account_id: int, identifier: Identifier, *, pix_key: str | None = None
    ) -> TransactionView | None:
        if identifier.impossible:
            return None
        sql, args = find_statement(account_id, identifier, pix_key=pix_key)
        async with self._database.acquire() as conn:
            row = await conn.fetchrow(sql, *args)
        return _view(row) if row else None

    async def daily_flows(self, account_id: int, first: date, last: date) -> Sequence[DayFlow]:
        sql, args = daily_flows_statement(account_id, first, last)
        async with self._database.acquire() as conn:
            rows = await conn.fetch(sql, *args)
        return [DayFlow(row["day"], row["incoming"], row["outgoing"]) for row in rows]
