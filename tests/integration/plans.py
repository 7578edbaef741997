"""What the query-plan tests share: the scans of a statement's plan, under either plan cache mode, and
the check that a list's count and page statements read index ranges only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

MODES = ["force_custom_plan", "force_generic_plan"]
"""A prepared statement may run with a plan for its values or a generic one: both are checked."""


def plan_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every node of an EXPLAIN (FORMAT JSON) plan, the root first."""
    yield plan
    for child in plan.get("Plans", []):
        yield from plan_nodes(child)


async def scans(
    conn: asyncpg.Connection,
    sql: str,
    args: list[Any],
    mode: str,
    relations: frozenset[str] = frozenset({"transactions"}),
) -> list[tuple[str, str]]:
    """(node type, index or relation) of every scan of ``relations`` in the plan."""
    await conn.execute(f"SET plan_cache_mode = {mode}")
    try:
        raw = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *args)
    finally:
        await conn.execute("RESET plan_cache_mode")
    plan = json.loads(raw)[0]["Plan"]
    return [
        (node["Node Type"], node.get("Index Name", node["Relation Name"]))
        for node in plan_nodes(plan)
        if node.get("Relation Name") in relations
    ]


def window(days: int) -> dict[str, str]:
    """``inicio`` and ``fim`` of a standard list: the last ``days`` days."""
    now = datetime.now(UTC)
    return {"inicio": (now - timedelta(days=days)).isoformat(), "fim": now.isoformat()}


async def assert_list_reads_indexes(
    conn: asyncpg.Connection,
    statements: tuple[str, str, list[Any]],
    mode: str,
    relations: frozenset[str],
    *,
    matches: bool = True,
) -> None:
    """The count and the page of a list (``(count, page, args)``) scan ``relations`` by index only,
    and (``matches``) the count finds some, so that real work was planned."""
    count, page, args = statements
    for sql in (count, page):
        found = await scans(conn, sql, args, mode, relations)
        assert found, f"the plan reads none of {sorted(relations)}"
        assert all(node != "Seq Scan" for node, _ in found), found
    if matches:
        assert await conn.fetchval(count, *args) > 0
