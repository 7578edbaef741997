"""``/api/webhooks`` end to end on PostgreSQL: registration rules, the 3-URL limit under concurrency,
refusal of non-public hosts, the signing secret, and the deliveries' listing and replay.

No test needs the network: URLs are IP literals or ``localhost``, and where a DNS name is needed the
app is built with a resolver answering this module's names (the ``resolver`` fixture).
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from pixcore.clock import SystemClock, parse_timestamp
from pixcore.testing import StaticResolver
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.deliveries import PostgresDeliveryStore
from pixinfra.settings import Settings
from pixnotify import Notifier
from tests.e2e.conftest import Api, fresh_client, running_api
from tests.support import Client, bearer, fetch_rows, new_client, opened_database

HOOK = "https://127.0.0.1:9/hooks"  # allowed only with PIX_WEBHOOK_ALLOW_PRIVATE on


@pytest.fixture(scope="module")
def resolver() -> StaticResolver:
    """Names for this module's tests only, answered by the app's resolver without any network."""
    return StaticResolver(
        {
            "sneaky.example.test": ["127.0.0.1"],
            "mixed.example.test": ["8.8.8.8", "10.0.0.5"],
            "public.example.test": ["8.8.8.8", "2606:4700::1111"],
        }
    )


@pytest.fixture(scope="module")
async def module_private_api(
    migrated_database: str, tmp_path_factory: pytest.TempPathFactory, resolver: StaticResolver
) -> AsyncIterator[Api]:
    """The API with PIX_WEBHOOK_ALLOW_PRIVATE on (development and tests), one per module."""
    settings = Settings(
        database_url=migrated_database,
        data_dir=tmp_path_factory.mktemp("api"),
        run_workers=False,
        webhook_allow_private=True,
    )
    async with running_api(settings, SystemClock(), resolver=resolver) as running:
        yield running


@pytest.fixture
async def private_api(module_private_api: Api) -> AsyncIterator[Api]:
    async with fresh_client(module_private_api) as fresh:
        yield fresh


async def signed_in(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def register(
    http: httpx.AsyncClient,
    auth: dict[str, str],
    url: str,
    event_type: str = "cash_in",
    headers: list[dict[str, str]] | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"url": url, "eventType": event_type}
    if headers is not None:
        body["headers"] = headers
    return await http.post("/api/webhooks", json=body, headers=auth)


def assert_error(response: httpx.Response, status: int, reason: str, *, containing: str = "") -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["statusCode"] == status
    assert body["error"] == reason
    assert containing in body["message"], body
    assert set(body) <= {"statusCode", "message", "error", "details"}


# -- registration and listing -----------------------------------------------------------------


async def test_register_list_and_re_register(pg_uow: UnitOfWorkFactory, private_api: Api) -> None:
    http = private_api.client
    client, auth = await signed_in(pg_uow, private_api)
    first = await register(http, auth, HOOK, headers=[{"key": "X-Api-Key", "value": "k1"}])
    assert first.status_code == 200, first.text
    assert first.json()["success"] is True
    assert "registered for cash_in" in first.json()["message"]
    other = await register(
        http, auth, "https://127.0.0.1:9/other", headers=[{"key": "X-Other", "value": "o"}]
    )
    assert other.status_code == 200
    same_url_refunds = await register(http, auth, HOOK, "refund_in")
    assert same_url_refunds.status_code == 200

    listed = await http.get("/api/webhooks", headers=auth)
    assert listed.status_code == 200
    body = listed.json()
    assert body["accountId"] == client.account_id
    assert body["total"] == 3
    hooks = {(w["type"], w["url"]): w for w in body["webhooks"]}
    first_row = hooks[("cash_in", HOOK)]
    assert first_row["headers"] == {"X-Api-Key": "k1"}
    assert first_row["isActive"] is True
    assert first_row["version"] == 1
    assert parse_timestamp(first_row["createdAt"]).tzinfo is not None
    assert isinstance(first_row["id"], int)
    before = {key: dict(row) for key, row in hooks.items()}

    # Re-registering the URL (written differently) replaces its headers and bumps its version only.
    again = await register(http, auth, "HTTPS://127.0.0.1:9/hooks", headers=[{"key": "X-New", "value": "2"}])
    assert again.status_code == 200
    assert again.json() == {
        "success": True,
        "message": f"Webhook {first_row['id']} updated for cash_in: version 2.",
        "id": first_row["id"],
        "version": 2,
    }
    after = {
        (w["type"], w["url"]): w for w in (await http.get("/api/webhooks", headers=auth)).json()["webhooks"]
    }
    assert after[("cash_in", HOOK)]["headers"] == {"X-New": "2"}
    assert after[("cash_in", HOOK)]["version"] == 2
    assert after[("cash_in", HOOK)]["id"] == first_row["id"]
    assert after[("cash_in", HOOK)]["createdAt"] == first_row["createdAt"]
    for key in before.keys() - {("cash_in", HOOK)}:
        assert after[key] == before[key]
    rows = await fetch_rows(
        private_api.settings.database_url or "",
        "SELECT url, event_type, version, headers FROM webhooks WHERE account_id = $1 ORDER BY id",
        client.account_id,
    )
    assert [(r["url"], r["event_type"], r["version"], json.loads(r["headers"])) for r in rows] == [
        (HOOK, "cash_in", 2, {"X-New": "2"}),
        ("https://127.0.0.1:9/other", "cash_in", 1, {"X-Other": "o"}),
        (HOOK, "refund_in", 1, {}),
    ]
    # The account's signing secret was created with its first registration.
    secrets = await fetch_rows(
        private_api.settings.database_url or "",
        "SELECT secret FROM webhook_secrets WHERE account_id = $1",
        client.account_id,
    )
    assert len(secrets) == 1
    assert secrets[0]["secret"].startswith("whsec_")


async def test_an_account_sees_only_its_own_webhooks(pg_uow: UnitOfWorkFactory, private_api: Api) -> None:
    http = private_api.client
    _, auth = await signed_in(pg_uow, private_api)
    other, other_auth = await signed_in(pg_uow, private_api)
    assert (await register(http, auth, HOOK)).status_code == 200
    listed = (await http.get("/api/webhooks", headers=other_auth)).json()
    assert listed == {"accountId": other.account_id, "webhooks": [], "total": 0}


SIX_HEADERS = [{"key": f"X-H{i}", "value": "v"} for i in range(6)]


@pytest.mark.parametrize(
    ("body", "containing"),
    [
        (
            {"url": "http://8.8.8.8/h", "eventType": "cash_in"},
            "http:// is only for loopback and private hosts",
        ),
        ({"url": "ftp://127.0.0.1/h", "eventType": "cash_in"}, "url: must be an HTTPS URL"),
        ({"url": "not a url", "eventType": "cash_in"}, "url: "),
        ({"url": HOOK, "eventType": "CASH_IN"}, "eventType: must be one of"),
        ({"url": HOOK, "eventType": "transfer"}, "eventType: must be one of"),
        ({"url": HOOK, "eventType": "cash_in", "headers": SIX_HEADERS}, "at most 5 headers"),
        ({"url": HOOK, "eventType": "cash_in", "headers": [{"key": "hOsT", "value": "x"}]}, "may not be set"),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "Content-Type", "value": "x"}]},
            "may not be set",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "USER-AGENT", "value": "x"}]},
            "may not be set",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "Transfer-Encoding", "value": "x"}]},
            "may not be set",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "connection", "value": "x"}]},
            "may not be set",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "Content-LENGTH", "value": "1"}]},
            "may not be set",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "X Bad", "value": "x"}]},
            "not an HTTP token",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "X-A", "value": "a\r\nInjected: 1"}]},
            "control or non-ASCII",
        ),
        (
            # Refused at the edge, before the registration rules.
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "X-A", "value": "a\u0000"}]},
            "contains a NUL character",
        ),
        (
            {"url": HOOK, "eventType": "cash_in", "headers": [{"key": "X-A", "value": "a\u0007"}]},
            "control or non-ASCII",
        ),
        ({"url": HOOK, "eventType": "cash_in", "headers": [{"key": "X-A"}]}, "value"),
        ({"url": HOOK, "eventType": "cash_in", "headers": "X-A: 1"}, "headers"),
        ({"eventType": "cash_in"}, "url"),
        ({"url": HOOK}, "eventType"),
        ({"url": 5, "eventType": "cash_in"}, "url"),
    ],
)
async def test_every_400_of_registration(
    pg_uow: UnitOfWorkFactory, private_api: Api, body: dict[str, Any], containing: str
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    response = await private_api.client.post("/api/webhooks", json=body, headers=auth)
    assert_error(response, 400, "Bad Request", containing=containing)
    listed = (await private_api.client.get("/api/webhooks", headers=auth)).json()
    assert listed["total"] == 0


async def test_a_fourth_active_url_is_a_400(pg_uow: UnitOfWorkFactory, private_api: Api) -> None:
    http = private_api.client
    _, auth = await signed_in(pg_uow, private_api)
    for i in range(3):
        assert (await register(http, auth, f"https://127.0.0.1:9/{i}")).status_code == 200
    assert_error(
        await register(http, auth, "https://127.0.0.1:9/3"),
        400,
        "Bad Request",
        containing="cash_in has 3 active URLs already",
    )
    assert (await register(http, auth, "https://127.0.0.1:9/3", "cash_out")).status_code == 200
    assert (await register(http, auth, "https://127.0.0.1:9/1")).status_code == 200  # a re-registration


async def test_the_limit_holds_under_twenty_concurrent_registrations(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    http = private_api.client
    client, auth = await signed_in(pg_uow, private_api)
    responses = await asyncio.gather(*(register(http, auth, f"https://127.0.0.1:9/c{i}") for i in range(20)))
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200] * 3 + [400] * 17, [r.text for r in responses if r.status_code not in (200, 400)]
    for response in responses:
        if response.status_code == 400:
            assert "3 active URLs already" in response.json()["message"]
    rows = await fetch_rows(
        private_api.settings.database_url or "",
        "SELECT count(*) AS n FROM webhooks WHERE account_id = $1 AND event_type = 'cash_in' AND is_active",
        client.account_id,
    )
    assert rows[0]["n"] == 3


async def test_twenty_concurrent_re_registrations_of_one_url_each_bump_the_version(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    http = private_api.client
    _, auth = await signed_in(pg_uow, private_api)
    assert (await register(http, auth, HOOK)).status_code == 200
    assert (await register(http, auth, "https://127.0.0.1:9/untouched")).status_code == 200
    responses = await asyncio.gather(
        *(register(http, auth, HOOK, headers=[{"key": "X-Round", "value": str(i)}]) for i in range(20))
    )
    assert [r.status_code for r in responses] == [200] * 20
    versions = sorted(int(r.json()["message"].rsplit(" ", 1)[1].rstrip(".")) for r in responses)
    assert versions == list(range(2, 22))  # serialised: no two saw the same version
    listed = (await http.get("/api/webhooks", headers=auth)).json()["webhooks"]
    by_url = {w["url"]: w for w in listed}
    assert len(listed) == 2
    assert by_url[HOOK]["version"] == 21
    assert by_url["https://127.0.0.1:9/untouched"]["version"] == 1


# -- non-public hosts (the setting off) --------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/h",
        "https://10.0.0.1/h",
        "https://192.168.1.1/h",
        "https://169.254.169.254/latest/meta-data",
        "https://localhost/h",
        "https://localhost:8443/h",
        "https://[::1]/h",
        "https://[::ffff:10.0.0.1]/h",
        "https://sneaky.example.test/h",
        "https://mixed.example.test/h",
        "https://nowhere.example.test/h",
    ],
)
async def test_non_public_hosts_are_refused(pg_uow: UnitOfWorkFactory, api: Api, url: str) -> None:
    assert api.settings.webhook_allow_private is False
    _, auth = await signed_in(pg_uow, api)
    assert_error(await register(api.client, auth, url), 400, "Bad Request", containing="url: ")
    assert (await api.client.get("/api/webhooks", headers=auth)).json()["total"] == 0


async def test_a_public_name_is_accepted(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    _, auth = await signed_in(pg_uow, api)
    response = await register(api.client, auth, "https://public.example.test/h")
    assert response.status_code == 200, response.text


# -- deactivation ------------------------------------------------------------------------------------


async def test_delete_deactivates_and_another_accounts_id_is_404(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    http = private_api.client
    _, auth = await signed_in(pg_uow, private_api)
    _, other_auth = await signed_in(pg_uow, private_api)
    assert (await register(http, auth, HOOK)).status_code == 200
    webhook_id = (await http.get("/api/webhooks", headers=auth)).json()["webhooks"][0]["id"]

    assert_error(
        await http.delete(f"/api/webhooks/{webhook_id}", headers=other_auth),
        404,
        "Not Found",
        containing="Webhook not found",
    )
    for unknown in (webhook_id + 100_000, 0, 2**63, 10**30):
        assert_error(await http.delete(f"/api/webhooks/{unknown}", headers=auth), 404, "Not Found")
    assert (await http.get("/api/webhooks", headers=auth)).json()["webhooks"][0]["isActive"] is True

    deleted = await http.delete(f"/api/webhooks/{webhook_id}", headers=auth)
    assert deleted.status_code == 200
    assert deleted.json() == {"success": True, "message": f"Webhook {webhook_id} deactivated."}
    again = await http.delete(f"/api/webhooks/{webhook_id}", headers=auth)
    assert again.json() == {"success": True, "message": f"Webhook {webhook_id} was deactivated already."}
    listed = (await http.get("/api/webhooks", headers=auth)).json()
    assert [(w["id"], w["isActive"]) for w in listed["webhooks"]] == [(webhook_id, False)]
    rows = await fetch_rows(
        private_api.settings.database_url or "",
        "SELECT deactivation_reason, deactivated_at FROM webhooks WHERE id = $1",
        webhook_id,
    )
    assert rows[0]["deactivation_reason"] == "deleted_by_client"
    assert rows[0]["deactivated_at"] is not None
    # The URL may be registered again: a new registration.
    assert "registered" in (await register(http, auth, HOOK)).json()["message"]


# -- the secret --------------------------------------------------------------------------------------


async def test_secret_is_created_once_and_rotation_keeps_the_old_one_for_24_hours(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    http = api.client
    client, auth = await signed_in(pg_uow, api)
    _, other_auth = await signed_in(pg_uow, api)
    first = await http.get("/api/webhooks/secret", headers=auth)
    assert first.status_code == 200
    secret = first.json()["secret"]
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 24
    assert first.json()["previousSecretValidUntil"] is None
    assert (await http.get("/api/webhooks/secret", headers=auth)).json()["secret"] == secret
    assert (await http.get("/api/webhooks/secret", headers=other_auth)).json()["secret"] != secret

    rotated = await http.post("/api/webhooks/secret/rotate", headers=auth)
    assert rotated.status_code == 200
    new_secret = rotated.json()["secret"]
    assert new_secret.startswith("whsec_")
    assert new_secret != secret
    until = parse_timestamp(rotated.json()["previousSecretValidUntil"])
    now = api.clock.now()
    assert now + timedelta(hours=23, minutes=59) < until <= now + timedelta(hours=24)
    assert (await http.get("/api/webhooks/secret", headers=auth)).json() == rotated.json()
    rows = await fetch_rows(
        api.settings.database_url or "",
        "SELECT secret, previous_secret FROM webhook_secrets WHERE account_id = $1",
        client.account_id,
    )
    assert (rows[0]["secret"], rows[0]["previous_secret"]) == (new_secret, secret)
    # After 24 hours only the new secret signs: no previous one is announced any more.
    api.clock.advance(24 * 3600 + 1)
    auth = await bearer(http, client)  # the first token expired meanwhile
    later = (await http.get("/api/webhooks/secret", headers=auth)).json()
    assert later == {"secret": new_secret, "previousSecretValidUntil": None}


# -- deliveries ---------------------------------------------------------------------------------------


async def seed_deliveries(url: str, account_id: int, webhook_id: int) -> list[int]:
    """Three deliveries behind the API: delivered, failed, pending (oldest first); their ids."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        ids = []
        for i, status in enumerate(("delivered", "failed", "pending")):
            outbox_id = await conn.fetchval(
                "INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at,"
                " dispatched_at)"
                " VALUES ($1, 'RECEIVE', 'cash_in', '{\"type\": \"RECEIVE\", \"data\": {}}', now(), now())"
                " RETURNING id",
                account_id,
            )
            ids.append(
                await conn.fetchval(
                    """
                    INSERT INTO webhook_deliveries (message_id, outbox_id, webhook_id, account_id, status,
                        attempts, next_attempt_at, last_attempt_at, last_status_code, last_error, created_at,
                        finished_at)
                    VALUES ($1, $2, $3, $4, $5::varchar, $6,
                        CASE WHEN $5::varchar = 'pending' THEN now() + interval '1 hour' END,
                        now(), $7, $8, now() + make_interval(secs => $9),
                        CASE WHEN $5::varchar = 'pending' THEN NULL ELSE now() END)
                    RETURNING id
                    """,
                    f"msg_test_{outbox_id}_{i}",
                    outbox_id,
                    webhook_id,
                    account_id,
                    status,
                    {"delivered": 1, "failed": 8, "pending": 2}[status],
                    {"delivered": 204, "failed": 500, "pending": 503}[status],
                    None if status == "delivered" else f"HTTP {500 if status == 'failed' else 503}",
                    float(i),
                )
            )
        return ids
    finally:
        await conn.close()


