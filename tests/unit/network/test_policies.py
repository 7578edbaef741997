"""The DICT's rate-limiting policies (``pixnet.directory.policies``): token buckets that refill at
their rate up to their size, the look-up's costs, and a payment giving a token back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pixcore.keys import PixKeyType
from pixnet.directory.policies import POLICIES, Buckets, Category, PolicyName, lookup_policies

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


def test_a_look_up_takes_one_found_and_three_and_twenty_when_nothing_is_found() -> None:
    buckets = Buckets(Clock())
    (participant, user), costs = lookup_policies(buckets, "11111111", "52998224725", PixKeyType.EMAIL)
    assert (participant.tokens, user.tokens) == (20_000, 100)  # category A; a natural person
    Buckets.take(costs(found=True))
    Buckets.take(costs(found=False))
    assert (participant.tokens, user.tokens) == (20_000 - 4, 100 - 21)
    assert user.policy.name is PolicyName.ENTRIES_READ_USER_ANTISCAN
    _, legal = lookup_policies(buckets, "11111111", "11222333000181", PixKeyType.CPF)[0]
    assert (legal.policy.name, legal.tokens) == (PolicyName.ENTRIES_READ_USER_ANTISCAN_V2, 1_000)


def test_an_empty_bucket_refuses_until_it_refills_at_its_rate_and_never_past_its_size() -> None:
    clock = Clock()
    buckets = Buckets(clock)
    checks = buckets.bucket(POLICIES[PolicyName.KEYS_CHECK], "11111111")  # 70 a minute, 70 at most
    Buckets.take([(checks, 71)])  # one more than it held: it owes one
    assert not buckets.allows([checks])
    clock.at += timedelta(seconds=1)  # 70 a minute: one token each 6/7 s
    assert buckets.bucket(POLICIES[PolicyName.KEYS_CHECK], "11111111").tokens == 0
    clock.at += timedelta(seconds=1)
    assert buckets.bucket(POLICIES[PolicyName.KEYS_CHECK], "11111111").tokens == 1
    assert buckets.allows([checks])
    clock.at += timedelta(hours=1)
    assert buckets.bucket(POLICIES[PolicyName.KEYS_CHECK], "11111111").tokens == 70


def test_the_participants_category_sets_its_anti_scan_bucket() -> None:
    buckets = Buckets(Clock(), categories={"22222222": Category.F})
    (participant, _), _ = lookup_policies(buckets, "22222222", "52998224725", PixKeyType.EVP)
    assert (participant.policy.capacity, participant.policy.refill) == (1_000, 2)


def test_a_payment_after_a_look_up_gives_a_token_back_but_never_past_full() -> None:
    buckets = Buckets(Clock())
    (participant, user), costs = lookup_policies(buckets, "11111111", "52998224725", PixKeyType.EMAIL)
    Buckets.take(costs(found=True))
    buckets.payment_sent("11111111", "52998224725", PixKeyType.EMAIL)
    assert (participant.tokens, user.tokens) == (20_000, 100)
    buckets.payment_sent("11111111", "52998224725", PixKeyType.EMAIL)
    assert (participant.tokens, user.tokens) == (20_000, 100)
