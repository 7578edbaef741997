"""``pixweb serve`` runs the delivery loop in its own process unless told not to."""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import replace
from pathlib import Path

import asyncpg

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api, running_api
from tests.integration.receiver import running_receiver
from tests.support import new_client


async def test_the_api_delivers_webhooks_while_it_runs(
    pg_uow: UnitOfWorkFactory, api: Api, tmp_path: Path
) -> None:
    settings = replace(
        api.settings, run_workers=True, webhook_allow_private=True, data_dir=tmp_path / "loops"
    )
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    event = {"type": "RECEIVE", "data": {"id": 1, "txId": "x" * 26, "status": "LIQUIDATED"}}
    account = (await new_client(pg_uow, link=False)).account_id
    conn = await asyncpg.connect(settings.database_url)
    try:
        # Only this test's event is to go out: what earlier tests left behind is set aside.
        await conn.execute("UPDATE outbox SET dispatched_at = now() WHERE dispatched_at IS NULL")
        await conn.execute(
            """UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now()
               WHERE status = 'pending'"""
        )
        async with running_receiver() as receiver:
            await conn.execute(
                "INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, now())",
                account,
                secret,
            )
            await conn.execute(
                """INSERT INTO webhooks (account_id, event_type, url, created_at, updated_at)
                   VALUES ($1, 'cash_in', $2, now(), now())""",
                account,
                receiver.url("/in-api"),
            )
            async with running_api(settings, SystemClock()):
                await conn.execute(
                    """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
                       VALUES ($1, 'RECEIVE', 'cash_in', $2::jsonb, now())""",
                    account,
                    json.dumps(event),
                )
                await receiver.wait_for(1, "/in-api")
            (got,) = receiver.at("/in-api")
            assert got.verify(secret) == event
            status = await conn.fetchval(
                "SELECT status FROM webhook_deliveries WHERE message_id = $1", got.webhook_id
            )
            assert status == "delivered"
    finally:
        await conn.close()
