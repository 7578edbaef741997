"""Which IP addresses may receive a webhook: the one rule of registration (``pixcore.webhooks.rules``)
and of the notifier's connect-time check (``pixnotify.transport``).

An address is public when it is globally routable unicast (``ipaddress``'s ``is_global``, not
multicast, not reserved), once every IPv4 address written inside an IPv6 one has been taken out
and judged instead, whatever the spelling:

- IPv4-mapped ``::ffff:a.b.c.d`` (RFC 4291) and IPv4-translated ``::ffff:0:a.b.c.d`` (RFC 2765);
- 6to4 ``2002:AABB:CCDD::/48`` (RFC 3056), whose relay reaches the IPv4 inside;
- NAT64 with the well-known prefix ``64:ff9b::/96`` (RFC 6052), whose gateway does too.

Some prefixes are never public, whatever they carry, and are named here because the Python that
runs the service may be older than their registration (Python 3.11 counts several as global):
the local-use NAT64 prefix (translation to anything), Teredo (the IPv4 inside is obfuscated and a
relay reaches it), the deprecated IPv4-compatible form (``::a.b.c.d``), the IPv6 documentation
prefix ``3fff::/20`` (RFC 9637), SRv6 segment identifiers, site-local IPv6, the IETF's protocol
assignments ``192.0.0.0/24`` and the deprecated 6to4 relay anycast.
"""

from __future__ import annotations

import ipaddress

__all__ = ["NEVER_PUBLIC", "embedded_ipv4", "is_public_address"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")

NEVER_PUBLIC: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = (
    ipaddress.IPv6Network("64:ff9b:1::/48"),  # RFC 8215: local-use NAT64
    ipaddress.IPv6Network("2001::/32"),  # RFC 4380: Teredo
    ipaddress.IPv6Network("::/96"),  # RFC 4291 §2.5.5.1: IPv4-compatible, deprecated (and :: and ::1)
    ipaddress.IPv6Network("3fff::/20"),  # RFC 9637: documentation
    ipaddress.IPv6Network("5f00::/16"),  # RFC 9602: SRv6 segment identifiers
    ipaddress.IPv6Network("fec0::/10"),  # RFC 3879: site-local, deprecated
    ipaddress.IPv4Network("192.0.0.0/24"),  # RFC 6890: IETF protocol assignments (anycast services at most)
    ipaddress.IPv4Network("192.88.99.0/24"),  # RFC 7526: deprecated 6to4 relay anycast
)
"""Prefixes refused whatever they carry (see the module's docstring)."""


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries for routing (mapped, translated, 6to4, NAT64)."""
    if (inner := ip.ipv4_mapped or ip.sixtofour) is not None:
        return inner
    if ip in _IPV4_TRANSLATED or ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public_address(address: str | IPAddress) -> bool:
    """True for a globally routable unicast address, judged by the IPv4 address it carries if it
    carries one; False for every other (loopback, private, link-local, shared, documentation,
    benchmarking, multicast, reserved, unspecified). ``ValueError`` if it is no IP address."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id is not None:
        return False  # a zone index: a link-local address of one of this machine's interfaces
    if any(ip in network for network in NEVER_PUBLIC if network.version == ip.version):
        return False
    if isinstance(ip, ipaddress.IPv6Address) and (inner := embedded_ipv4(ip)) is not None:
        return is_public_address(inner)
    return ip.is_global and not ip.is_multicast and not ip.is_reserved
