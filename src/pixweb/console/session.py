"""The console's cookies and what a request's session is, as the pages see it.

The session itself is held on the server (``pixcore.accounts.sessions``, the
``console_sessions`` table): the cookie :data:`COOKIE` holds only its random token. Before
sign-in there is no session row: the small cookie :data:`PRE_COOKIE` holds the CSRF token of the
sign-in form (a random value, nothing else), so an anonymous visitor costs the database nothing.
Signing in issues a new token (and a new CSRF token); signing out ends the row.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

__all__ = ["COOKIE", "PRE_COOKIE", "ConsoleSession"]

COOKIE = "pix_console"
PRE_COOKIE = "pix_console_pre"
_PRE = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32); anything else is not ours


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    """A request's session: its CSRF token and, signed in, its account."""

    csrf: str
    account_id: int | None = None
    holder: str | None = None
    """The signed-in account's holder, as the header names it."""
    expired: bool = False
    """The browser's session ended by time (idle or old): the sign-in page says so."""
    issued: str | None = None
    """A token to give the browser (set at sign-in)."""
    signed_out: bool = False
    """The browser's session cookie goes (set at sign-out)."""

    @classmethod
    def anonymous(cls, pre: str | None = None, *, expired: bool = False) -> ConsoleSession:
        """Signed out: the CSRF token of the browser's pre-sign-in cookie, or a new one."""
        csrf = pre if pre is not None and _PRE.fullmatch(pre) else secrets.token_urlsafe(32)
        return cls(csrf=csrf, expired=expired)
