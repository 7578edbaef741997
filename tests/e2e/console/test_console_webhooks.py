"""The console's webhook pages over HTTP: register, list, deactivate, the signing secret, a test
event, and the deliveries with their payload and attempts (the same use cases as /api/webhooks)."""

from __future__ import annotations

import asyncio
import html
import json
import re
from dataclasses import replace
from pathlib import Path

import asyncpg
import httpx

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from pixweb.app import create_app
from tests.e2e.conftest import Api, running_api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.integration.receiver import running_receiver
from tests.support import bearer, new_client

SECRET = re.compile(r'<code id="secret">(whsec_[^<]+)</code>')


async def register(
    http: httpx.AsyncClient, url: str, event_type: str = "cash_in", headers: str = ""
) -> httpx.Response:
    form = await http.get("/console/webhooks")
    return await http.post(
        "/console/webhooks",
        data={"csrf": csrf_of(form), "url": url, "event_type": event_type, "headers": headers},
    )


async def test_register_list_and_deactivate_a_webhook(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    settings = replace(_settings(database, tmp_path), webhook_allow_private=True)
    async with running_api(settings, SystemClock(), database) as api:
        client = await new_client(pg_uow)
        await sign_in(api.client, client)
        made = await register(api.client, "http://127.0.0.1:9/hook", headers="X-Token: abc\n\nX-Other: 2")
        assert made.status_code == 200
        found = re.search(
            r'<div class="notice success" role="status"><p>Webhook (\d+) registered for cash_in\.', made.text
        )
        assert found is not None, made.text
        webhook_id = found.group(1)
        assert "<code>http://127.0.0.1:9/hook</code>" in made.text
        assert "<code>X-Token</code>" in made.text
        assert "<code>X-Other</code>" in made.text
        assert "abc" not in made.text  # names only: the values (credentials, often) stay back
        again = await register(api.client, "http://127.0.0.1:9/hook", headers="X-Token: new")
        assert f"Webhook {webhook_id} updated for cash_in: version 2." in again.text
        listed = await api.client.get("/api/webhooks/", headers=await bearer(api.client, client))
        assert [w["url"] for w in listed.json()["webhooks"]] == ["http://127.0.0.1:9/hook"]  # the API's list
        page = await api.client.get("/console/webhooks")
        gone = await api.client.post(
            f"/console/webhooks/{webhook_id}/deactivate", data={"csrf": csrf_of(page)}
        )
        assert (gone.status_code, gone.headers["location"]) == (303, "/console/webhooks")
        after = await api.client.get("/console/webhooks")
        assert ">Deactivated</span>" in after.text
        assert f'action="/console/webhooks/{webhook_id}/deactivate"' not in after.text


def _settings(database: Database, tmp_path: Path) -> Settings:
    return Settings(database_url=database.url, data_dir=tmp_path, run_workers=False)


async def test_a_bad_registration_shows_the_api_message_beside_the_field_and_keeps_the_input(
    pg_uow: UnitOfWorkFactory,
    api: Api,
) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    refused = await register(api.client, "http://example.com/hook", headers="Bad Name: x")
    assert refused.status_code == 400
    assert re.search(r'id="e-url">url: must be an HTTPS URL', refused.text), refused.text
    assert 'id="e-headers">headers: ' in refused.text
    assert 'value="http://example.com/hook"' in refused.text
    assert ">Bad Name: x</textarea>" in refused.text
    kind = await register(api.client, "https://example.com/hook", event_type="nope")
    assert kind.status_code == 400
    assert 'id="e-event_type">eventType: must be one of cash_in' in kind.text


async def test_the_secret_is_revealed_on_demand_and_rotated(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    page = await api.client.get("/console/webhooks")
    assert SECRET.search(page.text) is None  # hidden until asked for
    shown = await api.client.post("/console/webhooks/secret", data={"csrf": csrf_of(page)})
    first = SECRET.search(shown.text)
    assert first is not None
    again = await api.client.post("/console/webhooks/secret", data={"csrf": csrf_of(page)})
    assert SECRET.search(again.text).group(1) == first.group(1)  # type: ignore[union-attr]
    rotated = await api.client.post("/console/webhooks/secret/rotate", data={"csrf": csrf_of(page)})
    second = SECRET.search(rotated.text)
    assert second is not None
    assert second.group(1) != first.group(1)
    assert "the previous one signs too" in rotated.text
    # Without its CSRF token a rotation is refused: the secret stays.
    forged = await api.client.post("/console/webhooks/secret/rotate", data={})
    assert forged.status_code == 403
    kept = await api.client.post("/console/webhooks/secret", data={"csrf": csrf_of(page)})
    assert SECRET.search(kept.text).group(1) == second.group(1)  # type: ignore[union-attr]


async def test_another_accounts_webhook_and_delivery_are_not_found(
    pg_uow: UnitOfWorkFactory, api: Api, database: Database
) -> None:
    owner, other = await new_client(pg_uow), await new_client(pg_uow)
    conn = await asyncpg.connect(database.url)
    try:
        webhook_id = await conn.fetchval(
            """INSERT INTO webhooks (account_id, event_type, url, created_at, updated_at)
               VALUES ($1, 'cash_in', 'https://example.com/x', now(), now()) RETURNING id""",
            owner.account_id,
        )
    finally:
        await conn.close()
    await sign_in(api.client, other)
    page = await api.client.get("/console/webhooks")
    for action in ("deactivate", "test"):
        answer = await api.client.post(
            f"/console/webhooks/{webhook_id}/{action}", data={"csrf": csrf_of(page)}
        )
        assert answer.status_code == 404, action
        assert "Traceback" not in answer.text
    assert (await api.client.get("/console/webhooks/deliveries/999999999")).status_code == 404
    assert (await api.client.get(f"/console/webhooks/deliveries/{2**63}")).status_code in (400, 404)
    replay = await api.client.post(
        "/console/webhooks/deliveries/999999999/replay", data={"csrf": csrf_of(page)}
    )
    assert replay.status_code == 404


async def test_bad_delivery_filters_show_their_message_beside_the_field(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    await sign_in(api.client, await new_client(pg_uow))
    bad = await api.client.get("/console/webhooks/deliveries?webhookId=x1&status=lost&eventType=cash_in")
    assert bad.status_code == 400
    assert 'id="e-webhookId">webhookId: must be a whole number' in bad.text
    assert 'id="e-status">status: must be one of pending, delivered, failed' in bad.text
    assert 'value="x1"' in bad.text
    assert '<option value="cash_in" selected>' in bad.text
    nul = await api.client.get("/console/webhooks/deliveries?status=%00")
    assert nul.status_code == 400


async def test_a_test_event_reaches_the_receiver_and_the_page_says_what_it_answered(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    settings = replace(_settings(database, tmp_path), webhook_allow_private=True)
    async with running_receiver() as receiver, running_api(settings, SystemClock(), database) as api:
        await sign_in(api.client, await new_client(pg_uow))
        made = await register(api.client, receiver.url("/probe"))
        webhook_id = re.search(r"Webhook (\d+) registered", made.text).group(1)  # type: ignore[union-attr]
        sent = await api.client.post(f"/console/webhooks/{webhook_id}/test", data={"csrf": csrf_of(made)})
        assert sent.status_code == 200
        assert f"Test event to webhook {webhook_id}:" in sent.text
        assert "the receiver answered 200" in sent.text
        (got,) = receiver.at("/probe")
        assert b'"PING"' in got.body


async def test_without_a_notifier_test_events_are_unavailable(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    app = create_app(_settings(database, tmp_path), clock=SystemClock(), database=database)
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000") as http,
    ):
        await sign_in(http, await new_client(pg_uow))
        page = await http.get("/console/webhooks")
        assert "Eventos de teste indisponíveis" in page.text  # no Accept-Language: Portuguese
        answer = await http.post("/console/webhooks/1/test", data={"csrf": csrf_of(page)})
        assert answer.status_code == 503
        assert '<div class="notice error" role="status"><p>Eventos de teste indisponíveis' in answer.text


async def test_a_payment_delivery_is_listed_with_its_payload_and_attempts(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    settings = replace(_settings(database, tmp_path), webhook_allow_private=True, run_workers=True)
    async with running_receiver() as receiver, running_api(settings, SystemClock(), database) as api:
        client = await new_client(pg_uow)
        await sign_in(api.client, client)
        made = await register(api.client, receiver.url("/paid"))
        webhook_id = re.search(r"Webhook (\d+) registered", made.text).group(1)  # type: ignore[union-attr]
        form = await api.client.get("/console/receive")
        key = client.opened.keys[0].value
        paid = await api.client.post(
            "/console/receive",
            data={
                "csrf": csrf_of(form),
                "pix_key": key,
                "amount": "12.34",
                "payer_name": "Outside Payer",
                "payer_document": "11144477735",
            },
        )
        assert paid.status_code == 303, paid.text[-1500:]
        await receiver.wait_for(1, "/paid")
        listed = await api.client.get(f"/console/webhooks/deliveries?webhookId={webhook_id}")
        assert listed.status_code == 200
        found = re.search(r'href="/console/webhooks/deliveries/(\d+)"', listed.text)
        assert found is not None, listed.text
        detail = await api.client.get(f"/console/webhooks/deliveries/{found.group(1)}")
        assert detail.status_code == 200
        assert "12.34" in detail.text
        shown = html.unescape(detail.text)
        (got,) = receiver.at("/paid")
        sent = json.loads(got.body)
        assert (
            json.dumps(sent, indent=2, ensure_ascii=False, sort_keys=True) in shown
        )  # exactly what was sent
        for _ in range(100):  # the receiver has it; the notifier records the answer just after
            if 'id="delivery-status">Delivered<' in detail.text:
                break
            await asyncio.sleep(0.1)
            detail = await api.client.get(f"/console/webhooks/deliveries/{found.group(1)}")
        assert 'id="delivery-status">Delivered<' in detail.text
        assert "<td>200</td>" in detail.text  # the attempt, with the receiver's answer
        assert receiver.url("/paid") in detail.text
        none_failed = await api.client.get(
            f"/console/webhooks/deliveries?webhookId={webhook_id}&status=failed"
        )
        assert "No deliveries." in none_failed.text
