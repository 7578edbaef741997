"""The console's session: an encrypted cookie (AES-GCM), so any API worker process reads it.

The cookie holds the signed-in account (none before sign-in), the CSRF token of the browser's
forms, and when the session was last used. Its key is derived (HKDF) from the token signing key,
which every worker of the service shares already (a token issued by one verifies in another):
no new secret to distribute, no session table. Replacing the signing key signs every console
user out, as it invalidates every access token (docs/decisions.md, "Console sessions").

A session unused for :data:`IDLE_SECONDS` keeps its CSRF token but loses its account: the next
page asks to sign in again, then returns to the page that was asked for.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["COOKIE", "IDLE_SECONDS", "ConsoleSession", "SessionCodec", "derive_session_key"]

COOKIE = "pix_console"
IDLE_SECONDS = 1800
MAX_COOKIE = 1024  # a session is under 200 characters; anything longer is not ours
_AAD = b"pixweb console session v1"


def derive_session_key(signing_key: ec.EllipticCurvePrivateKey) -> bytes:
    """A 256-bit AES key from the signing key (HKDF-SHA256, its own ``info``: never the signing key)."""
    secret = signing_key.private_numbers().private_value.to_bytes(32, "big")
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_AAD).derive(secret)


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    csrf: str
    account_id: int | None = None
    expired: bool = False
    """The session had an account and sat idle too long (the sign-in page says so)."""

    @classmethod
    def new(cls) -> ConsoleSession:
        return cls(csrf=secrets.token_urlsafe(32))

    def signed_in(self, account_id: int) -> ConsoleSession:
        """A fresh CSRF token with the account: a token seen before sign-in is not reused after."""
        return ConsoleSession(csrf=secrets.token_urlsafe(32), account_id=account_id)

    def signed_out(self) -> ConsoleSession:
        return replace(self, account_id=None, expired=False)


class SessionCodec:
    """Encodes a session into the cookie's text and back; ``now``: seconds (the wall clock)."""

    def __init__(self, key: bytes, *, now: Callable[[], float] = time.time) -> None:
        self._key = key
        self._aead = AESGCM(key)
        self._now = now

    def with_clock(self, now: Callable[[], float]) -> SessionCodec:
        """The same key on another clock (a test makes an idle session with it)."""
        return SessionCodec(self._key, now=now)

    def encode(self, session: ConsoleSession) -> str:
        data = {"c": session.csrf, "a": session.account_id, "s": int(self._now()), "x": session.expired}
        nonce = secrets.token_bytes(12)
        sealed = self._aead.encrypt(nonce, json.dumps(data, separators=(",", ":")).encode(), _AAD)
        return base64.urlsafe_b64encode(nonce + sealed).decode("ascii")

    def decode(self, text: str | None) -> ConsoleSession:
        """The session of a cookie; a missing, foreign or tampered cookie gives a new one."""
        if not text or len(text) > MAX_COOKIE:
            return ConsoleSession.new()
        try:
            raw = base64.urlsafe_b64decode(text.encode("ascii"))
            plain = self._aead.decrypt(raw[:12], raw[12:], _AAD)
            data = json.loads(plain)
            csrf, account, seen, expired = str(data["c"]), data["a"], int(data["s"]), data.get("x") is True
        except (InvalidTag, ValueError, KeyError, TypeError, UnicodeError, binascii.Error):
            return ConsoleSession.new()
        if account is not None and not isinstance(account, int):
            return ConsoleSession.new()
        if account is not None and self._now() - seen > IDLE_SECONDS:
            return ConsoleSession(csrf=csrf, expired=True)
        return ConsoleSession(csrf=csrf, account_id=account, expired=expired and account is None)
