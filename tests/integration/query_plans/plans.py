"""What the query-plan tests share: the scans of a statement's plan, under either plan cache mode, and
the check that a list's count and page statements read index ranges only."""

from __future__ import annotations

import json
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
