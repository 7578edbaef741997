"""Seeing and testing deliveries end to end (docs/decisions/webhook-deliveries.md): every attempt in a
delivery's log, the notification exactly as sent, the list's filters, the test event, and retries brought
forward by the sandbox clock. A real receiver on 127.0.0.1 (``PIX_WEBHOOK_ALLOW_PRIVATE`` on) checks the
signatures with the account's secret."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from pixcore.clock import SystemClock, parse_timestamp
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.delivery import encode_body
from pixinfra.settings import Settings
from tests.e2e.conftest import Api, running_api
from tests.e2e.webhooks.test_webhooks_api import assert_error, register, seed_deliveries, signed_in
from tests.faults.processes import ApiProcess, run_cli, service_env
from tests.integration.receiver import Receiver, Reply, running_receiver
from tests.support import certificate_header, fetch_rows, random_cpf

HEADER_VALUE = "k-3f9a-never-stored"


@pytest.fixture
async def delivering_api(migrated_database: str, tmp_path: Path) -> AsyncIterator[Api]:
    """The API with its loops (delivery in its process), private receivers allowed; what earlier
    tests left in the queue is set aside, so that only this test's events go out."""
    await fetch_rows(migrated_database, "UPDATE outbox SET dispatched_at = now() WHERE dispatched_at IS NULL")
    await fetch_rows(
        migrated_database,
        "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now()"
        " WHERE status = 'pending'",
    )
    settings = Settings(
        database_url=migrated_database, data_dir=tmp_path, run_workers=True, webhook_allow_private=True
    )
    async with running_api(settings, SystemClock()) as running:
        yield running


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running


async def secret_of(http: httpx.AsyncClient, auth: dict[str, str]) -> str:
    secret: str = (await http.get("/api/webhooks/secret", headers=auth)).json()["secret"]
    return secret


async def plain_http_hook(
    database_url: str, account_id: int, url: str, headers: dict[str, str] | None = None
) -> int:
    """A registration of an ``http://`` receiver on 127.0.0.1, written as the API writes one.
    (Registering one through the API needs ``PIX_WEBHOOK_ALLOW_PRIVATE``.)"""
    (row,) = await fetch_rows(
        database_url,
        """INSERT INTO webhooks (account_id, event_type, url, headers, created_at, updated_at)
           VALUES ($1, 'cash_in', $2, $3::jsonb, now(), now()) RETURNING id""",
        account_id,
        url,
        json.dumps(headers or {}),
    )
    return int(row["id"])


async def emit(url: str, account_id: int, event: dict[str, Any]) -> None:
    """An event in the outbox, as the service writes one (a cash-in, to ``cash_in`` registrations)."""
    await fetch_rows(
        url,
        "INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)"
        " VALUES ($1, $2, 'cash_in', $3::jsonb, now())",
        account_id,
        event["type"],
        json.dumps(event),
    )


# -- every attempt, and what was sent ------------------------------------------------------------


