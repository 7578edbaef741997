"""Abuse of the token endpoints (docs/decisions/token-rate-limits.md): rate limits per client id and
per address, 429 with ``Retry-After`` in each endpoint's error convention, and slow hashing bounded
so that a flood of token requests is refused at once instead of queueing without end."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.security.secrets import Argon2Hasher
from tests.e2e.conftest import Api, running_api
from tests.security.conftest import assert_error
from tests.support import Client, bearer, new_client

TOKEN = "/api/auth/token"
OAUTH = "/oauth/token"


def _settings(database_url: str, data_dir: Path, **changes: Any) -> Settings:
    return replace(Settings(database_url=database_url, data_dir=data_dir, run_workers=False), **changes)


@pytest.fixture
async def limited(migrated_database: str, tmp_path: Path) -> AsyncIterator[Api]:
    """Small limits, so that tests reach them quickly: 3 a minute per client id, 5 per address."""
    settings = _settings(migrated_database, tmp_path, token_rate_per_client=3, token_rate_per_address=5)
    async with running_api(settings, SystemClock()) as running:
        yield running


def _from(api: Api, address: str) -> httpx.AsyncClient:
    """Another HTTP client on the same running app, as seen from ``address``."""
    assert api.app is not None
    transport = httpx.ASGITransport(app=api.app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000")


async def _attempt(http: httpx.AsyncClient, client: Client, secret: str | None = None) -> httpx.Response:
    credentials = client.credentials | ({"clientSecret": secret} if secret is not None else {})
    return await http.post(TOKEN, json=credentials, headers={"X-SSL-Client-Cert": client.cert_header})


def _retry_after(response: httpx.Response) -> int:
    value = int(response.headers["retry-after"])
    assert 1 <= value <= 60
    return value


# -- per client id ------------------------------------------------------------------------


async def test_a_client_id_over_its_limit_is_refused_with_429_and_retry_after(
    pg_uow: UnitOfWorkFactory, limited: Api
) -> None:
    victim, bystander = await new_client(pg_uow), await new_client(pg_uow)
    for _ in range(3):  # failed attempts count
        assert_error(await _attempt(limited.client, victim, secret="wrong"), 401)

    refused = await _attempt(limited.client, victim)  # even with the right secret now

    body = assert_error(refused, 429, reasons=("Too Many Requests",))
    assert "client id" in body["message"]
    assert _retry_after(refused) >= 1
    assert "access_token" not in refused.text
    ok = await _attempt(limited.client, bystander)  # same address, another client id: not limited
    assert ok.status_code == 201, ok.text


def test_the_limits_are_on_by_default() -> None:
    settings = Settings()
    assert (settings.token_rate_per_client, settings.token_rate_per_address) == (10, 60)
    assert (settings.hash_slots, settings.hash_queue) == (2, 16)


async def test_the_oauth_endpoint_shares_the_limit_and_answers_slow_down(
    pg_uow: UnitOfWorkFactory, limited: Api
) -> None:
    client = await new_client(pg_uow)
    for _ in range(3):
        assert (await _attempt(limited.client, client, secret="wrong")).status_code == 401

    form = {"grant_type": "client_credentials"} | {
        "client_id": client.opened.client_id,
        "client_secret": client.opened.client_secret,
    }
    refused = await limited.client.post(OAUTH, data=form, headers={"X-SSL-Client-Cert": client.cert_header})

    assert refused.status_code == 429, refused.text
    body = refused.json()
    assert set(body) == {"error", "error_description", "statusCode", "message"}
    assert body["error"] == "slow_down"
    assert body["statusCode"] == 429
    assert body["error_description"] == body["message"]
    assert refused.headers["cache-control"] == "no-store"
    _retry_after(refused)


async def test_the_client_id_limit_holds_from_every_address(pg_uow: UnitOfWorkFactory, limited: Api) -> None:
    client = await new_client(pg_uow)
    addresses = ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]
    statuses = []
    for address in addresses:
        async with _from(limited, address) as http:
            statuses.append((await _attempt(http, client, secret="wrong")).status_code)
    assert statuses == [401, 401, 401, 429]


# -- per address -----------------------------------------------------------------------------


async def test_an_address_is_limited_whatever_client_ids_it_tries(
    pg_uow: UnitOfWorkFactory, limited: Api
) -> None:
    victim = await new_client(pg_uow)
    async with _from(limited, "203.0.113.66") as attacker:
        for index in range(5):
            made_up = {"clientId": f"pix_guess{index}", "clientSecret": "guess"}
            response = await attacker.post(
                TOKEN, json=made_up, headers={"X-SSL-Client-Cert": victim.cert_header}
            )
            assert_error(response, 401)

        refused = await attacker.post(
            TOKEN, json={"clientId": "pix_guess5", "clientSecret": "guess"}, headers={}
        )  # refused before anything else is read: even a request without its certificate
        body = assert_error(refused, 429)
        assert "address" in body["message"]
        _retry_after(refused)
        oauth = await attacker.post(OAUTH, data={"grant_type": "client_credentials"})
        assert oauth.status_code == 429, oauth.text
        assert oauth.json()["error"] == "slow_down"

    ok = await _attempt(limited.client, victim)  # from another address: not limited
    assert ok.status_code == 201, ok.text


async def test_a_client_that_asks_for_a_token_now_and_then_is_not_limited(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    for _ in range(5):
        await bearer(api.client, client)  # the default limits: 10 a minute per client id


# -- bounded hashing -------------------------------------------------------------------------


class Gate:
    """Holds every Argon2 check until released; counts how many ran at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def wrap(
        self, verify: Callable[[Argon2Hasher, str, str], bool]
    ) -> Callable[[Argon2Hasher, str, str], bool]:
        def gated(hasher: Argon2Hasher, secret_hash: str, secret: str) -> bool:
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
            try:
                self.release.wait(30)
                return verify(hasher, secret_hash, secret)
            finally:
                with self.lock:
                    self.running -= 1

        return gated


