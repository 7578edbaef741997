"""The web console's sessions on PostgreSQL (the ``ConsoleSessionRepository`` port): the
``console_sessions`` table, inside the unit of work's transaction, so that a revocation ends the
account's sessions in its own."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pixcore.accounts.sessions import ConsoleSession
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose

__all__ = ["PostgresConsoleSessions"]

_COLUMNS = "id, account_id, csrf, fingerprint, created_at, last_seen_at, ended_at"


def _session(row: Any) -> ConsoleSession:
    return ConsoleSession(
        id=row["id"],
        account_id=row["account_id"],
        csrf=row["csrf"],
        created_at=row["created_at"],
        last_seen_at=row["last_seen_at"],
        ended_at=row["ended_at"],
        fingerprint=row["fingerprint"],
    )


class PostgresConsoleSessions(Repository):
    async def add(self, session: ConsoleSession) -> None:
        await self._conn.execute(
            compose("INSERT INTO console_sessions (", _COLUMNS, ") VALUES ($1, $2, $3, $4, $5, $6, $7)"),
            session.id,
            session.account_id,
            session.csrf,
            session.fingerprint,
            session.created_at,
            session.last_seen_at,
            session.ended_at,
        )

    async def get(self, session_id: str) -> ConsoleSession | None:
        row = await self._conn.fetchrow(
            compose("SELECT ", _COLUMNS, " FROM console_sessions WHERE id = $1"),
            session_id,
        )
        return _session(row) if row is not None else None

    async def touch(self, session_id: str, at: datetime) -> None:
        await self._conn.execute(
            "UPDATE console_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2",
            session_id,
            at,
        )

    async def end(self, session_id: str, at: datetime) -> bool:
        status = await self._conn.execute(
            "UPDATE console_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL", session_id, at
        )
        return bool(status == "UPDATE 1")

    async def end_account(self, account_id: int, at: datetime) -> int:
        status = await self._conn.execute(
            "UPDATE console_sessions SET ended_at = $2 WHERE account_id = $1 AND ended_at IS NULL",
            account_id,
            at,
        )
        return int(status.split()[-1])

    async def list_open(self, account_id: int) -> list[ConsoleSession]:
        rows = await self._conn.fetch(
            compose(
                "SELECT ",
                _COLUMNS,
                " FROM console_sessions WHERE account_id = $1 AND ended_at IS NULL"
                " ORDER BY created_at DESC, id DESC",
            ),
            account_id,
        )
        return [_session(row) for row in rows]
