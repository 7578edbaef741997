"""Webhook SSRF: the service must never be made to send requests into its own network.

At registration (``PIX_WEBHOOK_ALLOW_PRIVATE`` off, as deployed): every way of writing a
loopback, private, link-local or metadata address is a 400 and registers nothing. At delivery,
the notifier follows no redirect, and a name that resolved to a public address when it was
registered but answers 127.0.0.1 now (DNS rebinding) is not connected to.

Delivery runs on a database of this module's own, so that the notifier sees only the rows
written here. Names resolve through fakes; the only sockets opened go to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from pixcore.clock import ManualClock
from pixcore.errors import InvalidWebhook
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import is_public_address, parse_webhook_url
from pixinfra.persistence.deliveries import PostgresDeliveryStore
from pixinfra.postgres.database import with_database
from pixinfra.postgres.pool import Database
from pixinfra.settings import NotifierSettings
from pixnotify import Notifier
from pixnotify.transport import AddressRefused, GuardedBackend
from tests.address_ranges import NON_GLOBAL
from tests.address_ranges import PUBLIC as PUBLIC_RANGES
from tests.e2e.conftest import Api
from tests.integration.receiver import Receiver, Reply, running_receiver
from tests.security.conftest import all_logs, assert_error, log_text, signed_in
from tests.support import opened_database, random_cpf

BIN = Path(sys.executable).parent
PUBLIC = "93.184.216.34"  # only ever an answer of a fake resolver: nothing connects to it

# -- registration ---------------------------------------------------------------------------------------

REFUSED_URLS = [
    # IPv4 literals
    "https://127.0.0.1/",
    "https://127.0.0.2:8443/x",
    "https://10.0.0.1/",
    "https://172.16.0.1/",
    "https://192.168.0.1/",
    "https://100.64.0.1/",
    "https://0.0.0.0/",
    "https://169.254.169.254/latest/meta-data/",  # cloud metadata
    "https://255.255.255.255/",
    # IPv6 literals, and IPv4 written inside IPv6
    "https://[::1]/",
    "https://[::]/",
    "https://[fe80::1]/",
    "https://[fd00:ec2::254]/",  # the metadata service over IPv6
    "https://[ff02::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[0:0:0:0:0:ffff:10.0.0.1]/",
    "https://[::127.0.0.1]/",  # IPv4-compatible (deprecated)
    "https://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    "https://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "https://[64:ff9b:1::808:808]/",  # the local-use NAT64 prefix
    "https://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "https://[fe80::1%25eth0]/",
    # IPv4 in the forms some resolvers accept
    "https://2130706433/",
    "https://017700000001/",
    "https://0x7f000001/",
    "https://0177.0.0.1/",
    "https://0x7f.0.0.1/",
    "https://127.1/",
    "https://127.0.1/",
    "http://2130706433/",
    # names that mean this machine
    "https://localhost/",
    "https://LOCALHOST./",
    "https://api.localhost/",
    "https://localhost:8443/admin",
    # names that resolve to non-public addresses (see the `names` fixture), or not at all
    "https://loopback.pix.test/",
    "https://mixed.pix.test/",
    "https://mapped.pix.test/",
    "https://nat64.pix.test/",
    "https://metadata.google.internal/computeMetadata/v1/",
    # userinfo and other parser tricks
    "https://evil@127.0.0.1/",
    "https://evil:pw@127.0.0.1/",
    f"https://{PUBLIC}@127.0.0.1/",
    "https://public.pix.test@127.0.0.1/",
    "https://127.0.0.1#@public.pix.test/",
    "https://public.pix.test\\@127.0.0.1/",
    "https://127.0.0.1\\@public.pix.test/",
    "https://127.0.0.1%2F@public.pix.test/",
    "https://public.pix.test%00.127.0.0.1/",
    "https:/127.0.0.1/",
    "https:127.0.0.1/",
    "//127.0.0.1/",
    " https://127.0.0.1/",
    "http://127.0.0.1/",
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_INFO",
]


@pytest.fixture
async def names(dns: dict[str, list[str]]) -> dict[str, list[str]]:
    dns |= {
        "public.pix.test": [PUBLIC],
        "loopback.pix.test": ["127.0.0.1"],
        "mixed.pix.test": [PUBLIC, "10.0.0.5"],
        "mapped.pix.test": ["::ffff:10.0.0.5"],
        "nat64.pix.test": ["64:ff9b::a00:5"],
    }
    return dns


async def test_registration_refuses_every_non_public_target(
    pg_uow: UnitOfWorkFactory, api: Api, names: dict[str, list[str]]
) -> None:
    who = await signed_in(pg_uow, api.client)
    accepted = []
    for url in REFUSED_URLS:
        body = {"url": url, "eventType": "cash_in"}
        response = await api.client.post("/api/webhooks", json=body, headers=who.auth)
        if response.status_code != 400:
            accepted.append(f"{url}: {response.status_code} {response.text}")
        else:
            assert_error(response, 400, reasons=("Bad Request",))
    assert not accepted, "\n".join(accepted)
    listed = (await api.client.get("/api/webhooks", headers=who.auth)).json()
    assert listed["total"] == 0


async def test_a_public_name_registers_and_the_check_is_made_again_each_time(
    pg_uow: UnitOfWorkFactory, api: Api, names: dict[str, list[str]]
) -> None:
    """The control: the same request with a public answer is accepted; when the name later
    answers 127.0.0.1, registering it again (or updating it) is refused."""
    who = await signed_in(pg_uow, api.client)
    body = {"url": "https://public.pix.test/hook", "eventType": "cash_in"}
    assert (await api.client.post("/api/webhooks", json=body, headers=who.auth)).status_code == 200
    names["public.pix.test"] = ["127.0.0.1"]
    again = await api.client.post("/api/webhooks", json=body | {"eventType": "cash_out"}, headers=who.auth)
    assert_error(again, 400, reasons=("Bad Request",))
    update = body | {"headers": [{"key": "X-Tenant", "value": "t"}]}
    assert_error(await api.client.post("/api/webhooks", json=update, headers=who.auth), 400)
    (kept,) = (await api.client.get("/api/webhooks", headers=who.auth)).json()["webhooks"]
    assert (kept["headers"], kept["version"]) == ({}, 1)
    await api.client.delete(f"/api/webhooks/{kept['id']}", headers=who.auth)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "::127.0.0.1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::808:808",
        "::ffff:10.0.0.1",
        "2002:a00:1::",
    ],
)
def test_ipv6_forms_of_private_ipv4_are_not_public(address: str) -> None:
    assert not is_public_address(address)


@pytest.mark.parametrize(
    "host", ["2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.1", "8.8.8", "example.123", "a.0x"]
)
def test_a_host_ending_in_a_number_is_no_name(host: str) -> None:
    with pytest.raises(InvalidWebhook, match="not a valid host name"):
        parse_webhook_url(f"https://{host}/")


@pytest.mark.parametrize("host", ["1x.example", "123.example", "example.x123", "a.b0x"])
def test_names_with_digits_are_names(host: str) -> None:
    assert parse_webhook_url(f"https://{host}/").host == host


@pytest.mark.parametrize("address", ["8.8.8.8", "64:ff9b::808:808", "::ffff:8.8.8.8", "2606:4700::1111"])
def test_public_addresses_stay_public(address: str) -> None:
    assert is_public_address(address)


# -- every non-global range, whatever its spelling --------------------------------------------------------


def _literal_url(address: str) -> str:
    host = f"[{address.replace('%', '%25')}]" if ":" in address else address
    return f"https://{host}/hook"


@pytest.mark.parametrize("addresses", NON_GLOBAL.values(), ids=NON_GLOBAL.keys())
async def test_registration_refuses_each_non_global_range(
    pg_uow: UnitOfWorkFactory, api: Api, dns: dict[str, list[str]], addresses: list[str]
) -> None:
    """As a literal in the URL, and as the answer for a name: 400, nothing registered."""
    who = await signed_in(pg_uow, api.client)
    accepted = []
    for address in addresses:
        dns["hook.pix.test"] = [address]
        for url in (_literal_url(address), "https://hook.pix.test/hook"):
            response = await api.client.post(
                "/api/webhooks", json={"url": url, "eventType": "cash_in"}, headers=who.auth
            )
            if response.status_code != 400:
                accepted.append(f"{url} ({address}): {response.status_code} {response.text}")
            else:
                assert_error(response, 400, reasons=("Bad Request",))
    assert not accepted, "\n".join(accepted)
    assert (await api.client.get("/api/webhooks", headers=who.auth)).json()["total"] == 0


@pytest.mark.parametrize("addresses", NON_GLOBAL.values(), ids=NON_GLOBAL.keys())
async def test_the_notifier_refuses_to_connect_to_each_non_global_range(addresses: list[str]) -> None:
    """The connect-time check (a name may answer differently at delivery than at registration)."""
    for address in addresses:

        async def resolver(_host: str, _port: int, answer: str = address) -> list[str]:
            return [answer]

        backend = GuardedBackend(resolver, allow_private=False)
        with pytest.raises(AddressRefused):
            await backend.addresses("hook.pix.test", 443)
        with pytest.raises(AddressRefused):
            await backend.addresses(f"[{address}]" if ":" in address else address, 443)


async def test_the_notifier_connects_to_public_ranges() -> None:
    """The control: the same check lets each public spelling through, to the address it checked."""
    for address in PUBLIC_RANGES:

        async def resolver(_host: str, _port: int, answer: str = address) -> list[str]:
            return [answer]

        assert await GuardedBackend(resolver, allow_private=False).addresses("hook.pix.test", 443) == [
            address
        ]


# -- delivery -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def own_database(database_server: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """A database for this module alone, migrated by ``pixweb migrate``."""
    name = f"pixsec_{os.getpid()}_{secrets.token_hex(3)}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = with_database(database_server, name)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
        env |= {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path_factory.mktemp("ssrf"))}
        migrated = await asyncio.create_subprocess_exec(
            BIN / "pixweb", "migrate", env=env, stdout=subprocess.DEVNULL
        )
        assert await migrated.wait() == 0
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@pytest.fixture
async def opened(own_database: str) -> AsyncIterator[Database]:
    async with opened_database(own_database, max_size=4) as database:
        yield database


@pytest.fixture
def pool(opened: Database) -> asyncpg.Pool[asyncpg.Record]:
    return opened.pool


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


async def hooked_event(
    pool: asyncpg.Pool[asyncpg.Record], url: str, secret: str, headers: dict[str, str]
) -> tuple[int, int]:
    """An account with a secret, a registration of ``url`` and one event for it: (webhook, outbox)."""
    async with pool.acquire() as conn:
        number = await conn.fetchval("SELECT count(*) + 1 FROM accounts")
        account = await conn.fetchval(
            """INSERT INTO accounts (ispb, branch, number, name, document, city)
               VALUES ('99999999', '0001', $1, 'Ssrf Test', $2, 'RECIFE') RETURNING id""",
            f"{number:08d}",
            random_cpf(),
        )
        await conn.execute("INSERT INTO balances (account_id) VALUES ($1)", account)
        await conn.execute(
            "INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, now())",
            account,
            secret,
        )
        webhook = await conn.fetchval(
            """INSERT INTO webhooks (account_id, event_type, url, headers, is_active, created_at, updated_at)
               VALUES ($1, 'cash_in', $2, $3::jsonb, true, now(), now()) RETURNING id""",
            account,
            url,
            json.dumps(headers),
        )
        event = {"type": "RECEIVE", "data": {"id": 1, "txId": None, "status": "LIQUIDATED"}}
        outbox = await conn.fetchval(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
               VALUES ($1, 'RECEIVE', 'cash_in', $2::jsonb, now()) RETURNING id""",
            account,
            json.dumps(event),
        )
    return webhook, outbox


