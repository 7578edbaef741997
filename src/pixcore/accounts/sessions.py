"""The web console's sessions: what a stored session is, and when it still opens the console.

A browser holds a random token (:func:`new_token`); the store keeps only its SHA-256
(:func:`session_id`), so a copy of the table opens nothing. A session opens the console while
it is not ended, was used within :data:`IDLE` and began within :data:`LIFETIME`; where the
sign-in was bound to a client certificate, only requests with that certificate
(:func:`judge`).
"""

from __future__ import annotations

import enum
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["IDLE", "LIFETIME", "ConsoleSession", "SessionState", "judge", "new_token", "session_id"]

IDLE = timedelta(minutes=30)
"""A session unused this long signs its browser out (the next page asks to sign in again)."""
LIFETIME = timedelta(hours=8)
"""A session this old, however busy, signs its browser out: sign-in again, every working day."""


def new_token() -> str:
    """What the browser's cookie holds: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def session_id(token: str) -> str:
    """The stored id of a cookie's token: its SHA-256 in hex. The token is random (256 bits),
    so a fast hash suffices; the table holds nothing a browser could present."""
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    id: str
    """:func:`session_id` of the browser's token."""
    account_id: int
    csrf: str
    """The synchronizer token of this session's forms."""
    created_at: datetime
    """The sign-in."""
    last_seen_at: datetime
    ended_at: datetime | None = None
    """Set by sign-out, ``pixweb admin session end``, a revoked certificate, a new or revoked secret."""
    fingerprint: str | None = None
    """The client certificate (SHA-256 of its DER, hex) the sign-in presented; None without one."""


class SessionState(enum.Enum):
    LIVE = "live"
    ENDED = "ended"
    IDLE = "idle"
    OLD = "old"
    OTHER_CERTIFICATE = "other certificate"

    @property
    def expired(self) -> bool:
        """Ended by time alone (the sign-in page says the session expired)."""
        return self in (SessionState.IDLE, SessionState.OLD)


def judge(
    session: ConsoleSession,
    now: datetime,
    *,
    presented: str | None = None,
    bound: bool = False,
    idle: timedelta = IDLE,
    lifetime: timedelta = LIFETIME,
) -> SessionState:
    """Whether ``session`` opens the console at ``now``. ``bound``: the session must be used with
    the certificate it signed in with (production mode); ``presented``: the request's (its
    fingerprint, None without one)."""
    if session.ended_at is not None:
        return SessionState.ENDED
    if bound and presented != session.fingerprint:
        return SessionState.OTHER_CERTIFICATE
    if now - session.created_at > lifetime:
        return SessionState.OLD
    if now - session.last_seen_at > idle:
        return SessionState.IDLE
    return SessionState.LIVE
