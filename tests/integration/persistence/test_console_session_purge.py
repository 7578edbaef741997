"""Console sessions' rows are deleted once they have been over for 30 days, not before."""

from __future__ import annotations

import secrets
from datetime import timedelta

import asyncpg

from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixweb.workers import SESSIONS_KEEP, purge_console_sessions
from tests.support import new_client


async def _session(conn: asyncpg.Connection, account_id: int, age: timedelta) -> str:
    session_id = secrets.token_hex(32)
    await conn.execute(
        """INSERT INTO console_sessions (id, account_id, csrf, created_at, last_seen_at)
           VALUES ($1, $2, $3, now() - $4::interval, now() - $4::interval)""",
        session_id,
        account_id,
        secrets.token_urlsafe(32),
        age,
    )
    return session_id


async def test_sessions_over_for_30_days_are_deleted_and_younger_ones_kept(
    database: Database, pg_uow: UnitOfWorkFactory, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    conn = await asyncpg.connect(migrated_database)
    try:
        live = await _session(conn, client.account_id, timedelta(minutes=5))
        kept = await _session(conn, client.account_id, SESSIONS_KEEP - timedelta(minutes=1))
        gone = await _session(conn, client.account_id, SESSIONS_KEEP + timedelta(minutes=1))
        assert await purge_console_sessions(database) >= 1
        rows = await conn.fetch("SELECT id FROM console_sessions WHERE account_id = $1", client.account_id)
    finally:
        await conn.close()
    assert {row["id"].strip() for row in rows} == {live, kept}
    assert gone not in {row["id"] for row in rows}
