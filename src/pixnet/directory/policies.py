"""The DICT's rate-limiting policies: token buckets, as the document's "Limitação de requisições"
defines them.

Each policy has a scope (the participant, or the end user a look-up is for), a refill rate and a
bucket size. A request is refused (``RateLimited``, 429) when its bucket holds no token; served, it
takes its cost: one, except a look-up (``getEntry``) that finds nothing, which takes 3 of the
participant's anti-scan bucket and 20 of the user's. A payment sent after a look-up gives one
back. A bucket may go below zero (a 404 that costs 3 with 1 left): it then waits to refill past it.

The participant's anti-scan bucket depends on its category (A to F, the document's table; every
participant of this network is in category A unless set otherwise); the user's, on the user: a
natural person's (an 11-digit ``PI-PayerId``) holds 100, a legal person's 1,000. The look-ups of
EMAIL and PHONE keys and those of CPF, CNPJ and EVP keys have buckets of their own
(``ENTRIES_READ_USER_ANTISCAN`` and ``..._V2``).

Framework free; the buckets live in the memory of ``pixnet serve`` (a restart fills them).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pixcore.keys import PixKeyType

__all__ = [
    "CATEGORIES",
    "POLICIES",
    "Buckets",
    "Category",
    "Policy",
    "PolicyName",
    "lookup_policies",
    "participant_antiscan",
    "user_antiscan",
]


class PolicyName(enum.StrEnum):
    ENTRIES_READ_USER_ANTISCAN = "ENTRIES_READ_USER_ANTISCAN"
    ENTRIES_READ_USER_ANTISCAN_V2 = "ENTRIES_READ_USER_ANTISCAN_V2"
    ENTRIES_READ_PARTICIPANT_ANTISCAN = "ENTRIES_READ_PARTICIPANT_ANTISCAN"
    ENTRIES_WRITE = "ENTRIES_WRITE"
    KEYS_CHECK = "KEYS_CHECK"
    POLICIES_READ = "POLICIES_READ"
    POLICIES_LIST = "POLICIES_LIST"
    CLAIMS_READ = "CLAIMS_READ"
    CLAIMS_WRITE = "CLAIMS_WRITE"
    CLAIMS_LIST_WITH_ROLE = "CLAIMS_LIST_WITH_ROLE"
    CLAIMS_LIST_WITHOUT_ROLE = "CLAIMS_LIST_WITHOUT_ROLE"
    INFRACTION_REPORTS_READ = "INFRACTION_REPORTS_READ"
    INFRACTION_REPORTS_WRITE = "INFRACTION_REPORTS_WRITE"
    INFRACTION_REPORTS_LIST_WITH_ROLE = "INFRACTION_REPORTS_LIST_WITH_ROLE"
    INFRACTION_REPORTS_LIST_WITHOUT_ROLE = "INFRACTION_REPORTS_LIST_WITHOUT_ROLE"
    REFUNDS_READ = "REFUNDS_READ"
    REFUNDS_WRITE = "REFUNDS_WRITE"
    REFUND_LIST_WITH_ROLE = "REFUND_LIST_WITH_ROLE"


class Category(enum.StrEnum):
    A = "A"
    B = "B"
    C = "C"
    D = "D"
    E = "E"
    F = "F"


@dataclass(frozen=True, slots=True)
class Policy:
    name: PolicyName
    refill: int
    """Tokens added each ``period``."""
    period: timedelta
    capacity: int


MINUTE = timedelta(minutes=1)
CATEGORIES = {
    Category.A: (12_000, 20_000),
    Category.B: (8_000, 15_000),
    Category.C: (2_000, 8_000),
    Category.D: (500, 4_000),
    Category.E: (50, 3_000),
    Category.F: (2, 1_000),
}
"""The participant anti-scan bucket by category: (refill a minute, size)."""
USER_CAPACITY = {True: 100, False: 1_000}
"""The user anti-scan buckets' size, natural person (True) or legal person."""

