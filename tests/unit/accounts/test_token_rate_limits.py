"""The token endpoints' rate limits as token buckets, on a clock the test moves: per address, and
per client id and what the request presents (its own certificate, another, none)."""

from __future__ import annotations

import contextlib

import pytest

from pixcore.errors import TooManyRequests
from pixweb.security.ratelimit import TokenBuckets, TokenRateLimits

OWN = "a1" * 32  # the fingerprint of the client's linked certificate
STRANGER = "b2" * 32  # a self-signed certificate of somebody else


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_up_to_the_limit_passes_and_the_next_attempt_waits() -> None:
    clock = Clock()
    buckets = TokenBuckets(6, now=clock)  # 6 a minute: one every 10 s once the burst is spent

    assert [buckets.take("a") for _ in range(6)] == [0.0] * 6
    assert buckets.take("a") == pytest.approx(10.0)
    clock.now += 4
    assert buckets.take("a") == pytest.approx(6.0)  # refused attempts spend nothing
    clock.now += 6
    assert buckets.take("a") == 0.0
    assert buckets.take("a") == pytest.approx(10.0)


def test_keys_are_limited_apart() -> None:
    buckets = TokenBuckets(2, now=Clock())
    assert [buckets.take("a"), buckets.take("a")] == [0.0, 0.0]
    assert buckets.take("a") > 0
    assert buckets.take("b") == 0.0


def test_a_client_that_asks_every_few_minutes_is_never_limited() -> None:
    clock = Clock()
    limits = TokenRateLimits(per_client=10, per_address=60, now=clock)
    for _ in range(1000):
        limits.check_address("203.0.113.7")
        limits.check_certificate("pix_0123", OWN, own=True)
        clock.now += 120


def test_zero_means_no_limit() -> None:
    buckets = TokenBuckets(0, now=Clock())
    assert all(buckets.take("a") == 0.0 for _ in range(10_000))


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        TokenBuckets(-1)


def test_the_refusal_says_when_to_retry_in_whole_seconds() -> None:
    clock = Clock()
    limits = TokenRateLimits(per_client=3, per_address=0, now=clock)
    for _ in range(3):
        limits.check_certificate("pix_x", OWN, own=True)

    with pytest.raises(TooManyRequests) as caught:
        limits.check_certificate("pix_x", OWN, own=True)

    assert caught.value.retry_after == 20  # 3 a minute: the next one in 20 s
    assert "client id" in caught.value.message
    clock.now += 19.5
    with pytest.raises(TooManyRequests) as again:
        limits.check_certificate("pix_x", OWN, own=True)
    assert again.value.retry_after == 1  # never 0: rounded up
    clock.now += 0.5
    limits.check_certificate("pix_x", OWN, own=True)


def test_the_address_limit_is_its_own() -> None:
    limits = TokenRateLimits(per_client=0, per_address=2, now=Clock())
    limits.check_address("198.51.100.1")
    limits.check_address("198.51.100.1")
    with pytest.raises(TooManyRequests, match="address"):
        limits.check_address("198.51.100.1")
    limits.check_address("198.51.100.2")


def test_memory_is_bounded_by_forgetting_the_least_recently_seen() -> None:
    clock = Clock()
    buckets = TokenBuckets(1, now=clock, max_keys=3)
    for key in ("a", "b", "c"):
        assert buckets.take(key) == 0.0
    assert buckets.take("a") > 0  # "a" is now the most recently seen
    assert buckets.take("d") == 0.0  # "b" is forgotten
    assert buckets.take("a") > 0
    assert buckets.take("b") == 0.0  # a fresh bucket again


def test_client_ids_of_any_size_or_text_are_keys() -> None:
    limits = TokenRateLimits(per_client=1, per_address=0, now=Clock())
    limits.check_certificate("x" * 1_000_000, STRANGER, own=False)
    limits.check_certificate("\udcff surrogate", STRANGER, own=False)  # as surrogateescape would hand it on
    limits.check_without_certificate("\udcff surrogate", "198.51.100.1")
    with pytest.raises(TooManyRequests):
        limits.check_certificate("x" * 1_000_000, STRANGER, own=False)


# -- who spends which budget ------------------------------------------------------------------


def test_other_certificates_never_spend_the_client_s_own_certificate_s_budget() -> None:
    limits = TokenRateLimits(per_client=3, per_address=0, now=Clock())
    for index in range(100):  # a stranger's guesses, each with a new self-signed certificate
        with contextlib.suppress(TooManyRequests):
            limits.check_certificate("pix_victim", f"{index:064x}", own=False)
    for _ in range(50):  # nor attempts with none (the console in development)
        with contextlib.suppress(TooManyRequests):
            limits.check_without_certificate("pix_victim", "203.0.113.66")

    for _ in range(3):
        limits.check_certificate("pix_victim", OWN, own=True)  # the client's whole burst is its own
    with pytest.raises(TooManyRequests, match="client id"):
        limits.check_certificate("pix_victim", OWN, own=True)  # and it is still a limit


def test_a_client_id_s_other_certificates_share_one_budget() -> None:
    """Certificates cost nothing to make: a new one buys a stranger no new attempts."""
    limits = TokenRateLimits(per_client=3, per_address=0, now=Clock())
    for index in range(3):
        limits.check_certificate("pix_victim", f"{index:064x}", own=False)
    with pytest.raises(TooManyRequests, match="client id"):
        limits.check_certificate("pix_victim", STRANGER, own=False)
    limits.check_certificate("pix_other", STRANGER, own=False)  # another client id: its own budget


def test_the_own_budget_is_per_certificate() -> None:
    limits = TokenRateLimits(per_client=1, per_address=0, now=Clock())
    limits.check_certificate("pix_x", OWN, own=True)
    limits.check_certificate("pix_x", STRANGER, own=True)  # a second linked certificate
    with pytest.raises(TooManyRequests):
        limits.check_certificate("pix_x", OWN, own=True)


def test_without_a_certificate_the_budget_is_the_client_id_s_from_that_address() -> None:
    limits = TokenRateLimits(per_client=2, per_address=0, now=Clock())
    for _ in range(2):
        limits.check_without_certificate("pix_x", "203.0.113.66")
    with pytest.raises(TooManyRequests, match="client id"):
        limits.check_without_certificate("pix_x", "203.0.113.66")
    limits.check_without_certificate("pix_x", "198.51.100.7")  # the client, elsewhere
    limits.check_certificate("pix_x", STRANGER, own=False)  # none of the certificate budgets
