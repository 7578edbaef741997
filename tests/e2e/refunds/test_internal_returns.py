"""Money between two accounts of the service, end to end (docs/decisions/refunds-and-med.md): a refund or
an accepted MED of a PIX that another of our accounts sent returns it to that account; the sandbox's outside
world is never one of our own institution."""

from __future__ import annotations

import uuid
from decimal import Decimal

from pixcore.refunds.refund_service import process_due_refunds
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.refunds.test_refunds import balance, put_refund, receive, refund_id
from tests.support import Client, bearer, fetch_rows, ledger_report, new_client


async def _pair(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str], Client, dict[str, str]]:
    payer, receiver = await new_client(pg_uow), await new_client(pg_uow)
    return payer, await bearer(api.client, payer), receiver, await bearer(api.client, receiver)


async def _send(pg_uow: UnitOfWorkFactory, api: Api, auth: dict[str, str], key: str, reais: int) -> str:
    """A transfer of ``reais`` (whole) to ``key``, settled; returns its e2e id."""
    response = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": reais}},
        headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
    )
    assert response.status_code == 201, response.text
    api.clock.advance(api.settings.norm_delay_seconds)
    assert await settle_due(pg_uow, api.clock) >= 1
    e2e: str = response.json()["endToEndId"]
    return e2e


async def test_a_refund_of_a_pix_from_another_of_our_accounts_returns_it_there(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    payer, payer_auth, receiver, receiver_auth = await _pair(pg_uow, api)
    await receive(api, payer, payer_auth, 100)
    e2e = await _send(pg_uow, api, payer_auth, receiver.opened.keys[0].value, 10)
    assert await balance(api, payer_auth) == (Decimal("90.00"), Decimal("0.00"))
    assert await balance(api, receiver_auth) == (Decimal("10.00"), Decimal("0.00"))

    response = await put_refund(api, receiver_auth, e2e, refund_id(), valor="10.00")
    assert response.status_code == 201, response.text
    rtr_id = response.json()["rtrId"]
    api.clock.advance(api.settings.norm_delay_seconds)
    assert await process_due_refunds(pg_uow, api.clock) >= 1

    assert await balance(api, receiver_auth) == (Decimal("0.00"), Decimal("0.00"))
    assert await balance(api, payer_auth) == (Decimal("100.00"), Decimal("0.00"))
    rows = await fetch_rows(
        migrated_database,
        "SELECT type, status, amount FROM transactions WHERE account_id = $1 AND end_to_end_id = $2",
        payer.account_id,
        rtr_id,
    )
    assert [tuple(row) for row in rows] == [("REFUND_OUT", "CONFIRMED", 1000)]
    events = await fetch_rows(
        migrated_database,
        "SELECT payload FROM outbox WHERE account_id = $1 AND event_type = 'REFUND'",
        payer.account_id,
    )
    assert len(events) == 1
    assert '"creditDebitType": "CREDIT"' in events[0]["payload"]
    report = await ledger_report(migrated_database)
    assert report["ok"] is True, report
    assert report["ledgerTotal"] == 0
    assert report["outsideInstitutionsOfOurs"] == []


async def test_an_accepted_med_of_a_pix_from_another_of_our_accounts_returns_it_there(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    payer, payer_auth, receiver, receiver_auth = await _pair(pg_uow, api)
    await receive(api, payer, payer_auth, 50)
    e2e = await _send(pg_uow, api, payer_auth, receiver.opened.keys[0].value, 20)
    opened = await api.client.post(
        "/sandbox/med", json={"endToEndId": e2e, "reason": "MED_FRAUDE"}, headers=receiver_auth
    )
    assert opened.status_code == 201, opened.text

    accepted = await api.client.post(f"/sandbox/med/{opened.json()['id']}/accept", headers=receiver_auth)

    assert accepted.status_code == 200, accepted.text
    assert await balance(api, receiver_auth) == (Decimal("0.00"), Decimal("0.00"))
    assert await balance(api, payer_auth) == (Decimal("50.00"), Decimal("0.00"))


async def test_the_sandbox_cannot_refund_a_transfer_to_one_of_our_accounts(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    payer, payer_auth, receiver, receiver_auth = await _pair(pg_uow, api)
    await receive(api, payer, payer_auth, 100)
    e2e = await _send(pg_uow, api, payer_auth, receiver.opened.keys[0].value, 10)

    response = await api.client.post(
        "/sandbox/refunds", json={"endToEndId": e2e, "amount": 5}, headers=payer_auth
    )

    assert response.status_code == 422, response.text
    assert response.json()["statusCode"] == 422
    assert "account of this service" in response.json()["message"]
    assert await balance(api, payer_auth) == (Decimal("90.00"), Decimal("0.00"))
    assert await balance(api, receiver_auth) == (Decimal("10.00"), Decimal("0.00"))
    assert (await ledger_report(migrated_database))["ok"] is True


async def test_a_sandbox_payer_is_never_of_our_own_institution(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    payer = {"name": "Pagador", "document": "11144477735", "ispb": api.settings.ispb}
    body = {"pixKey": client.opened.keys[0].value, "amount": 10, "payer": payer}

    response = await api.client.post("/sandbox/payments", json=body, headers=auth)

    assert response.status_code == 422, response.text
    assert api.settings.ispb in response.json()["message"]
    assert await balance(api, auth) == (Decimal("0.00"), Decimal("0.00"))


async def test_a_sandbox_key_is_never_of_our_own_institution(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    body = {
        "pixKey": f"{uuid.uuid4().hex[:12]}@example.com",
        "ispb": api.settings.ispb,
        "name": "Loja",
        "document": "11144477735",
    }

    response = await api.client.post("/sandbox/dict", json=body, headers=auth)

    assert response.status_code == 422, response.text
    assert response.json()["error"] == "Unprocessable Entity"
