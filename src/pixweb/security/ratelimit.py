"""Rate limits of the token endpoints and the console sign-in (docs/decisions/token-rate-limits.md).

Token buckets, one per key: a bucket holds at most ``per_minute`` attempts and
refills at ``per_minute`` per minute, so a caller may spend a burst of that many
at once and then one every ``60 / per_minute`` seconds. Every attempt counts,
failed ones included; an attempt over the limit is refused with the seconds to
wait until the next one would pass (``Retry-After``).

Two limits. Per client address, met first. Per client id *and what the request
presents*, met once the certificate has been checked against the client's (never
before, so that nobody else can spend a client's budget):

* the client's own certificate (linked to its account, not revoked, valid now):
  a bucket of that client id and fingerprint, which only the holder of the
  certificate spends;
* any other certificate: one bucket per client id for all of them (self-signed
  certificates cost nothing to make, so a bucket each would bound nothing); it
  keeps the Argon2 checks a stranger can cause per client id where they were;
* no certificate (the console sign-in with ``PIX_REQUIRE_CLIENT_CERT`` off): a
  bucket of that client id and address, the one thing that tells callers apart.

The buckets live in the process (``pixweb serve``): N processes behind a balancer
allow up to N times the limit. That is the resource they protect: each process's
CPU, which Argon2 spends (``pixweb.security.hashing`` bounds it further). Client
ids are kept as digests (a client id of a megabyte costs 16 bytes), and at most
``MAX_KEYS`` keys are remembered per limit, the least recently seen forgotten first.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable

from pixcore.errors import TooManyRequests

__all__ = ["MAX_KEYS", "TokenBuckets", "TokenRateLimits"]

MAX_KEYS = 100_000


class TokenBuckets:
    """One limit: ``per_minute`` attempts per key (0: no limit)."""

    def __init__(
        self, per_minute: int, *, now: Callable[[], float] = time.monotonic, max_keys: int = MAX_KEYS
    ) -> None:
        if per_minute < 0:
            raise ValueError("a rate limit is at least 0 (0: none)")
        self.per_minute = per_minute
        self._now = now
        self._max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (level, at)

    def take(self, key: str) -> float:
        """Spend one attempt of ``key``: 0.0 if it passes, else the seconds until one would."""
        if self.per_minute == 0:
            return 0.0
        now = self._now()
        rate = self.per_minute / 60.0
        level, at = self._buckets.pop(key, (float(self.per_minute), now))
        level = min(float(self.per_minute), level + (now - at) * rate)
        wait = 0.0
        if level >= 1.0:
            level -= 1.0
        else:
            wait = (1.0 - level) / rate
        self._buckets[key] = (level, now)  # most recently seen last
        if len(self._buckets) > self._max_keys:
            self._buckets.popitem(last=False)
        return wait


class TokenRateLimits:
    """The two limits of the token endpoints; each check raises ``TooManyRequests``."""

    def __init__(
        self, *, per_client: int, per_address: int, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.clients = TokenBuckets(per_client, now=now)
        self.addresses = TokenBuckets(per_address, now=now)

    def check_address(self, address: str) -> None:
        _refuse(self.addresses.take(address), "this address")

    def check_certificate(self, client_id: str, fingerprint: str, *, own: bool) -> None:
        """An attempt with a certificate: ``own`` when it is the client's linked certificate, in
        force (then the bucket of this client id and fingerprint), else the bucket this client id's
        other certificates share."""
        key = f"{_digest(client_id)} {fingerprint if own else 'other'}"
        _refuse(self.clients.take(key), "this client id")

    def check_without_certificate(self, client_id: str, address: str) -> None:
        """An attempt with no certificate (the console in development): this client id from this address."""
        _refuse(self.clients.take(f"{_digest(client_id)} @{address}"), "this client id")


def _digest(client_id: str) -> str:
    return hashlib.blake2b(client_id.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _refuse(wait: float, whom: str) -> None:
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise TooManyRequests(
            f"Too many token requests from {whom}: retry in {seconds} s.", retry_after=seconds
        )
