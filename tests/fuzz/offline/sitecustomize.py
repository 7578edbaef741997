"""Loaded by the fuzzed service's interpreter (its PYTHONPATH starts here): webhook hosts resolve
offline. IP literals resolve to themselves and ``localhost`` to 127.0.0.1; any other name resolves
to nothing, so the random host names the fuzzer generates never become DNS queries."""

from __future__ import annotations

import ipaddress

import pixinfra.dns


async def _offline(self: pixinfra.dns.SystemResolver, host: str, port: int) -> list[str]:
    if host.lower() == "localhost":
        return ["127.0.0.1"]
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        return []


pixinfra.dns.SystemResolver.resolve = _offline  # type: ignore[method-assign]
