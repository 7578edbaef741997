"""Databases for tests: units of work on one, a look behind the API, databases of a test's own."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeAlias

import asyncpg

from pixinfra.persistence.ledger_check import check_ledger
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.database import with_database
from pixinfra.postgres.pool import Database

PostgresUnits: TypeAlias = Callable[[], PostgresUnitOfWork]
"""Units of work on one database (the ``pg_uow`` fixture's, on the run's): a ``UnitOfWorkFactory``
whose units also hand out their connection, for tests that look behind the repositories."""


async def ledger_report(url: str) -> dict[str, object]:
    """The reconciliation report over the whole database."""
    conn = await asyncpg.connect(url)
    try:
        return await check_ledger(conn)
    finally:
        await conn.close()


async def fetch_rows(url: str, sql: str, *args: object) -> list[asyncpg.Record]:
    """Rows of one query, on a connection of its own (to look behind the API)."""
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()


@asynccontextmanager
async def scratch_database(server_url: str, prefix: str) -> AsyncIterator[str]:
    """The URL of a new, empty database on the run's server (``prefix`` names whose it is),
    dropped, with whatever connections still use it, when the block ends."""
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    admin = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield with_database(server_url, name)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@asynccontextmanager
async def opened_database(url: str, *, max_size: int) -> AsyncIterator[Database]:
    """A :class:`Database` of its own on ``url`` (not the run's), closed on the way out."""
    database = Database()
    await database.open(url, min_size=1, max_size=max_size)
    try:
        yield database
    finally:
        await database.close()
