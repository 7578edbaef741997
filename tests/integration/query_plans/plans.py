"""What the query-plan tests share: the scans of a statement's plan, under either plan cache mode, and
the check that a list's count and page statements read index ranges only."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from pixcore.accounts.accounts_service import open_account
from pixcore.testing import PlainHasher
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.support import random_cpf

MODES = ["force_custom_plan", "force_generic_plan"]
"""A prepared statement may run with a plan for its values or a generic one: both are checked."""


def plan_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every node of an EXPLAIN (FORMAT JSON) plan, the root first."""
    yield plan
    for child in plan.get("Plans", []):
        yield from plan_nodes(child)


FEW_PAGES = 8
"""Pages of a partition below which a sequential scan of it is no sign of a missing index."""
SMALL = "SELECT pg_relation_size($1::regclass) <= $2 * current_setting('block_size')::int"


async def scans(
    conn: asyncpg.Connection,
    sql: str,
    args: list[Any],
    mode: str,
    relations: frozenset[str] = frozenset({"transactions"}),
) -> list[tuple[str, str]]:
    """(node type, index or relation) of every scan of ``relations`` in the plan: of their
    partitions (``transactions_y2026m12``...), the history tables being partitioned by month.
    A sequential scan of a partition of at most :data:`FEW_PAGES` pages (a month ahead, the
    DEFAULT one, a month other tests wrote a few rows in) is left out: reading it whole costs less
    than an index's descent, and the planner rightly prefers it there; the months that hold the
    data must be read by an index."""
    await conn.execute(f"SET plan_cache_mode = {mode}")
    try:
        raw = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *args)
    finally:
        await conn.execute("RESET plan_cache_mode")
    plan = json.loads(raw)[0]["Plan"]
    found = []
    for node in plan_nodes(plan):
        relation = node.get("Relation Name")
        if not _of(relation, relations):
            continue
        small = "SELECT pg_relation_size($1::regclass) <= $2 * current_setting('block_size')::int"
        if (
            node["Node Type"] == "Seq Scan"
            and relation not in relations
            and await conn.fetchval(small, relation, FEW_PAGES)
        ):
            continue
        found.append((node["Node Type"], node.get("Index Name", relation)))
    return found


def _of(relation: str | None, tables: frozenset[str]) -> bool:
    """Whether ``relation`` is one of ``tables`` or a partition of one (``<table>_y2026m12``,
    ``<table>_before_y2026m12``, ``<table>_default``)."""
    if relation is None:
        return False
    return relation in tables or any(
        re.fullmatch(rf"{table}_(y\d{{4}}m\d{{2}}|before_y\d{{4}}m\d{{2}}|default)", relation)
        for table in tables
    )


def window(days: int) -> dict[str, str]:
    """``inicio`` and ``fim`` of a standard list: the last ``days`` days."""
    now = datetime.now(UTC)
    return {"inicio": (now - timedelta(days=days)).isoformat(), "fim": now.isoformat()}


async def assert_list_reads_indexes(
    conn: asyncpg.Connection,
    statements: tuple[str, list[Any], str, list[Any]],
    mode: str,
    relations: frozenset[str],
    *,
    matches: bool = True,
) -> None:
    """The count and the page of a list (``(count, its args, page, its args)``) scan ``relations``
    by index only, and (``matches``) the count finds some, so that real work was planned."""
    count, args, page, page_args = statements
    for sql, arguments in ((count, args), (page, page_args)):
        found = await scans(conn, sql, arguments, mode, relations)
        assert found, f"the plan reads none of {sorted(relations)}"
        assert all(node != "Seq Scan" for node, _ in found), found
    if matches:
        assert await conn.fetchval(count, *args) > 0


async def populated_account(
    pg_uow: UnitOfWorkFactory,
    url: str,
    fill: Callable[[asyncpg.Connection, int, int], Awaitable[None]],
    tables: Sequence[str],
    rows: tuple[int, int] = (10_000, 60_000),
) -> int:
    """Two new accounts, each filled by ``fill(conn, account, how_many)`` with ``rows`` rows, then
    ``tables`` analyzed: the first account's id. The second, with more rows, is what a plan must not
    scan through."""
    accounts = []
    for _ in range(2):
        opened = await open_account(
            pg_uow, PlainHasher(), ispb="99999999", name="Plans", document=random_cpf(), city="RECIFE"
        )
        accounts.append(opened.account.id)
    conn = await asyncpg.connect(url)
    try:
        for account, count in zip(accounts, rows, strict=True):
            await fill(conn, account, count)
        for table in tables:
            await conn.execute(f"ANALYZE {table}")
    finally:
        await conn.close()
    return accounts[0]


async def index_of_table(conn: asyncpg.Connection, index: str) -> str:
    """The index of the partitioned table that ``index`` (a partition's) belongs to, or ``index``."""
    parent: str | None = await conn.fetchval(
        "SELECT inhparent::regclass::text FROM pg_inherits WHERE inhrelid = to_regclass($1)", index
    )
    return parent or index
