"""Use cases: what the service does, independent of HTTP and SQL."""

from __future__ import annotations

from pixcore.usecases.accounts import get_balance, link_certificate, open_account
from pixcore.usecases.auth import TOKEN_LIFETIME_SECONDS, IssuedToken, issue_operator_token, issue_token
from pixcore.usecases.credentials import revoke_certificate, revoke_secret, rotate_secret

__all__ = [
    "TOKEN_LIFETIME_SECONDS",
    "IssuedToken",
    "get_balance",
    "issue_operator_token",
    "issue_token",
    "link_certificate",
    "open_account",
    "revoke_certificate",
    "revoke_secret",
    "rotate_secret",
]