POLICIES = {
    PolicyName.ENTRIES_WRITE: Policy(PolicyName.ENTRIES_WRITE, 1_200, MINUTE, 36_000),
    PolicyName.KEYS_CHECK: Policy(PolicyName.KEYS_CHECK, 70, MINUTE, 70),
    PolicyName.POLICIES_READ: Policy(PolicyName.POLICIES_READ, 60, MINUTE, 200),
    PolicyName.POLICIES_LIST: Policy(PolicyName.POLICIES_LIST, 6, MINUTE, 20),
    PolicyName.CLAIMS_READ: Policy(PolicyName.CLAIMS_READ, 600, MINUTE, 18_000),
    PolicyName.CLAIMS_WRITE: Policy(PolicyName.CLAIMS_WRITE, 1_200, MINUTE, 36_000),
    PolicyName.CLAIMS_LIST_WITH_ROLE: Policy(PolicyName.CLAIMS_LIST_WITH_ROLE, 40, MINUTE, 200),
    PolicyName.CLAIMS_LIST_WITHOUT_ROLE: Policy(PolicyName.CLAIMS_LIST_WITHOUT_ROLE, 10, MINUTE, 50),
    PolicyName.INFRACTION_REPORTS_READ: Policy(PolicyName.INFRACTION_REPORTS_READ, 600, MINUTE, 18_000),
    PolicyName.INFRACTION_REPORTS_WRITE: Policy(PolicyName.INFRACTION_REPORTS_WRITE, 1_200, MINUTE, 36_000),
    PolicyName.INFRACTION_REPORTS_LIST_WITH_ROLE: Policy(
        PolicyName.INFRACTION_REPORTS_LIST_WITH_ROLE, 40, MINUTE, 200
    ),
    PolicyName.INFRACTION_REPORTS_LIST_WITHOUT_ROLE: Policy(
        PolicyName.INFRACTION_REPORTS_LIST_WITHOUT_ROLE, 10, MINUTE, 50
    ),
    PolicyName.REFUNDS_READ: Policy(PolicyName.REFUNDS_READ, 1_200, MINUTE, 36_000),
    PolicyName.REFUNDS_WRITE: Policy(PolicyName.REFUNDS_WRITE, 2_400, MINUTE, 72_000),
    PolicyName.REFUND_LIST_WITH_ROLE: Policy(PolicyName.REFUND_LIST_WITH_ROLE, 40, MINUTE, 200),
}
"""The participant-scoped policies of the operations this network serves, besides the anti-scan."""


def participant_antiscan(category: Category) -> Policy:
    refill, capacity = CATEGORIES[category]
    return Policy(PolicyName.ENTRIES_READ_PARTICIPANT_ANTISCAN, refill, MINUTE, capacity)


def user_antiscan(key_type: PixKeyType, payer_id: str) -> Policy:
    name = (
        PolicyName.ENTRIES_READ_USER_ANTISCAN
        if key_type in {PixKeyType.EMAIL, PixKeyType.PHONE}
        else PolicyName.ENTRIES_READ_USER_ANTISCAN_V2
    )
    return Policy(name, 2, MINUTE, USER_CAPACITY[len(payer_id) == 11])


@dataclass(slots=True)
class Bucket:
    policy: Policy
    tokens: int
    refilled_at: datetime

    def refill(self, now: datetime) -> None:
        """Add the whole tokens the time since the last refill gives, up to the capacity."""
        if self.tokens >= self.policy.capacity:
            self.refilled_at = now
            return
        due = int((now - self.refilled_at) / self.policy.period * self.policy.refill)
        if due > 0:
            self.tokens = min(self.policy.capacity, self.tokens + due)
            self.refilled_at += self.policy.period * due / self.policy.refill
            if self.tokens == self.policy.capacity:
                self.refilled_at = now


@dataclass
class Buckets:
    """Every bucket of the network, by policy and scope (the participant's ISPB, or the user's
    id at a participant), made full on first use."""

    now: Callable[[], datetime]
    categories: dict[str, Category] = field(default_factory=dict)
    """A participant's category (A when not set)."""
    _buckets: dict[tuple[PolicyName, str], Bucket] = field(default_factory=dict)

    def category(self, ispb: str) -> Category:
        return self.categories.get(ispb, Category.A)

    def bucket(self, policy: Policy, scope: str) -> Bucket:
        key = (policy.name, scope)
        found = self._buckets.get(key)
        now = self.now()
        if found is None or found.policy != policy:
            found = self._buckets[key] = Bucket(policy, policy.capacity, now)
        found.refill(now)
        return found

    def allows(self, buckets: list[Bucket]) -> bool:
        """Whether every one of ``buckets`` holds a token (else the request is RateLimited)."""
        return all(bucket.tokens > 0 for bucket in buckets)

    @staticmethod
    def take(buckets: list[tuple[Bucket, int]]) -> None:
        for bucket, cost in buckets:
            bucket.tokens -= cost

    def payment_sent(self, ispb: str, payer_id: str, key_type: PixKeyType | None) -> None:
        """A payment followed a look-up: a token back to the look-up's buckets (never past full)."""
        given = [self.bucket(participant_antiscan(self.category(ispb)), ispb)]
        if key_type is not None:
            given.append(self.bucket(user_antiscan(key_type, payer_id), f"{ispb}:{payer_id}"))
        for bucket in given:
            bucket.tokens = min(bucket.policy.capacity, bucket.tokens + 1)


def lookup_policies(
    buckets: Buckets, ispb: str, payer_id: str, key_type: PixKeyType
) -> tuple[list[Bucket], Callable[..., list[tuple[Bucket, int]]]]:
    """A look-up's buckets (the participant's and the user's), and its costs once answered: found
    (True) 1 and 1, not found 3 and 20."""
    participant = buckets.bucket(participant_antiscan(buckets.category(ispb)), ispb)
    user = buckets.bucket(user_antiscan(key_type, payer_id), f"{ispb}:{payer_id}")

    def costs(*, found: bool) -> list[tuple[Bucket, int]]:
        return [(participant, 1 if found else 3), (user, 1 if found else 20)]

    return [participant, user], costs
