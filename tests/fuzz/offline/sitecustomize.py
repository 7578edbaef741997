"""Loaded by the fuzzed service's interpreter (its PYTHONPATH starts here): webhook hosts resolve
offline. IP literals resolve to themselves and ``localhost`` to 127.0.0.1; any other name resolves
to one public address (documentation's ``example.com``), so the host names the fuzzer generates
never become DNS queries and a well-formed URL of a named host is registered as it would be in
production. Nothing is sent to it: the fuzzed service runs no delivery (``PIX_WORKERS=0``)."""

from __future__ import annotations

import ipaddress

import pixinfra.dns

PUBLIC = "93.184.216.34"


async def _offline(self: pixinfra.dns.SystemResolver, host: str, port: int) -> list[str]:
    if host.lower() == "localhost":
        return ["127.0.0.1"]
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        return [PUBLIC]


pixinfra.dns.SystemResolver.resolve = _offline  # type: ignore[method-assign]