async def test_deliveries_listing_and_replay(pg_uow: UnitOfWorkFactory, private_api: Api) -> None:
    http = private_api.client
    url = private_api.settings.database_url or ""
    client, auth = await signed_in(pg_uow, private_api)
    _, other_auth = await signed_in(pg_uow, private_api)
    assert (await register(http, auth, HOOK)).status_code == 200
    webhook_id = (await http.get("/api/webhooks", headers=auth)).json()["webhooks"][0]["id"]
    delivered, failed, pending = await seed_deliveries(url, client.account_id, webhook_id)

    listed = await http.get("/api/webhooks/deliveries", headers=auth)
    assert listed.status_code == 200
    body = listed.json()
    assert (body["accountId"], body["total"]) == (client.account_id, 3)
    assert [d["id"] for d in body["deliveries"]] == [pending, failed, delivered]  # newest first
    row = body["deliveries"][1]
    assert row == {
        "id": failed,
        "webhookId": webhook_id,
        "messageId": row["messageId"],
        "eventType": "cash_in",
        "url": HOOK,
        "status": "failed",
        "attempts": 8,
        "lastStatusCode": 500,
        "lastError": "HTTP 500",
        "nextAttemptAt": None,
        "lastAttemptAt": row["lastAttemptAt"],
        "createdAt": row["createdAt"],
        "finishedAt": row["finishedAt"],
    }
    assert row["messageId"].startswith("msg_test_")
    assert body["deliveries"][0]["nextAttemptAt"] is not None
    limited = (await http.get("/api/webhooks/deliveries", params={"limit": 2}, headers=auth)).json()
    assert [d["id"] for d in limited["deliveries"]] == [pending, failed]
    only_failed = (
        await http.get("/api/webhooks/deliveries", params={"status": "failed"}, headers=auth)
    ).json()
    assert [d["id"] for d in only_failed["deliveries"]] == [failed]
    for bad in ({"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"status": "lost"}):
        assert_error(await http.get("/api/webhooks/deliveries", params=bad, headers=auth), 400, "Bad Request")
    assert (await http.get("/api/webhooks/deliveries", headers=other_auth)).json()["deliveries"] == []

    # Replay: the other account's and unknown ids are 404; a pending one waiting for its retry
    # (seeded due in an hour, 2 attempts made) is due now, its attempts kept.
    for who, delivery_id in (
        (other_auth, failed),
        (other_auth, pending),
        (auth, failed + 100_000),
        (auth, 2**63),
    ):
        response = await http.post(f"/api/webhooks/deliveries/{delivery_id}/replay", headers=who)
        assert_error(response, 404, "Not Found")
    before = private_api.clock.now()
    now_due = await http.post(f"/api/webhooks/deliveries/{pending}/replay", headers=auth)
    assert now_due.status_code == 200, now_due.text
    assert (now_due.json()["status"], now_due.json()["attempts"]) == ("pending", 2)
    assert (
        before - timedelta(seconds=1)
        <= parse_timestamp(now_due.json()["nextAttemptAt"])
        <= private_api.clock.now()
    )
    rows = await fetch_rows(
        url, "SELECT next_attempt_at, attempts FROM webhook_deliveries WHERE id = $1", pending
    )
    assert rows[0]["attempts"] == 2
    assert rows[0]["next_attempt_at"] <= private_api.clock.now()
    for finished in (failed, delivered):
        before = private_api.clock.now()
        replayed = await http.post(f"/api/webhooks/deliveries/{finished}/replay", headers=auth)
        assert replayed.status_code == 200, replayed.text
        out = replayed.json()
        assert (out["id"], out["status"], out["attempts"], out["finishedAt"]) == (
            finished,
            "pending",
            0,
            None,
        )
        assert (
            before - timedelta(seconds=1) <= parse_timestamp(out["nextAttemptAt"]) <= private_api.clock.now()
        )
        rows = await fetch_rows(
            url, "SELECT status, attempts, finished_at FROM webhook_deliveries WHERE id = $1", finished
        )
        assert (rows[0]["status"], rows[0]["attempts"], rows[0]["finished_at"]) == ("pending", 0, None)

    # A delivery of a deactivated registration is not replayed.
    await fetch_rows(
        url,
        "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,"
        " finished_at = now() WHERE id = $1",
        failed,
    )
    assert (await http.delete(f"/api/webhooks/{webhook_id}", headers=auth)).status_code == 200
    assert_error(
        await http.post(f"/api/webhooks/deliveries/{failed}/replay", headers=auth),
        422,
        "Unprocessable Entity",
        containing="deactivated",
    )


# -- authentication -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/webhooks"),
        ("GET", "/api/webhooks"),
        ("DELETE", "/api/webhooks/1"),
        ("GET", "/api/webhooks/secret"),
        ("POST", "/api/webhooks/secret/rotate"),
        ("GET", "/api/webhooks/deliveries"),
        ("POST", "/api/webhooks/deliveries/1/replay"),
    ],
)
async def test_every_webhook_endpoint_needs_a_token(api: Api, method: str, path: str) -> None:
    response = await api.client.request(method, path, json={"url": HOOK, "eventType": "cash_in"})
    assert_error(response, 401, "Unauthorized")


