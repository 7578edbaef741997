"""Every kind of address a webhook may not reach, one example (or a few spellings) per range, and
public controls: the table of the pure rule's unit tests and of the SSRF tests (registration and
the notifier's connect-time check)."""

from __future__ import annotations

NON_GLOBAL: dict[str, list[str]] = {
    "IPv4 loopback": ["127.0.0.1", "127.255.255.254"],
    "IPv4 private (RFC 1918)": ["10.0.0.1", "172.16.0.1", "192.168.1.1"],
    "IPv4 link-local, cloud metadata": ["169.254.169.254"],
    "IPv4 shared address space, CGNAT (100.64.0.0/10)": ["100.64.0.1", "100.127.255.254"],
    "IPv4 this network and unspecified": ["0.0.0.0", "0.1.2.3"],  # noqa: S104 - an address, not a bind
    "IPv4 IETF protocol assignments (192.0.0.0/24)": ["192.0.0.8"],
    "IPv4 documentation TEST-NET-1": ["192.0.2.1"],
    "IPv4 documentation TEST-NET-2": ["198.51.100.7"],
    "IPv4 documentation TEST-NET-3": ["203.0.113.9"],
    "IPv4 benchmarking (198.18.0.0/15)": ["198.18.0.1", "198.19.255.254"],
    "IPv4 deprecated 6to4 relay anycast": ["192.88.99.1"],
    "IPv4 multicast": ["224.0.0.1", "239.255.255.250"],
    "IPv4 reserved and broadcast": ["240.0.0.1", "255.255.255.255"],
    "IPv6 loopback and unspecified": ["::1", "::"],
    "IPv6 unique local": ["fc00::1", "fd00:ec2::254"],
    "IPv6 link-local": ["fe80::1", "fe80::1%eth0"],
    "IPv6 site-local (deprecated)": ["fec0::1"],
    "IPv6 multicast": ["ff02::1", "ff0e::1"],
    "IPv6 documentation 2001:db8::/32": ["2001:db8::1"],
    "IPv6 documentation 3fff::/20": ["3fff::1", "3fff:fff:ffff::1"],
    "IPv6 benchmarking 2001:2::/48": ["2001:2::1"],
    "IPv6 discard-only 100::/64": ["100::1"],
    "IPv6 reserved by the IETF": ["4000::1", "e000::1"],
    "IPv6 SRv6 segment identifiers 5f00::/16": ["5f00::1"],
    "Teredo 2001::/32": ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"],
    "IPv4-mapped loopback and private": ["::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1"],
    "IPv4-mapped metadata": ["::ffff:169.254.169.254"],
    "IPv4-translated (RFC 2765) loopback": ["::ffff:0:7f00:1", "::ffff:0:127.0.0.1"],
    "IPv4-translated private and metadata": ["::ffff:0:a00:1", "::ffff:0:a9fe:a9fe"],
    "IPv4-compatible (deprecated), even of a public address": ["::127.0.0.1", "::8.8.8.8"],
    "6to4 of a private IPv4": ["2002:c0a8:101::1", "2002:a00:1::"],
    "6to4 of loopback": ["2002:7f00:1::"],
    "NAT64 64:ff9b::/96 of a private IPv4": ["64:ff9b::a00:1", "64:ff9b::10.0.0.1"],
    "NAT64 64:ff9b::/96 of loopback, metadata and CGNAT": [
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b::100.64.0.1",
    ],
    "NAT64 local-use 64:ff9b:1::/48, of anything": ["64:ff9b:1::808:808", "64:ff9b:1::a00:1"],
}
"""Range -> addresses in it, each of which is not public."""

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "2606:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",  # mapped: judged by the IPv4 inside
    "::ffff:0:808:808",  # translated, likewise
    "2002:808:808::1",  # 6to4 of a public address
    "64:ff9b::808:808",  # NAT64 of a public address
]
"""Controls: the rule is not a blanket refusal."""
