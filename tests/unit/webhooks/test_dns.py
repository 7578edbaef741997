"""The one system resolver: registration's view (sorted, empty when it fails) and the notifier's
(the resolver's order, each address once, failures raised) come from the same lookup."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from pixcore.webhooks.ports import HostResolver
from pixinfra.dns import SystemResolver
from pixnotify.transport import system_resolver

TABLE = {"hooks.example.com": ["203.0.113.9", "2001:db8::1", "198.51.100.7", "203.0.113.9"]}


def _info(address: str, port: int) -> tuple[Any, ...]:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return (family, socket.SOCK_STREAM, 6, "", (address, port))


@pytest.fixture
async def fake_dns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The event loop's ``getaddrinfo`` answers from ``TABLE``; returns the names it was asked."""
    asked: list[str] = []

    async def getaddrinfo(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        asked.append(host)
        if host == "slow.example.com":
            await asyncio.sleep(1)
        if host not in TABLE:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [_info(address, port) for address in TABLE[host]]

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
    return asked


def test_it_is_the_registration_port() -> None:
    resolver: HostResolver = SystemResolver()
    assert isinstance(resolver, SystemResolver)


async def test_addresses_keep_the_resolver_order_each_once(fake_dns: list[str]) -> None:
    found = await SystemResolver().addresses("hooks.example.com", 443)
    assert found == ["203.0.113.9", "2001:db8::1", "198.51.100.7"]


async def test_registration_sees_them_sorted(fake_dns: list[str]) -> None:
    found = await SystemResolver().resolve("hooks.example.com", 443)
    assert found == ["198.51.100.7", "2001:db8::1", "203.0.113.9"]


async def test_a_name_that_does_not_resolve_is_an_error_for_a_connection(fake_dns: list[str]) -> None:
    with pytest.raises(OSError, match="not known"):
        await SystemResolver().addresses("nowhere.example.com", 443)


async def test_and_no_address_for_registration(fake_dns: list[str]) -> None:
    assert await SystemResolver().resolve("nowhere.example.com", 443) == []


async def test_registration_gives_up_after_its_timeout(fake_dns: list[str]) -> None:
    assert await SystemResolver(timeout=0.01).resolve("slow.example.com", 443) == []


async def test_the_notifier_resolves_with_the_same_lookup(fake_dns: list[str]) -> None:
    assert await system_resolver("hooks.example.com", 443) == ["203.0.113.9", "2001:db8::1", "198.51.100.7"]
    assert fake_dns == ["hooks.example.com"]