async def delivery(pool: asyncpg.Pool[asyncpg.Record], webhook: int, outbox: int) -> asyncpg.Record:
    async with pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND outbox_id = $2", webhook, outbox
        )
    assert row is not None
    return row


def loopback_getaddrinfo(host: str, port: int, *_: Any, **__: Any) -> list[tuple[Any, ...]]:
    """``socket.getaddrinfo`` during the rebinding test: the name answers 127.0.0.1."""
    if host != "rebind.pix.test":
        raise socket.gaierror(socket.EAI_NONAME, f"{host} is not a name of this test")
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


def notifier(database: Database, answers: dict[str, list[str]], *, allow_private: bool) -> Notifier:
    async def resolver(host: str, port: int) -> list[str]:
        if host not in answers:
            raise OSError(f"{host} is not a name of this test")
        return answers[host]

    config = NotifierSettings(timeout=5.0, lease=30.0)
    return Notifier(
        PostgresDeliveryStore(database),
        config,
        allow_private=allow_private,
        clock=ManualClock(datetime.now(UTC)),
        resolver=resolver,
    )


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_is_not_followed_and_is_a_failed_attempt(
    opened: Database, pool: asyncpg.Pool[asyncpg.Record], receiver: Receiver, status: int
) -> None:
    path = f"/moved/{status}"
    inside = f"/internal/{status}"
    receiver.plan[path] = [Reply(status, {"Location": receiver.url(inside)})]
    secret, token = new_secret(), "tok_" + secrets.token_hex(16)
    webhook, outbox = await hooked_event(
        pool, receiver.url(path), secret, {"Authorization": f"Bearer {token}"}
    )
    # Private addresses allowed, so that the receiver on 127.0.0.1 may be reached at all: what is
    # tested is the redirect. Were it followed, `inside` would be asked for.
    with all_logs() as records:
        async with notifier(opened, {}, allow_private=True) as running:
            await running.run_once()
    row = await delivery(pool, webhook, outbox)
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending", 1, status)
    assert row["last_error"] == f"answered {status} (a redirect: not followed)"
    assert row["next_attempt_at"] is not None
    assert len(receiver.at(path)) == 1
    assert receiver.at(inside) == []
    assert receiver.at(path)[0].verify(secret)  # it was the real, signed delivery
    logged = log_text(records)
    assert secret not in logged
    assert token not in logged