async def test_a_delivery_shows_what_was_sent_and_every_attempt(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    http, url = delivering_api.client, delivering_api.settings.database_url or ""
    client, auth = await signed_in(pg_uow, delivering_api)
    _, other_auth = await signed_in(pg_uow, delivering_api)
    hook = receiver.url("/detail")
    receiver.plan["/detail"] = [Reply(500), Reply(200)]  # fails, then the retry (5 s later) is taken
    webhook_id = await plain_http_hook(url, client.account_id, hook, {"X-Api-Key": HEADER_VALUE})
    secret = await secret_of(http, auth)
    event = {
        "type": "RECEIVE",
        "data": {
            "id": 7,
            "amount": 1050,
            "payer": {"name": "João Açaí", "bank": "x"},
            "status": "LIQUIDATED",
        },
    }
    await emit(url, client.account_id, event)

    await receiver.wait_for(2, "/detail", within=30)
    first, second = receiver.at("/detail")
    assert first.verify(secret) == second.verify(secret) == event
    assert first.webhook_id == second.webhook_id
    listed = (
        await http.get("/api/webhooks/deliveries", params={"webhookId": webhook_id}, headers=auth)
    ).json()
    (row,) = listed["deliveries"]
    detail_url = f"/api/webhooks/deliveries/{row['id']}"
    for _ in range(100):  # the outcome of the second attempt is stored just after it is answered
        detail = await http.get(detail_url, headers=auth)
        if detail.json()["status"] == "delivered":
            break
        await asyncio.sleep(0.1)
    assert detail.status_code == 200, detail.text
    body = detail.json()
    (row,) = (
        await http.get("/api/webhooks/deliveries", params={"webhookId": webhook_id}, headers=auth)
    ).json()["deliveries"]
    assert {k: v for k, v in body.items() if k not in ("payload", "attemptLog")} == row  # the list's fields
    assert (body["status"], body["attempts"], body["lastStatusCode"]) == ("delivered", 2, 200)
    # The JSON object sent, exactly: what the receiver got, byte for byte once encoded as sent.
    assert body["payload"] == json.loads(second.body) == event
    assert encode_body(body["payload"]) == second.body
    log = body["attemptLog"]
    assert [(a["statusCode"], a["error"], a["responseBody"]) for a in log] == [
        (500, None, "ok"),
        (200, None, "ok"),
    ]
    assert all(isinstance(a["durationMs"], int) and a["durationMs"] >= 0 for a in log)
    assert parse_timestamp(log[0]["attemptedAt"]) < parse_timestamp(log[1]["attemptedAt"])
    assert log[1]["attemptedAt"] == body["lastAttemptAt"]
    assert HEADER_VALUE not in detail.text
    assert secret not in detail.text

    # Another account's delivery, an unknown id, an id past bigint: 404 in the error shape.
    assert_error(await http.get(detail_url, headers=other_auth), 404, "Not Found")
    for missing in (row["id"] + 1_000_000, 2**63, 0):
        assert_error(await http.get(f"/api/webhooks/deliveries/{missing}", headers=auth), 404, "Not Found")
    assert_error(await http.post(f"{detail_url}/replay", headers=other_auth), 404, "Not Found")


async def test_a_receiver_that_does_not_answer_is_logged_with_the_error(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    http, url = delivering_api.client, delivering_api.settings.database_url or ""
    client, auth = await signed_in(pg_uow, delivering_api)
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        hook = f"http://127.0.0.1:{closed.getsockname()[1]}/nobody"
    webhook_id = await plain_http_hook(url, client.account_id, hook)
    await secret_of(http, auth)
    await emit(url, client.account_id, {"type": "RECEIVE", "data": {"id": 8}})
    params = {"webhookId": webhook_id}
    for _ in range(150):
        listed = (await http.get("/api/webhooks/deliveries", params=params, headers=auth)).json()[
            "deliveries"
        ]
        if listed and listed[0]["attempts"] >= 1:
            break
        await asyncio.sleep(0.1)
    (row,) = listed
    body = (await http.get(f"/api/webhooks/deliveries/{row['id']}", headers=auth)).json()
    (line,) = body["attemptLog"]
    assert (line["statusCode"], line["responseBody"]) == (None, None)
    assert line["error"]  # the notifier's words for it (a refused connection)
    assert body["lastError"] is not None


# -- the list's filters -----------------------------------------------------------------------


async def test_the_list_filters_by_registration_status_type_and_dates(
    pg_uow: UnitOfWorkFactory, delivering_api: Api
) -> None:
    http, url = delivering_api.client, delivering_api.settings.database_url or ""
    client, auth = await signed_in(pg_uow, delivering_api)
    hook = "https://127.0.0.1:9/filters"
    assert (await register(http, auth, hook)).status_code == 200
    assert (await register(http, auth, "https://127.0.0.1:9/refunds", "refund_in")).status_code == 200
    hooks = (await http.get("/api/webhooks", headers=auth)).json()["webhooks"]
    (webhook_id,) = [h["id"] for h in hooks if h["url"] == hook]
    delivered, failed, pending = await seed_deliveries(url, client.account_id, webhook_id)

    async def ids(**params: Any) -> list[int]:
        response = await http.get("/api/webhooks/deliveries", params=params, headers=auth)
        assert response.status_code == 200, response.text
        return [d["id"] for d in response.json()["deliveries"]]

    assert await ids(webhookId=webhook_id) == [pending, failed, delivered]
    assert await ids(webhookId=webhook_id + 1) == []
    assert await ids(webhookId=webhook_id, status="failed") == [failed]
    assert await ids(eventType="cash_in") == [pending, failed, delivered]
    assert await ids(eventType="refund_in") == []
    created = {
        row["id"]: row["created_at"]
        for row in await fetch_rows(
            url,
            "SELECT id, created_at FROM webhook_deliveries WHERE id = ANY($1::bigint[])",
            [delivered, failed, pending],
        )
    }
    start = created[failed].isoformat()
    assert await ids(startDate=start) == [pending, failed]
    assert await ids(endDate=start) == [failed, delivered]
    assert await ids(startDate=start, endDate=start) == [failed]
    assert await ids(startDate=created[delivered].date().isoformat(), status="delivered") == [delivered]

    for bad in (
        {"status": "lost"},
        {"eventType": "RECEIVE"},  # the notification's type, not the registration's
        {"eventType": "cash_in\x00"},
        {"webhookId": "0"},
        {"webhookId": str(2**63)},
        {"webhookId": "seven"},
        {"startDate": "yesterday"},
        {"endDate": "2026-13-01"},
        {"startDate": "2026-11-02", "endDate": "2026-11-01"},
        {"startDate": "2" * 10_000},
        {"status": "p" * 10_000},
        {"endDate": "2026-11-01\x00"},
    ):
        response = await http.get("/api/webhooks/deliveries", params=bad, headers=auth)
        assert_error(response, 400, "Bad Request")


async def test_the_openapi_document_describes_the_filters_and_the_detail(delivering_api: Api) -> None:
    document = (await delivering_api.client.get("/schema/openapi.json")).json()
    listing = document["paths"]["/api/webhooks/deliveries"]["get"]
    params = {p["name"]: p for p in listing["parameters"]}
    assert {"webhookId", "status", "eventType", "startDate", "endDate", "limit"} <= set(params)

    def enum_of(param: dict[str, Any]) -> set[str]:
        schema = param["schema"]
        options = schema.get("oneOf") or schema.get("anyOf") or [schema]
        found: set[str] = set()
        for option in options:
            named = option.get("$ref", "").rsplit("/", 1)[-1]
            found |= set((document["components"]["schemas"][named] if named else option).get("enum", []))
        return found

    assert enum_of(params["status"]) == {"pending", "delivered", "failed"}
    assert "cash_in" in enum_of(params["eventType"])
    assert "med_rejected" in enum_of(params["eventType"])
    assert "integer" in json.dumps(params["webhookId"]["schema"])
    detail = document["paths"]["/api/webhooks/deliveries/{delivery_id}"]["get"]
    assert {"200", "404"} <= set(detail["responses"])
    test = document["paths"]["/api/webhooks/{webhook_id}/test"]["post"]
    assert {"200", "404"} <= set(test["responses"])
    schemas = document["components"]["schemas"]
    assert {"attemptLog", "payload"} <= set(schemas["DeliveryDetailOut"]["properties"])
    attempt = schemas["AttemptOut"]["properties"]
    assert set(attempt) == {"attemptedAt", "statusCode", "durationMs", "error", "responseBody"}
    assert set(schemas["TestEventOut"]["properties"]) == {"success", "statusCode", "durationMs", "error"}


# -- the test event ---------------------------------------------------------------------------


async def test_a_test_event_is_sent_signed_now_and_answered_with_the_outcome(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    http, url = delivering_api.client, delivering_api.settings.database_url or ""
    client, auth = await signed_in(pg_uow, delivering_api)
    _, other_auth = await signed_in(pg_uow, delivering_api)
    webhook_id = await plain_http_hook(
        url, client.account_id, receiver.url("/ping"), {"X-Api-Key": HEADER_VALUE}
    )
    secret = await secret_of(http, auth)

    before = delivering_api.clock.now()
    response = await http.post(f"/api/webhooks/{webhook_id}/test", headers=auth)
    assert response.status_code == 200, response.text
    out = response.json()
    assert set(out) == {"success", "statusCode", "durationMs", "error"}
    assert (out["success"], out["statusCode"], out["error"]) == (True, 200, None)
    assert isinstance(out["durationMs"], int)
    assert out["durationMs"] >= 0
    (got,) = receiver.at("/ping")
    ping = got.verify(secret)  # signed with the account's secret (Standard Webhooks)
    assert isinstance(ping, dict)
    sent_at = ping["data"]["sentAt"]
    assert ping == {"type": "PING", "data": {"webhookId": webhook_id, "sentAt": sent_at}}
    assert before - timedelta(milliseconds=1) <= parse_timestamp(sent_at) <= delivering_api.clock.now()
    assert got.headers["x-api-key"] == HEADER_VALUE
    assert got.webhook_id.startswith("msg_test_")
    assert "." not in got.webhook_id
    # Not a delivery: nothing is listed, and nothing is retried.
    listed = (
        await http.get("/api/webhooks/deliveries", params={"webhookId": webhook_id}, headers=auth)
    ).json()
    assert listed["deliveries"] == []

    receiver.plan["/ping"] = [Reply(500)]
    failed = (await http.post(f"/api/webhooks/{webhook_id}/test", headers=auth)).json()
    assert (failed["success"], failed["statusCode"], failed["error"]) == (False, 500, None)
    await asyncio.sleep(0.5)
    assert len(receiver.at("/ping")) == 2  # the failure is not retried

    # 404: another account's registration, an unknown one, a deactivated one.
    assert_error(await http.post(f"/api/webhooks/{webhook_id}/test", headers=other_auth), 404, "Not Found")
    for missing in (webhook_id + 1_000_000, 2**63, 0):
        assert_error(await http.post(f"/api/webhooks/{missing}/test", headers=auth), 404, "Not Found")
    assert (await http.delete(f"/api/webhooks/{webhook_id}", headers=auth)).status_code == 200
    assert_error(await http.post(f"/api/webhooks/{webhook_id}/test", headers=auth), 404, "Not Found")
    assert len(receiver.at("/ping")) == 2


async def test_a_test_event_to_a_receiver_that_does_not_answer_says_why(
    pg_uow: UnitOfWorkFactory, delivering_api: Api
) -> None:
    http, url = delivering_api.client, delivering_api.settings.database_url or ""
    client, auth = await signed_in(pg_uow, delivering_api)
    await secret_of(http, auth)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        hook = f"http://127.0.0.1:{closed.getsockname()[1]}/gone"
    webhook_id = await plain_http_hook(url, client.account_id, hook)
    out = (await http.post(f"/api/webhooks/{webhook_id}/test", headers=auth)).json()
    assert (out["success"], out["statusCode"]) == (False, None)
    assert out["error"]


# -- the sandbox clock brings retries forward ---------------------------------------------------


@pytest.mark.slow
async def test_moving_the_sandbox_clock_makes_a_due_retry_happen(own_database: str, tmp_path: Path) -> None:
    """``pixweb serve`` (delivery in its process) and a receiver that fails twice: the first retry
    comes 5 s later, the next one waits 5 minutes, until the operator moves the clock
    (``pixweb admin clock advance``): then it is made at once. ``replay`` makes a waiting one due
    now too."""
    env = service_env(own_database, tmp_path / "data")
    await run_cli(env, "pixweb", "migrate")
    opened = await run_cli(
        env, "pixweb", "admin", "account", "create", "--name", "Retry Clock", "--document", random_cpf()
    )
    certs = tmp_path / "cert"
    await run_cli(
        env, "pixweb", "admin", "cert", "create", "--account", str(opened["accountId"]), "--out", str(certs)
    )
    cert = certificate_header((certs / "client-cert.pem").read_bytes())
    api = ApiProcess("api", env, tmp_path / "api.log", workers=True)
    async with running_receiver() as receiver:
        receiver.plan["/retry"] = [Reply(500), Reply(500), Reply(500), Reply(200)]
        await api.start()
        try:
            async with httpx.AsyncClient(
                base_url=api.url, timeout=30, headers={"X-SSL-Client-Cert": cert}
            ) as http:
                token = await http.post(
                    "/api/auth/token",
                    json={"clientId": opened["clientId"], "clientSecret": opened["clientSecret"]},
                )
                auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
                await plain_http_hook(own_database, opened["accountId"], receiver.url("/retry"))
                secret = await secret_of(http, auth)
                await emit(own_database, opened["accountId"], {"type": "RECEIVE", "data": {"id": 1}})
                await receiver.wait_for(2, "/retry", within=30)  # at once, then 5 s later

                async def the_delivery() -> dict[str, Any]:
                    for _ in range(50):
                        (row,) = (await http.get("/api/webhooks/deliveries", headers=auth)).json()[
                            "deliveries"
                        ]
                        if row["attempts"] == len(receiver.at("/retry")):
                            return dict(row)
                        await asyncio.sleep(0.1)
                    raise AssertionError(f"the outcome was not stored\n{api.log_tail()}")

                row = await the_delivery()
                waits = parse_timestamp(row["nextAttemptAt"]) - parse_timestamp(row["lastAttemptAt"])
                assert waits.total_seconds() > 200  # the third attempt waits some 5 minutes
                await asyncio.sleep(1)
                assert len(receiver.at("/retry")) == 2

                await run_cli(env, "pixweb", "admin", "clock", "advance", "--seconds", "330")
                await receiver.wait_for(3, "/retry", within=15)  # not 5 minutes: the moved clock says due
                row = await the_delivery()
                assert (row["status"], row["attempts"]) == ("pending", 3)

                # The fourth waits 30 minutes; replay makes it due now, its attempts kept.
                replayed = await http.post(f"/api/webhooks/deliveries/{row['id']}/replay", headers=auth)
                assert replayed.status_code == 200, replayed.text
                assert replayed.json()["attempts"] == 3
                await receiver.wait_for(4, "/retry", within=15)
                for _ in range(50):
                    detail = (await http.get(f"/api/webhooks/deliveries/{row['id']}", headers=auth)).json()
                    if detail["status"] == "delivered":
                        break
                    await asyncio.sleep(0.1)
                assert (detail["status"], detail["attempts"]) == ("delivered", 4)
                assert [a["statusCode"] for a in detail["attemptLog"]] == [500, 500, 500, 200]
                # Signed by the wall clock: a receiver's tolerance (5 minutes) still accepts each one.
                for got in receiver.at("/retry"):
                    assert got.verify(secret) == {"type": "RECEIVE", "data": {"id": 1}}
        finally:
            await api.stop()


async def test_an_api_composed_without_a_sender_says_test_events_are_unavailable(
    pg_uow: UnitOfWorkFactory, migrated_database: str, tmp_path: Path
) -> None:
    """``pixweb`` alone (without ``pixservice``'s composition) has nothing to send test events with."""
    settings = Settings(database_url=migrated_database, data_dir=tmp_path, run_workers=False)
    async with running_api(settings, SystemClock(), overrides={"probe": None}) as api:
        _, auth = await signed_in(pg_uow, api)
        response = await api.client.post("/api/webhooks/1/test", headers=auth)
    assert_error(response, 503, "Service Unavailable", containing="pixweb")
    assert response.headers["retry-after"] == "60"
