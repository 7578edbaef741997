"""Fast stand-ins for the slow secret hasher and the JWT issuer."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

__all__ = ["InlineVerifier", "IssueCall", "PlainHasher", "RecordingTokenIssuer"]


class PlainHasher:
    """A fast stand-in for the Argon2 ``SecretHasher``: unsalted SHA-256, tagged ``plain$``.

    It never stores the secret itself and refuses any other secret. It counts
    its calls, so that a test can see that a check spent a hash.
    """

    PREFIX = "plain$"

    def __init__(self) -> None:
        self.hash_calls = 0
        self.verify_calls = 0

    def hash(self, secret: str) -> str:
        self.hash_calls += 1
        return self.PREFIX + hashlib.sha256(secret.encode()).hexdigest()

    def verify(self, secret_hash: str, secret: str) -> bool:
        self.verify_calls += 1
        expected = self.PREFIX + hashlib.sha256(secret.encode()).hexdigest()
        return hmac.compare_digest(secret_hash.encode(), expected.encode())


class InlineVerifier:
    """A ``SecretVerifier`` that checks at once, in the caller's task, with ``hasher``.

    Unbounded and without threads, for unit tests. A decoy spends a real hash, so
    that ``hasher.hash_calls`` shows it; ``decoys`` counts them.
    """

    def __init__(self, hasher: PlainHasher) -> None:
        self.hasher = hasher
        self.decoys = 0

    async def verify(self, secret_hash: str, secret: str) -> bool:
        return self.hasher.verify(secret_hash, secret)

    async def decoy(self, secret: str) -> None:
        self.decoys += 1
        self.hasher.hash(secret)


@dataclass(frozen=True, slots=True)
class IssueCall:
    account_id: int
    fingerprint: str
    issued_at: datetime


class RecordingTokenIssuer:
    """A ``TokenIssuer`` that records each call and returns a token made of its arguments."""

    def __init__(self) -> None:
        self.calls: list[IssueCall] = []

    def issue(self, *, account_id: int, fingerprint: str, issued_at: datetime) -> str:
        self.calls.append(IssueCall(account_id, fingerprint, issued_at))
        return f"token:{account_id}:{fingerprint}:{issued_at.isoformat()}"