async def test_dns_rebinding_to_loopback_is_refused_at_delivery(  # noqa: PLR0917 - pytest hands fixtures by name
    pg_uow: UnitOfWorkFactory,
    opened: Database,
    receiver: Receiver,
    api: Api,
    dns: dict[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = opened.pool
    # Registration: the name answers a public address, so the API accepts it.
    dns["rebind.pix.test"] = [PUBLIC]
    who = await signed_in(pg_uow, api.client)
    registered = await api.client.post(
        "/api/webhooks",
        json={"url": "https://rebind.pix.test/hook", "eventType": "cash_in"},
        headers=who.auth,
    )
    assert registered.status_code == 200, registered.text
    (hook,) = (await api.client.get("/api/webhooks", headers=who.auth)).json()["webhooks"]
    await api.client.delete(f"/api/webhooks/{hook['id']}", headers=who.auth)

    # Delivery: the name now answers 127.0.0.1 (the rebinding), to the notifier's resolver and
    # to the event loop's and the socket module's: a request resolving the name on its own would
    # reach the receiver, which speaks plain HTTP on 127.0.0.1, and be recorded there.
    dns["rebind.pix.test"] = ["127.0.0.1"]
    monkeypatch.setattr(socket, "getaddrinfo", loopback_getaddrinfo)
    url = receiver.url("/rebound", host="rebind.pix.test")
    secret = new_secret()
    webhook, outbox = await hooked_event(pool, url, secret, {})
    async with notifier(opened, {"rebind.pix.test": ["127.0.0.1"]}, allow_private=False) as running:
        await running.run_once()
    row = await delivery(pool, webhook, outbox)
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending", 1, None)
    assert row["last_error"] == (
        "address refused: rebind.pix.test resolves to 127.0.0.1, which is loopback "
        "(PIX_WEBHOOK_ALLOW_PRIVATE is off)"
    )
    assert receiver.at("/rebound") == []

    # The control: the same delivery with private addresses allowed reaches the receiver.
    async with pool.acquire() as conn:
        await conn.execute("UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1", row["id"])
    async with notifier(opened, {"rebind.pix.test": ["127.0.0.1"]}, allow_private=True) as running:
        await running.run_once()
    assert (await delivery(pool, webhook, outbox))["status"] == "delivered"
    assert len(receiver.at("/rebound")) == 1
