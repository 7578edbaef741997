"""A stranger who knows a client id cannot lock the client out of its tokens or of the console.

The attack: many wrong secrets for the client id, from a dozen addresses, each with a
self-signed certificate (or none, at the console in development). The client's budget is
keyed by its client id and its own linked certificate, taken only once the certificate is
known to be that: the attack spends the budget the client id's other certificates share,
and the client, with its secret and certificate from its own address, still gets its token
or its session. The attacker stays limited, per address and per client id.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.security.certificates import create_self_signed
from tests.e2e.conftest import Api, running_api
from tests.security.conftest import assert_error
from tests.support import Client, certificate_header, new_client

TOKEN = "/api/auth/token"
OAUTH = "/oauth/token"
PER_CLIENT, PER_ADDRESS = 3, 5
ATTACKERS = [f"203.0.113.{number}" for number in range(1, 13)]  # a dozen addresses
CLIENT_ADDRESS = "192.0.2.10"  # the client's own, none of the attackers'
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def _settings(database_url: str, data_dir: Path, **changes: Any) -> Settings:
    settings = Settings(
        database_url=database_url,
        data_dir=data_dir,
        run_workers=False,
        token_rate_per_client=PER_CLIENT,
        token_rate_per_address=PER_ADDRESS,
    )
    return replace(settings, **changes)


@pytest.fixture
async def limited(migrated_database: str, tmp_path: Path) -> AsyncIterator[Api]:
    """Small limits (3 a minute per client id, 5 per address), client certificates optional."""
    async with running_api(_settings(migrated_database, tmp_path), SystemClock()) as running:
        yield running


@pytest.fixture
async def strict(migrated_database: str, tmp_path: Path) -> AsyncIterator[Api]:
    """The same limits with ``PIX_REQUIRE_CLIENT_CERT`` on, as in production mode."""
    settings = _settings(migrated_database, tmp_path, require_client_cert=True)
    async with running_api(settings, SystemClock()) as running:
        yield running


def _from(api: Api, address: str) -> httpx.AsyncClient:
    """An HTTP client on the running app, seen from ``address``."""
    assert api.app is not None
    transport = httpx.ASGITransport(app=api.app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000")


def _self_signed() -> str:
    """The header of a new self-signed certificate: what any stranger can make."""
    _, pem, _ = create_self_signed("attacker")
    return certificate_header(pem)


async def _token(
    http: httpx.AsyncClient, path: str, client_id: str, secret: str, cert: str
) -> httpx.Response:
    headers = {"X-SSL-Client-Cert": cert}
    if path == OAUTH:
        form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
        return await http.post(OAUTH, data=form, headers=headers)
    return await http.post(TOKEN, json={"clientId": client_id, "clientSecret": secret}, headers=headers)


async def _sign_in(
    http: httpx.AsyncClient, client_id: str, secret: str, cert: str | None = None
) -> httpx.Response:
    form = await http.get("/console/sign-in")
    assert form.status_code == 200, form.text
    found = CSRF.search(form.text)
    assert found is not None
    data = {"csrf": found.group(1), "client_id": client_id, "client_secret": secret}
    return await http.post("/console/sign-in", data=data, headers={"X-SSL-Client-Cert": cert} if cert else {})


def _assert_attack_was_limited(statuses: Counter[int]) -> None:
    """Of the attack, the client id's budget for other certificates passed (401 each); the rest
    was refused before any secret was hashed (429)."""
    assert statuses == Counter({401: PER_CLIENT, 429: 2 * len(ATTACKERS) - PER_CLIENT}), statuses


# -- the token endpoints --------------------------------------------------------------------------


@pytest.mark.parametrize("path", [TOKEN, OAUTH])
async def test_wrong_secrets_with_self_signed_certificates_do_not_lock_the_client_out(
    pg_uow: UnitOfWorkFactory, limited: Api, path: str
) -> None:
    victim = await new_client(pg_uow)
    statuses: Counter[int] = Counter()
    for address in ATTACKERS:
        async with _from(limited, address) as attacker:
            for guess in range(2):
                answer = await _token(
                    attacker, path, victim.opened.client_id, f"guess{guess}", _self_signed()
                )
                statuses[answer.status_code] += 1
    _assert_attack_was_limited(statuses)  # the client id was flooded past its limit

    async with _from(limited, CLIENT_ADDRESS) as own:
        issued = await _token(
            own, path, victim.opened.client_id, victim.opened.client_secret, victim.cert_header
        )

    assert issued.status_code == (201 if path == TOKEN else 200), issued.text
    assert issued.json()["access_token"]


async def test_the_attacker_stays_limited_per_client_id_whatever_certificate_it_makes(
    pg_uow: UnitOfWorkFactory, limited: Api
) -> None:
    victim = await new_client(pg_uow)
    async with _from(limited, ATTACKERS[0]) as attacker:
        for _ in range(PER_CLIENT):
            answer = await _token(attacker, TOKEN, victim.opened.client_id, "guess", _self_signed())
            assert_error(answer, 401)
    async with _from(limited, ATTACKERS[1]) as elsewhere:  # a new address, a new certificate
        refused = await _token(elsewhere, TOKEN, victim.opened.client_id, "guess", _self_signed())
        body = assert_error(refused, 429)
        assert "client id" in body["message"]
        # even the right secret is refused with a certificate that could not get a token anyway
        stolen = await _token(
            elsewhere, TOKEN, victim.opened.client_id, victim.opened.client_secret, _self_signed()
        )
        assert_error(stolen, 429)


async def test_the_attacker_stays_limited_per_address(pg_uow: UnitOfWorkFactory, limited: Api) -> None:
    victims = [await new_client(pg_uow) for _ in range(PER_ADDRESS + 1)]
    async with _from(limited, ATTACKERS[0]) as attacker:
        for victim in victims[:PER_ADDRESS]:  # one guess each: no client id's limit is reached
            answer = await _token(attacker, TOKEN, victim.opened.client_id, "guess", _self_signed())
            assert_error(answer, 401)
        refused = await _token(attacker, TOKEN, victims[-1].opened.client_id, "guess", _self_signed())
    body = assert_error(refused, 429)
    assert "address" in body["message"]


async def test_the_client_s_own_certificate_keeps_its_own_limit(
    pg_uow: UnitOfWorkFactory, limited: Api
) -> None:
    """The budget of the client's certificate is the client's: spent by whoever presents that
    certificate (behind the proxy, only its holder), from any address."""
    client = await new_client(pg_uow)
    for address in ATTACKERS[:PER_CLIENT]:
        async with _from(limited, address) as http:
            wrong = await _token(http, TOKEN, client.opened.client_id, "typo", client.cert_header)
            assert_error(wrong, 401)
    async with _from(limited, CLIENT_ADDRESS) as own:
        refused = await _token(
            own, TOKEN, client.opened.client_id, client.opened.client_secret, client.cert_header
        )
    assert_error(refused, 429)


# -- the console sign-in --------------------------------------------------------------------------


async def _attack_console(api: Api, victim: Client, *, certificates: bool, guesses: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    for address in ATTACKERS:
        async with _from(api, address) as attacker:
            for guess in range(guesses):
                cert = _self_signed() if certificates else None
                answer = await _sign_in(attacker, victim.opened.client_id, f"guess{guess}", cert)
                statuses[answer.status_code] += 1
    return statuses


async def _assert_signed_in(http: httpx.AsyncClient, signed: httpx.Response, victim: Client) -> None:
    assert (signed.status_code, signed.headers.get("location")) == (303, "/console"), signed.text
    overview = await http.get("/console")
    assert overview.status_code == 200
    assert victim.opened.account.name in overview.text


async def test_console_sign_ins_with_self_signed_certificates_do_not_lock_the_client_out(
    pg_uow: UnitOfWorkFactory, strict: Api
) -> None:
    victim = await new_client(pg_uow)
    _assert_attack_was_limited(await _attack_console(strict, victim, certificates=True, guesses=2))

    async with _from(strict, CLIENT_ADDRESS) as own:
        signed = await _sign_in(own, victim.opened.client_id, victim.opened.client_secret, victim.cert_header)
        await _assert_signed_in(own, signed, victim)


async def test_console_sign_ins_without_certificates_do_not_lock_the_client_out(
    pg_uow: UnitOfWorkFactory, limited: Api
) -> None:
    """In development a browser sends no certificate: the budget is the client id's from an
    address, so strangers elsewhere do not spend the client's."""
    victim = await new_client(pg_uow)
    statuses = await _attack_console(limited, victim, certificates=False, guesses=1)
    assert statuses == Counter({401: len(ATTACKERS)})  # 12 failures: 4 times the client id's limit

    async with _from(limited, ATTACKERS[0]) as attacker:  # but each address stays limited
        for _ in range(PER_CLIENT - 1):
            assert (await _sign_in(attacker, victim.opened.client_id, "guess")).status_code == 401
        refused = await _sign_in(attacker, victim.opened.client_id, victim.opened.client_secret)
        assert refused.status_code == 429
        assert "Too many token requests" in refused.text

    async with _from(limited, CLIENT_ADDRESS) as own:
        signed = await _sign_in(own, victim.opened.client_id, victim.opened.client_secret)
        await _assert_signed_in(own, signed, victim)
