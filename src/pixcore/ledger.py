"""The double-entry ledger: every movement of money is a posting whose entries sum to zero.

An account has two buckets, ``available`` and ``blocked``; the outside world
(the settlement network) is one more party, ``EXTERNAL``. A balance is the sum
of its entries. The postings (decisions §4):

=================  ==================================  ===========================
posting            entries                             when
=================  ==================================  ===========================
``reserve``        available -a, blocked +a            a transfer is created
``release``        blocked -a, available +a            it fails: funds come back
``settle_out``     blocked -a, external +a             it settles at another bank
``settle_in``      blocked -a (sender), available +a    it settles inside the service
                   (receiver)
``receive``        external -a, available +a            money arrives from outside
=================  ==================================  ===========================
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Bucket", "Entry", "Posting", "receive", "release", "reserve", "settle_in", "settle_out"]


class Bucket(enum.StrEnum):
    AVAILABLE = "available"
    BLOCKED = "blocked"
    EXTERNAL = "external"


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a posting. ``account_id`` is None for the outside world."""

    account_id: int | None
    bucket: Bucket
    amount: int  # centavos, signed


@dataclass(frozen=True, slots=True)
class Posting:
    name: str
    entries: tuple[Entry, ...]

    def __post_init__(self) -> None:
        if sum(entry.amount for entry in self.entries) != 0:
            raise ValueError(f"posting {self.name} does not balance")
        if any(entry.amount == 0 for entry in self.entries):
            raise ValueError(f"posting {self.name} has an empty entry")
        for entry in self.entries:
            if (entry.account_id is None) != (entry.bucket is Bucket.EXTERNAL):
                raise ValueError("only the outside world has no account, and it has only the external bucket")

    def deltas(self) -> dict[int, tuple[int, int]]:
        """Per account, the change of (available, blocked)."""
        changes: dict[int, tuple[int, int]] = {}
        for entry in self.entries:
            if entry.account_id is None:
                continue
            available, blocked = changes.get(entry.account_id, (0, 0))
            if entry.bucket is Bucket.AVAILABLE:
                available += entry.amount
            else:
                blocked += entry.amount
            changes[entry.account_id] = (available, blocked)
        return changes


def _positive(amount: int) -> int:
    if amount <= 0:
        raise ValueError("postings move a positive amount")
    return amount


def reserve(account_id: int, amount: int) -> Posting:
    a = _positive(amount)
    return Posting("reserve", (Entry(account_id, Bucket.AVAILABLE, -a), Entry(account_id, Bucket.BLOCKED, a)))


def release(account_id: int, amount: int) -> Posting:
    a = _positive(amount)
    return Posting("release", (Entry(account_id, Bucket.BLOCKED, -a), Entry(account_id, Bucket.AVAILABLE, a)))


def settle_out(account_id: int, amount: int) -> Posting:
    a = _positive(amount)
    return Posting("settle_out", (Entry(account_id, Bucket.BLOCKED, -a), Entry(None, Bucket.EXTERNAL, a)))


def settle_in(sender_id: int, receiver_id: int, amount: int) -> Posting:
    a = _positive(amount)
    return Posting(
        "settle_in", (Entry(sender_id, Bucket.BLOCKED, -a), Entry(receiver_id, Bucket.AVAILABLE, a))
    )


def receive(account_id: int, amount: int) -> Posting:
    a = _positive(amount)
    return Posting("receive", (Entry(None, Bucket.EXTERNAL, -a), Entry(account_id, Bucket.AVAILABLE, a)))