async def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


async def test_a_flood_of_token_requests_is_refused_at_once_beyond_a_short_queue(
    pg_uow: UnitOfWorkFactory, migrated_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    monkeypatch.setattr(Argon2Hasher, "verify", gate.wrap(Argon2Hasher.verify))
    settings = _settings(
        migrated_database,
        tmp_path,
        hash_slots=1,
        hash_queue=2,
        token_rate_per_client=0,  # no rate limit: this is a flood from everywhere
        token_rate_per_address=0,
    )
    client = await new_client(pg_uow)
    async with running_api(settings, SystemClock()) as api:
        assert api.app is not None
        verifier = api.app.state.services.verifier
        auth = await bearer_without_gate(api, client, gate)
        flood = [asyncio.create_task(_attempt(api.client, client, secret=f"wrong{i}")) for i in range(12)]
        await _until(lambda: sum(task.done() for task in flood) == 9)  # 1 hashing + 2 waiting; 9 refused

        assert (gate.running, verifier.admitted) == (1, 3)
        refused = [task.result() for task in flood if task.done()]
        for response in refused:
            assert_error(response, 503, reasons=("Service Unavailable",))
            assert _retry_after(response) == 1
        balance = await api.client.get("/balance", headers=auth)  # the rest of the API still answers
        assert balance.status_code == 200, balance.text

        gate.release.set()
        rest = await asyncio.gather(*flood)
    assert sorted(response.status_code for response in rest) == [401] * 3 + [503] * 9
    assert gate.most == 1


async def bearer_without_gate(api: Api, client: Client, gate: Gate) -> dict[str, str]:
    """A token for ``client`` before the flood, letting its one check through the gate."""
    gate.release.set()
    try:
        return await bearer(api.client, client)
    finally:
        gate.release.clear()
