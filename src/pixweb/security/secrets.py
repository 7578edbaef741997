"""Client secrets are stored only as Argon2id hashes (the ``SecretHasher`` port)."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

__all__ = ["Argon2Hasher"]


class Argon2Hasher:
    """Argon2id with the library's recommended parameters (RFC 9106, low-memory profile)."""

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self._hasher = hasher or PasswordHasher()

    def hash(self, secret: str) -> str:
        return self._hasher.hash(secret)

    def verify(self, secret_hash: str, secret: str) -> bool:
        try:
            return self._hasher.verify(secret_hash, secret)
        except (VerificationError, InvalidHashError):
            return False
