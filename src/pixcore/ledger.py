"""The double-entry ledger: every movement of money is a posting whose entries sum to zero.

An account has two buckets, ``available`` and ``blocked``. The outside world has
ledger accounts of its own, one per institution (its ISPB), in the ``EXTERNAL``
bucket: money that leaves the service is credited to the institution it goes to,
money that arrives is debited from the one it comes from. A balance is the sum
of its entries, every posting sums to zero, and so the sum over every ledger
account, ours and the outside's, never moves (docs/decisions/ledger.md). The service's own
ISPB is never an outside institution: money between two of our accounts moves
with ``settle_in`` and never leaves. The postings:

=================  ==================================  ===========================
posting            entries                             when
=================  ==================================  ===========================
``reserve``        available -a, blocked +a            a transfer is created
``release``        blocked -a, available +a            it fails: funds come back
``settle_out``     blocked -a, external(ispb) +a       it settles at another bank
``settle_in``      blocked -a (sender), available +a    it settles inside the service
                   (receiver)                          (also a refund between two of
                                                       our accounts)
``receive``        external(ispb) -a, available +a     money arrives from outside
=================  ==================================  ===========================
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from pixcore.errors import OwnInstitution

__all__ = [
    "Bucket",
    "Entry",
    "Posting",
    "receive",
    "release",
    "require_outside",
    "reserve",
    "settle_in",
    "settle_out",
]

_ISPB = re.compile(r"[0-9]{8}")


class Bucket(enum.StrEnum):
    AVAILABLE = "available"
    BLOCKED = "blocked"
    EXTERNAL = "external"


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a posting: of one of our accounts (``account_id``), or of the outside
    institution ``institution`` (an ISPB; ``account_id`` None, bucket ``EXTERNAL``)."""

    account_id: int | None
    bucket: Bucket
    amount: int  # centavos, signed
    institution: str | None = None


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
            if (entry.account_id is None) != (entry.institution is not None):
                raise ValueError("an outside entry names its institution, and only an outside entry does")
            if entry.institution is not None and not _ISPB.fullmatch(entry.institution):
                raise ValueError(f"an institution is an ISPB of 8 digits, not {entry.institution!r}")

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


def settle_out(account_id: int, amount: int, institution: str) -> Posting:
    """The reserved amount leaves for the outside institution ``institution`` (an ISPB)."""
    a = _positive(amount)
    return Posting(
        "settle_out", (Entry(account_id, Bucket.BLOCKED, -a), Entry(None, Bucket.EXTERNAL, a, institution))
    )


def settle_in(sender_id: int, receiver_id: int, amount: int) -> Posting:
    a = _positive(amount)
    return Posting(
        "settle_in", (Entry(sender_id, Bucket.BLOCKED, -a), Entry(receiver_id, Bucket.AVAILABLE, a))
    )


def receive(account_id: int, amount: int, institution: str) -> Posting:
    """Money arrives from the outside institution ``institution`` (an ISPB)."""
    a = _positive(amount)
    return Posting(
        "receive", (Entry(None, Bucket.EXTERNAL, -a, institution), Entry(account_id, Bucket.AVAILABLE, a))
    )


def require_outside(institution: str, own: str) -> str:
    """``institution`` (an ISPB) as an outside party: never ``own``, this service's ISPB."""
    if institution == own:
        raise OwnInstitution(
            f"ISPB {own} is this service's own: the outside world is another institution"
            " (an account of this service pays with POST /dict/pix)."
        )
    return institution
