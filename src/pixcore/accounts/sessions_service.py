"""The web console's sessions: sign-in starts one, every page opens it, sign-out and the
operator end it (``pixcore.accounts.sessions`` holds the rules).

:class:`ConsoleSessions` is what the console calls, on a clock of its own (the wall clock in
the service: moving the sandbox clock signs nobody out). The functions below are the
operator's (``pixweb admin session``); revoking a certificate and a new or revoked secret end
the account's sessions in their own transaction (``pixcore.accounts.credentials_service``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from pixcore.accounts.sessions import (
    IDLE,
    LIFETIME,
    ConsoleSession,
    SessionState,
    judge,
    new_token,
    session_id,
)
from pixcore.clock import Clock
from pixcore.errors import AccountNotFound, SessionNotFound
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["ConsoleSessions", "Opened", "end_account_sessions", "end_session", "open_sessions"]

MAX_TOKEN = 64
"""A token is 43 characters; a longer cookie is not one of ours (and is not hashed)."""


@dataclass(frozen=True, slots=True)
class Opened:
    """What a browser's token opened: the session when ``state`` is LIVE, else the reason it did not."""

    state: SessionState | None
    """None: no such session (no cookie, a foreign one, or one the store does not know)."""
    session: ConsoleSession | None = None


class ConsoleSessions:
    """Sessions on ``uow``, timed by ``clock`` (public: a test moves it)."""

    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, *, idle: timedelta = IDLE, lifetime: timedelta = LIFETIME
    ) -> None:
        self.uow, self.clock, self.idle, self.lifetime = uow, clock, idle, lifetime

    async def start(self, account_id: int, *, fingerprint: str | None = None) -> tuple[str, ConsoleSession]:
        """A new session of the account (a new id: whatever the browser held before stays unused);
        the browser's token and the session. ``fingerprint``: the certificate the sign-in presented."""
        token, now = new_token(), self.clock.now()
        session = ConsoleSession(
            id=session_id(token),
            account_id=account_id,
            csrf=secrets.token_urlsafe(32),
            created_at=now,
            last_seen_at=now,
            fingerprint=fingerprint,
        )
        async with self.uow() as tx:
            await tx.sessions.add(session)
            await tx.commit()
        return token, session

    async def open(self, token: str | None, *, presented: str | None = None, bound: bool = False) -> Opened:
        """The session of a browser's token, marked used when it is live. ``bound``: the session
        opens only for the certificate it signed in with; ``presented``: the request's."""
        if not token or len(token) > MAX_TOKEN:
            return Opened(None)
        now = self.clock.now()
        async with self.uow() as tx:
            session = await tx.sessions.get(session_id(token))
            if session is None:
                return Opened(None)
            state = judge(
                session, now, presented=presented, bound=bound, idle=self.idle, lifetime=self.lifetime
            )
            if state is SessionState.LIVE:
                await tx.sessions.touch(session.id, now)
                await tx.commit()
        return Opened(state, session)

    async def end(self, token: str | None) -> None:
        """Sign-out: the token's session ends (nothing if there is none, or it had ended)."""
        if not token or len(token) > MAX_TOKEN:
            return
        async with self.uow() as tx:
            await tx.sessions.end(session_id(token), self.clock.now())
            await tx.commit()


async def open_sessions(uow: UnitOfWorkFactory, *, account_id: int) -> list[ConsoleSession]:
    """The account's sessions not ended (``pixweb admin session list``)."""
    async with uow() as tx:
        if await tx.accounts.get(account_id) is None:
            raise AccountNotFound(f"account {account_id} does not exist")
        return await tx.sessions.list_open(account_id)


async def end_account_sessions(uow: UnitOfWorkFactory, clock: Clock, *, account_id: int) -> int:
    """End every session of the account; how many were open."""
    async with uow() as tx:
        if await tx.accounts.get(account_id) is None:
            raise AccountNotFound(f"account {account_id} does not exist")
        ended = await tx.sessions.end_account(account_id, clock.now())
        await tx.commit()
    return ended


async def end_session(uow: UnitOfWorkFactory, clock: Clock, *, session: str) -> ConsoleSession:
    """End one session by its id (as ``pixweb admin session list`` shows it); the session ended."""
    async with uow() as tx:
        found = await tx.sessions.get(session)
        if found is None or found.ended_at is not None:
            raise SessionNotFound(f"no open console session has the id {session}")
        at = clock.now()
        await tx.sessions.end(session, at)
        await tx.commit()
    return ConsoleSession(
        id=found.id,
        account_id=found.account_id,
        csrf=found.csrf,
        created_at=found.created_at,
        last_seen_at=found.last_seen_at,
        ended_at=at,
        fingerprint=found.fingerprint,
    )
