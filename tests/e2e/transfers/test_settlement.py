"""What settlement leaves behind: records, outbox events, the loop that runs by itself, the sandbox."""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import replace
from pathlib import Path

from pixcore.clock import SystemClock
from pixcore.documents import mask_document
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api, running_api
from tests.support import add_external_key, bearer, fetch_rows, fund, ledger_report, new_client, random_cpf


async def test_completed_transfer_writes_its_record_and_transfer_event(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, "50.00")
    key, document = await add_external_key(api.client, auth, ispb="87654321", name="Ext Holder")
    idempotency = str(uuid.uuid4())
    body = {
        "pixKey": key,
        "payment": {"currency": "BRL", "amount": 12.34},
        "description": "rent",
        "priority": "HIGH",
        "creditorDocument": document,
    }
    created = (
        await api.client.post("/dict/pix", json=body, headers=auth | {"x-idempotency-key": idempotency})
    ).json()

    [record] = await fetch_rows(migrated_database, "SELECT * FROM transactions WHERE id = $1", created["id"])
    assert record["type"] == "WITHDRAW"
    assert record["status"] == "PENDING"
    assert record["external_id"] == idempotency
    assert record["amount"] == 1234

    await settle_due(pg_uow, api.clock)
    [record] = await fetch_rows(migrated_database, "SELECT * FROM transactions WHERE id = $1", created["id"])
    assert record["status"] == "CONFIRMED"
    assert record["processed_at"] is not None
    [event] = await fetch_rows(
        migrated_database,
        "SELECT payload FROM outbox WHERE event_type = 'TRANSFER' AND (payload->'data'->>'id')::bigint = $1",
        created["id"],
    )
    payload = json.loads(event["payload"])
    assert payload["type"] == "TRANSFER"
    data = payload["data"]
    assert set(data) == {
        "id",
        "txId",
        "pixKey",
        "status",
        "payment",
        "endToEndId",
        "creditDebitType",
        "idempotencyKey",
        "creditorAccount",
        "remittanceInformation",
    }
    assert data["status"] == "LIQUIDATED"
    assert data["txId"] is None
    assert data["payment"] == {"amount": "12.34", "currency": "BRL"}
    assert data["endToEndId"] == created["endToEndId"]
    assert data["creditDebitType"] == "DEBIT"
    assert data["idempotencyKey"] == idempotency
    assert data["creditorAccount"] == {
        "name": "Ext Holder",
        "document": mask_document(document),
        "ispb": "87654321",
    }
    assert data["remittanceInformation"] == "rent"


async def test_failed_transfer_event_carries_the_spi_reason(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, "5.00")
    key, _ = await add_external_key(api.client, auth, behavior="reject")
    created = (
        await api.client.post(
            "/dict/pix",
            json={"pixKey": key, "payment": {"amount": 5}},
            headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
        )
    ).json()
    api.clock.advance(api.settings.norm_delay_seconds)
    await settle_due(pg_uow, api.clock)
    [event] = await fetch_rows(
        migrated_database,
        "SELECT payload FROM outbox WHERE event_type = 'TRANSFER' AND (payload->'data'->>'id')::bigint = $1",
        created["id"],
    )
    data = json.loads(event["payload"])["data"]
    assert data["status"] == "ERROR"
    assert data["errorCode"] == "AC06"
    [record] = await fetch_rows(
        migrated_database, "SELECT status FROM transactions WHERE id = $1", created["id"]
    )
    assert record["status"] == "ERROR"