# -- development receivers: http:// on loopback and private hosts ---------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9/h", "https://127.0.0.1/h", "https://localhost/h", "https://sneaky.example.test/h"],
)
async def test_a_refused_private_url_names_the_setting_that_would_allow_it(
    pg_uow: UnitOfWorkFactory, api: Api, url: str
) -> None:
    _, auth = await signed_in(pg_uow, api)
    assert_error(
        await register(api.client, auth, url), 400, "Bad Request", containing="PIX_WEBHOOK_ALLOW_PRIVATE"
    )


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("http://127.0.0.1:8001/", "http://127.0.0.1:8001/"),
        ("HTTP://LOCALHOST:9", "http://localhost:9/"),
        ("http://10.0.0.5:80/in", "http://10.0.0.5/in"),
        ("http://[::1]:9/h", "http://[::1]:9/h"),
        ("http://sneaky.example.test/h", "http://sneaky.example.test/h"),
    ],
)
async def test_http_to_loopback_and_private_hosts_is_accepted_with_the_setting(
    pg_uow: UnitOfWorkFactory, private_api: Api, url: str, stored: str
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    response = await register(private_api.client, auth, url)
    assert response.status_code == 200, response.text
    listed = (await private_api.client.get("/api/webhooks", headers=auth)).json()
    assert [w["url"] for w in listed["webhooks"]] == [stored]


@pytest.mark.parametrize(
    "url", ["http://8.8.8.8/h", "http://public.example.test/h", "http://mixed.example.test/h"]
)
async def test_a_public_host_needs_https_even_with_the_setting(
    pg_uow: UnitOfWorkFactory, private_api: Api, url: str
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    assert_error(
        await register(private_api.client, auth, url),
        400,
        "Bad Request",
        containing="http:// is only for loopback and private hosts, use https://",
    )
    assert (await private_api.client.get("/api/webhooks", headers=auth)).json()["total"] == 0


async def test_the_deliveries_list_says_why_the_last_attempt_failed_in_words(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    """The notifier's words (``pixnotify.failures``) reach the account: a development receiver
    that is not running is ``connection refused by 127.0.0.1:PORT`` in ``lastError``."""
    client, auth = await signed_in(pg_uow, private_api)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert (await register(private_api.client, auth, f"http://127.0.0.1:{port}/")).status_code == 200
    url = private_api.settings.database_url
    assert url is not None
    event = {"type": "RECEIVE", "data": {"id": 1, "status": "LIQUIDATED"}}
    conn = await asyncpg.connect(url)
    try:
        # Only this test's event is to go out: what earlier tests left behind is set aside (as in
        # tests/e2e/webhooks/test_delivery_in_api.py).
        await conn.execute("UPDATE outbox SET dispatched_at = now() WHERE dispatched_at IS NULL")
        await conn.execute(
            """UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now()
               WHERE status = 'pending'"""
        )
        outbox_id = await conn.fetchval(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
               VALUES ($1, 'RECEIVE', 'cash_in', $2::jsonb, now()) RETURNING id""",
            client.account_id,
            json.dumps(event),
        )
        async with (
            opened_database(url, max_size=2) as database,
            Notifier(PostgresDeliveryStore(database), allow_private=True) as notifier,
        ):
            done = await notifier.run_once()
        assert (done.dispatched, done.attempted) == (1, 1)
        assert (
            await conn.fetchval("SELECT attempts FROM webhook_deliveries WHERE outbox_id = $1", outbox_id)
            == 1
        )
    finally:
        await conn.close()
    listed = (await private_api.client.get("/api/webhooks/deliveries", headers=auth)).json()
    (delivery,) = listed["deliveries"]
    assert (delivery["status"], delivery["lastStatusCode"], delivery["lastError"]) == (
        "pending",
        None,
        f"connection refused by 127.0.0.1:{port}",
    )
