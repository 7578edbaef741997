"""The fake console session store: staged rows and staged uses and ends, as ``_store.Tables`` holds them."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pixcore.accounts.sessions import ConsoleSession
from pixcore.testing._store import IntegrityError, Repository

__all__ = ["InMemoryConsoleSessions"]


class InMemoryConsoleSessions(Repository):
    async def add(self, session: ConsoleSession) -> None:
        staged = self._staged
        if session.id in staged.console_sessions or session.id in self._committed.console_sessions:
            raise IntegrityError(f"the console session {session.id} exists already")
        self._require_account(session.account_id)
        staged.console_sessions[session.id] = session

    async def get(self, session_id: str) -> ConsoleSession | None:
        staged = self._staged
        stored = staged.console_sessions.get(session_id) or self._committed.console_sessions.get(session_id)
        if stored is None:
            return None
        if (seen := staged.session_touches.get(session_id)) is not None and seen > stored.last_seen_at:
            stored = replace(stored, last_seen_at=seen)
        if stored.ended_at is None and (ended := staged.session_ends.get(session_id)) is not None:
            stored = replace(stored, ended_at=ended)
        return stored

    async def touch(self, session_id: str, at: datetime) -> None:
        stored = await self.get(session_id)
        if stored is not None and at > stored.last_seen_at:
            self._staged.session_touches[session_id] = at

    async def end(self, session_id: str, at: datetime) -> bool:
        stored = await self.get(session_id)
        if stored is None or stored.ended_at is not None:
            return False
        self._staged.session_ends[session_id] = at
        return True

    async def end_account(self, account_id: int, at: datetime) -> int:
        return sum([await self.end(session.id, at) for session in await self.list_open(account_id)])

    async def list_open(self, account_id: int) -> list[ConsoleSession]:
        ids = {*self._committed.console_sessions, *self._staged.console_sessions}
        found = [s for s in [await self.get(i) for i in ids] if s is not None]
        mine = [s for s in found if s.account_id == account_id and s.ended_at is None]
        return sorted(mine, key=lambda s: (s.created_at, s.id), reverse=True)