async def test_internal_transfer_gives_the_receiver_a_payment_and_a_receive_event(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    sender, receiver = await new_client(pg_uow), await new_client(pg_uow)
    auth = await bearer(api.client, sender)
    await fund(api.client, sender, auth, "20.00")
    body = {
        "pixKey": receiver.opened.keys[0].value,
        "payment": {"amount": 7},
        "priority": "HIGH",
        "creditorDocument": receiver.opened.account.document,
    }
    created = (
        await api.client.post("/dict/pix", json=body, headers=auth | {"x-idempotency-key": str(uuid.uuid4())})
    ).json()
    await settle_due(pg_uow, api.clock)
    [payment] = await fetch_rows(
        migrated_database,
        "SELECT * FROM transactions WHERE account_id = $1 AND type = 'PAYMENT'",
        receiver.account_id,
    )
    assert payment["status"] == "CONFIRMED"
    assert payment["amount"] == 700
    assert payment["end_to_end_id"] == created["endToEndId"]
    assert payment["counterpart_document"] == sender.opened.account.document
    [event] = await fetch_rows(
        migrated_database,
        "SELECT payload FROM outbox WHERE account_id = $1 AND event_type = 'RECEIVE'",
        receiver.account_id,
    )
    data = json.loads(event["payload"])["data"]
    assert data["id"] == payment["id"]
    assert data["payment"] == {"amount": "7.00", "currency": "BRL"}
    assert data["debtorAccount"]["document"] == mask_document(sender.opened.account.document)


async def test_settlement_runs_by_itself_in_the_service(
    pg_uow: UnitOfWorkFactory, api: Api, tmp_path: Path, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    settings = replace(api.settings, run_workers=True, data_dir=tmp_path / "workers")
    async with running_api(settings, SystemClock()) as live:
        auth = await bearer(live.client, client)
        await fund(live.client, client, auth, "3.00")
        key, document = await add_external_key(live.client, auth)
        body = {"pixKey": key, "payment": {"amount": 3}, "priority": "HIGH", "creditorDocument": document}
        response = await live.client.post(
            "/dict/pix", json=body, headers=auth | {"x-idempotency-key": str(uuid.uuid4())}
        )
        assert response.status_code == 201
        for _ in range(200):
            amount = (await live.client.get("/accounts/balances", headers=auth)).json()["data"][0][
                "balanceAmount"
            ]
            if amount["blocked"] == 0:
                break
            await asyncio.sleep(0.05)
        assert amount == {"available": 0, "blocked": 0, "overdraft": 0}
    assert (await ledger_report(migrated_database))["ok"]


async def test_sandbox_clock_moves_the_service_clock(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow, sandbox_admin=True)
    auth = await bearer(api.client, client)
    before = api.clock.now()
    response = await api.client.post("/sandbox/clock", json={"advanceSeconds": 3600}, headers=auth)
    assert response.status_code == 200
    assert (api.clock.now() - before).total_seconds() >= 3600
    # An hour on, the token (30 minutes) has expired by the service clock.
    assert (await api.client.get("/balance", headers=auth)).status_code == 401
    auth = await bearer(api.client, client)
    backwards = await api.client.post("/sandbox/clock", json={"advanceSeconds": -1}, headers=auth)
    assert backwards.status_code == 400


async def test_sandbox_payment_to_a_key_of_another_account_is_refused(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    mine, theirs = await new_client(pg_uow), await new_client(pg_uow)
    auth = await bearer(api.client, mine)
    response = await api.client.post(
        "/sandbox/payments", json={"pixKey": theirs.opened.keys[0].value, "amount": 1}, headers=auth
    )
    assert response.status_code == 422
    assert (await api.client.get("/balance", headers=await bearer(api.client, theirs))).json()[
        "netBalance"
    ] == 0


async def test_sandbox_directory_refuses_duplicates_and_keys_of_accounts(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    key, _ = await add_external_key(api.client, auth, ispb="87654321", name="Ext Holder")
    again = {"pixKey": key, "ispb": "87654321", "name": "X", "document": random_cpf()}
    assert (await api.client.post("/sandbox/dict", json=again, headers=auth)).status_code == 409
    ours = again | {"pixKey": client.opened.keys[0].value}
    assert (await api.client.post("/sandbox/dict", json=ours, headers=auth)).status_code == 409


async def test_sandbox_routes_do_not_exist_when_the_sandbox_is_off(
    pg_uow: UnitOfWorkFactory, api: Api, tmp_path: Path
) -> None:
    client = await new_client(pg_uow)
    settings = replace(api.settings, sandbox=False, data_dir=tmp_path / "prod")
    async with running_api(settings, SystemClock()) as production:
        auth = await bearer(production.client, client)
        for path in ("/sandbox/dict", "/sandbox/payments", "/sandbox/clock"):
            response = await production.client.post(path, json={}, headers=auth)
            assert response.status_code == 404, path
