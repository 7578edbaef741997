"""The contract of ``HostResolver`` (webhook registration's name resolution), on the fake
``StaticResolver`` and on the operating system's resolver (``pixinfra.dns.SystemResolver``).

No test needs the network: the system resolver is asked only for ``localhost`` (the hosts file),
IP literals (no look-up at all) and names under ``.invalid`` (RFC 2606), which never resolve
(whether a DNS server answers that, or none is reachable, or the look-up times out: the answer is
empty in every case). The fake's table holds ``localhost`` as a hosts file may list it: in another
case, out of order, an address twice.
"""

from __future__ import annotations

import ipaddress

import pytest

from pixcore.testing import StaticResolver
from pixcore.webhooks.ports import HostResolver
from pixinfra.dns import SystemResolver


@pytest.fixture(params=["static", "system"])
def resolver(request: pytest.FixtureRequest) -> HostResolver:
    if request.param == "static":
        return StaticResolver({"LocalHost": ["::1", "127.0.0.1", "::1"]})
    return SystemResolver(timeout=3.0)


async def test_localhost_resolves_to_loopback_sorted_each_address_once(resolver: HostResolver) -> None:
    found = await resolver.resolve("localhost", 443)
    assert "127.0.0.1" in found
    assert found == sorted(set(found))
    assert all(ipaddress.ip_address(address).is_loopback for address in found)


@pytest.mark.parametrize("spelled", ["LOCALHOST", "LocalHost", "localHOST"])
async def test_a_name_resolves_the_same_in_any_case(resolver: HostResolver, spelled: str) -> None:
    assert await resolver.resolve(spelled, 443) == await resolver.resolve("localhost", 443) != []


async def test_the_port_does_not_change_the_answer(resolver: HostResolver) -> None:
    assert await resolver.resolve("localhost", 80) == await resolver.resolve("localhost", 8443) != []


@pytest.mark.parametrize(
    ("literal", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("203.0.113.7", "203.0.113.7"),
        ("::1", "::1"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("2001:DB8::A", "2001:db8::a"),
        ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),  # an IPv4-mapped address keeps its IPv4 dotted
        ("::FFFF:C000:201", "::ffff:192.0.2.1"),
    ],
)
async def test_an_ip_literal_resolves_to_itself_in_its_canonical_form(
    resolver: HostResolver, literal: str, address: str
) -> None:
    assert await resolver.resolve(literal, 443) == [address]


@pytest.mark.parametrize(
    "name",
    [
        "nothing-here.invalid",
        "3f9c2a7e5b1d4e8fa06c9b2d7e4f1a35.invalid",  # random-looking (fixed: xdist workers collect alike)
        "NOTHING-HERE.INVALID",
        "hooks.example.invalid",
        "a" * 64 + ".invalid",  # a label longer than DNS allows
        "[::1]",  # a URL's bracketed IPv6 host is no name
    ],
)
async def test_a_name_that_does_not_exist_resolves_to_nothing(resolver: HostResolver, name: str) -> None:
    assert await resolver.resolve(name, 443) == []
