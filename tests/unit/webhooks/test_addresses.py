"""The one rule of which addresses may receive a webhook (``pixcore.webhooks.addresses``)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.webhooks.addresses import embedded_ipv4, is_public_address
from tests.address_ranges import NON_GLOBAL, PUBLIC

CASES = [(name, address) for name, addresses in NON_GLOBAL.items() for address in addresses]


@pytest.mark.parametrize(("name", "address"), CASES, ids=[f"{name}: {address}" for name, address in CASES])
def test_every_non_global_range_is_not_public(name: str, address: str) -> None:
    assert not is_public_address(address), name


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_public(address: str) -> None:
    assert is_public_address(address)


_ipv4 = st.integers(min_value=0, max_value=2**32 - 1).map(ipaddress.IPv4Address)


def _spellings(ip: ipaddress.IPv4Address) -> list[ipaddress.IPv6Address]:
    """The IPv6 addresses that carry ``ip`` for routing: mapped, translated, 6to4, NAT64."""
    value = int(ip)
    return [
        ipaddress.IPv6Address((0xFFFF << 32) | value),
        ipaddress.IPv6Address((0xFFFF << 48) | value),
        ipaddress.IPv6Address((0x2002 << 112) | (value << 80) | 1),
        ipaddress.IPv6Address((0x64FF9B << 96) | value),
    ]


@given(_ipv4)
def test_an_ipv4_address_is_judged_alike_in_every_ipv6_spelling(ip: ipaddress.IPv4Address) -> None:
    verdict = is_public_address(str(ip))
    for spelling in _spellings(ip):
        assert embedded_ipv4(spelling) == ip, spelling
        assert is_public_address(str(spelling)) is verdict, spelling
        assert is_public_address(spelling.exploded) is verdict, spelling.exploded


@given(_ipv4)
def test_the_local_use_nat64_prefix_and_teredo_are_never_public(ip: ipaddress.IPv4Address) -> None:
    local_nat64 = ipaddress.IPv6Address((0x0064FF9B0001 << 80) | int(ip))
    teredo = ipaddress.IPv6Address((0x20010000 << 96) | (int(ip) << 64) | (0xFFFF << 32) | int(ip))
    assert not is_public_address(str(local_nat64))
    assert not is_public_address(str(teredo))


def test_the_ipv4_translated_loopback_of_the_issue() -> None:
    assert embedded_ipv4(ipaddress.IPv6Address("::ffff:0:7f00:1")) == ipaddress.IPv4Address("127.0.0.1")
    assert not is_public_address("::ffff:0:7f00:1")


def test_not_an_address_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="does not appear to be an IPv4 or IPv6 address"):
        is_public_address("hook.example")
