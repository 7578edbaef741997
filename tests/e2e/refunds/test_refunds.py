"""Refunds end to end: PUT/GET /pix/{e2eid}/devolucao/{id}, limits, the window, processing,
refunds received through the sandbox, and MED cases."""

from __future__ import annotations

import asyncio
import json
import secrets
import string
import uuid
from decimal import Decimal
from typing import Any

import pytest

from pixcore.refunds.refund_service import process_due_refunds
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, add_external_key, bearer, fetch_rows, ledger_report, new_client, random_cpf


def refund_id() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(20))


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def receive(api: Api, client: Client, auth: dict[str, str], reais: int = 100) -> str:
    """An outside payer pays ``reais`` (whole) to the client's key; returns the receipt's e2e id."""
    payer = {"name": "Pagador Externo", "document": random_cpf(), "ispb": "12345678"}
    body = {"pixKey": client.opened.keys[0].value, "amount": reais, "payer": payer}
    response = await api.client.post("/sandbox/payments", json=body, headers=auth)
    assert response.status_code == 201, response.text
    e2e: str = response.json()["endToEndId"]
    return e2e


async def balance(api: Api, auth: dict[str, str]) -> tuple[Decimal, Decimal]:
    amount = (await api.client.get("/accounts/balances", headers=auth)).json()["data"][0]["balanceAmount"]
    return Decimal(str(amount["available"])), Decimal(str(amount["blocked"]))


async def put_refund(api: Api, auth: dict[str, str], e2e: str, rid: str, **body: Any) -> Any:
    return await api.client.put(f"/pix/{e2e}/devolucao/{rid}", json={"valor": "10.00"} | body, headers=auth)


async def test_a_refund_reserves_then_returns_the_funds_and_notifies(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth)
    rid = refund_id()
    response = await put_refund(api, auth, e2e, rid, valor="30.00", descricao="Devolucao parcial")
    assert response.status_code == 201, response.text
    refund = response.json()
    assert refund["id"] == rid
    assert refund["status"] == "EM_PROCESSAMENTO"
    assert refund["valor"] == "30.00"
    assert refund["natureza"] == "ORIGINAL"
    assert refund["descricao"] == "Devolucao parcial"
    assert len(refund["rtrId"]) == 32
    assert refund["rtrId"].startswith("D")
    assert "solicitacao" in refund["horario"]
    assert await balance(api, auth) == (Decimal("70.00"), Decimal("30.00"))

    api.clock.advance(api.settings.norm_delay_seconds)
    assert await process_due_refunds(pg_uow, api.clock) >= 1
    assert await balance(api, auth) == (Decimal("70.00"), Decimal("0.00"))
    read = (await api.client.get(f"/pix/{e2e}/devolucao/{rid}", headers=auth)).json()
    assert read["status"] == "DEVOLVIDO"
    assert "liquidacao" in read["horario"]

    rows = await fetch_rows(
        migrated_database,
        "SELECT type, status, amount FROM transactions WHERE account_id = $1 AND end_to_end_id = $2",
        client.account_id,
        refund["rtrId"],
    )
    assert [tuple(r) for r in rows] == [("REFUND_IN", "CONFIRMED", 3000)]
    events = await fetch_rows(
        migrated_database,
        "SELECT payload::text AS text FROM outbox WHERE account_id = $1 AND event_type = 'REFUND'",
        client.account_id,
    )
    assert len(events) == 1
    event = json.loads(events[0]["text"])
    assert event["data"]["creditDebitType"] == "DEBIT"
    assert event["data"]["status"] == "REFUNDED"
    assert event["data"]["endToEndId"] == e2e
    assert event["data"]["payment"] == {"amount": "100.00", "currency": "BRL"}
    [item] = event["data"]["refunds"]
    assert item["endToEndId"] == refund["rtrId"]
    assert item["status"] == "LIQUIDATED"
    assert item["payment"] == {"amount": 30, "currency": "BRL"}
    assert '"amount": 30.00' in events[0]["text"]  # a number, with its two decimals, never a float
    assert item["information"] == "Devolucao parcial"
    assert (await ledger_report(migrated_database))["ok"]


async def test_repeating_a_put_returns_the_refund_and_another_body_is_409(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth)
    rid = refund_id()
    first = await put_refund(api, auth, e2e, rid)
    again = await put_refund(api, auth, e2e, rid)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    other = await put_refund(api, auth, e2e, rid, valor="11.00")
    assert other.status_code == 409
    assert other.json()["error"] == "Conflict"
    assert await balance(api, auth) == (Decimal("90.00"), Decimal("10.00"))


@pytest.mark.parametrize(
    ("path", "body", "detail"),
    [
        ("E123", {"valor": "1.00"}, "e2eid"),
        (None, {"valor": "1.00", "@id": "a" * 36}, "refund id"),
        (None, {"valor": "1.00", "@id": "abc-1"}, "refund id"),
        (None, {"valor": "1"}, "valor"),
        (None, {"valor": 1.0}, "valor"),
        (None, {"valor": "0.00"}, "valor"),
        (None, {"valor": "-1.00"}, "valor"),
        (None, {"valor": "1.00", "natureza": "MED_FRAUDE"}, "natureza"),
        (None, {"valor": "1.00", "natureza": "MED_OPERACIONAL"}, "natureza"),
        (None, {"valor": "1.00", "natureza": "OUTRA"}, "natureza"),
        (None, {"valor": "1.00", "descricao": "x" * 141}, "descricao"),
        (None, {"valor": "100.01"}, "refundable"),
    ],
)
async def test_each_rule_is_a_400(
    api: Api, owner: tuple[Client, dict[str, str]], path: str | None, body: dict[str, Any], detail: str
) -> None:
    client, auth = owner
    e2e = path or await receive(api, client, auth)
    rid = body.pop("@id", refund_id())
    response = await api.client.put(f"/pix/{e2e}/devolucao/{rid}", json=body, headers=auth)
    assert response.status_code == 400, response.text
    assert response.json()["statusCode"] == 400
    assert detail in response.json()["message"]


async def test_unknown_foreign_and_non_receipt_e2e_ids_are_404(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth)
    assert (await put_refund(api, auth, "E" + "0" * 31, refund_id())).status_code == 404
    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    assert (await put_refund(api, other_auth, e2e, refund_id())).status_code == 404
    rid = refund_id()
    assert (await put_refund(api, auth, e2e, rid)).status_code == 201
    assert (await api.client.get(f"/pix/{e2e}/devolucao/{rid}", headers=other_auth)).status_code == 404
    assert (await api.client.get(f"/pix/{e2e}/devolucao/{refund_id()}", headers=auth)).status_code == 404
    # A transfer we sent is not a receipt: its e2e id cannot be refunded by us.
    sent = await _settled_transfer(pg_uow, api, auth, 5)
    not_receipt = await put_refund(api, auth, sent, refund_id(), valor="1.00")
    assert not_receipt.status_code == 404
    assert not_receipt.json()["statusCode"] == 404


async def test_partial_refunds_until_the_original_is_used_up(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth, 50)
    assert (await put_refund(api, auth, e2e, refund_id(), valor="20.00")).status_code == 201
    assert (await put_refund(api, auth, e2e, refund_id(), valor="30.00")).status_code == 201
    over = await put_refund(api, auth, e2e, refund_id(), valor="0.01")
    assert over.status_code == 400
    assert "0.00" in over.json()["message"]


async def test_30_concurrent_refunds_never_exceed_the_original(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth, 100)
    responses = await asyncio.gather(
        *(put_refund(api, auth, e2e, refund_id(), valor="7.00") for _ in range(30))
    )
    statuses = [r.status_code for r in responses]
    assert statuses.count(201) == 14, statuses  # 14 x 7.00 = 98.00; a 15th would pass 100.00
    assert statuses.count(400) == 16
    rows = await fetch_rows(
        migrated_database,
        "SELECT sum(r.amount) AS total FROM refunds r JOIN transactions t "
        "ON t.id = r.original_transaction_id WHERE t.end_to_end_id = $1 AND r.status <> 'NAO_REALIZADO'",
        e2e,
    )
    assert rows[0]["total"] == 9800
    assert await balance(api, auth) == (Decimal("2.00"), Decimal("98.00"))
    assert (await ledger_report(migrated_database))["ok"]


async def test_after_89_days_a_refund_is_422(api: Api, owner: tuple[Client, dict[str, str]]) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth)
    api.clock.advance(89 * 86_400 - 5)
    auth = await bearer(api.client, client)  # the first token expired long ago
    assert (await put_refund(api, auth, e2e, refund_id())).status_code == 201
    api.clock.advance(10)
    late = await put_refund(api, auth, e2e, refund_id())
    assert late.status_code == 422
    assert "89 days" in late.json()["message"]


async def test_a_refund_available_cannot_cover_ends_nao_realizado(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth, 40)
    key, _ = await add_external_key(api.client, auth)
    spent = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": 35}},
        headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
    )
    assert spent.status_code == 201, spent.text
    rid = refund_id()
    created = await put_refund(api, auth, e2e, rid, valor="10.00")
    assert created.status_code == 201
    assert created.json()["status"] == "EM_PROCESSAMENTO"
    assert await balance(api, auth) == (Decimal("5.00"), Decimal("35.00"))  # nothing reserved

    api.clock.advance(api.settings.norm_delay_seconds)
    await settle_due(pg_uow, api.clock)
    await process_due_refunds(pg_uow, api.clock)
    read = (await api.client.get(f"/pix/{e2e}/devolucao/{rid}", headers=auth)).json()
    assert read["status"] == "NAO_REALIZADO"
    assert read["motivo"]
    assert await balance(api, auth) == (Decimal("5.00"), Decimal("0.00"))
    # A refund that was not made does not count: the full 40.00 may be refunded again.
    assert (await put_refund(api, auth, e2e, refund_id(), valor="5.00")).status_code == 201
    assert (await ledger_report(migrated_database))["ok"]


async def _settled_transfer(
    pg_uow: UnitOfWorkFactory, api: Api, auth: dict[str, str], amount: int = 20
) -> str:
    key, _ = await add_external_key(api.client, auth)
    response = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": amount}},
        headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
    )
    assert response.status_code == 201, response.text
    api.clock.advance(api.settings.norm_delay_seconds)
    await settle_due(pg_uow, api.clock)
    e2e: str = response.json()["endToEndId"]
    return e2e


async def test_a_refund_received_for_a_transfer_credits_and_is_limited(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    await receive(api, client, auth, 50)
    e2e = await _settled_transfer(pg_uow, api, auth, 20)
    assert await balance(api, auth) == (Decimal("30.00"), Decimal("0.00"))
    first = await api.client.post("/sandbox/refunds", json={"endToEndId": e2e, "amount": 15}, headers=auth)
    assert first.status_code == 201, first.text
    assert first.json()["status"] == "DEVOLVIDO"
    assert await balance(api, auth) == (Decimal("45.00"), Decimal("0.00"))
    over = await api.client.post("/sandbox/refunds", json={"endToEndId": e2e, "amount": 5.01}, headers=auth)
    assert over.status_code == 400
    rest = await api.client.post("/sandbox/refunds", json={"endToEndId": e2e, "amount": 5}, headers=auth)
    assert rest.status_code == 201
    rows = await fetch_rows(
        migrated_database,
        "SELECT type, status, amount FROM transactions WHERE account_id = $1 AND type = 'REFUND_OUT' "
        "ORDER BY id",
        client.account_id,
    )
    assert [tuple(r) for r in rows] == [("REFUND_OUT", "CONFIRMED", 1500), ("REFUND_OUT", "CONFIRMED", 500)]
    events = await fetch_rows(
        migrated_database,
        "SELECT payload->'data'->>'creditDebitType' AS kind FROM outbox "
        "WHERE account_id = $1 AND event_type = 'REFUND'",
        client.account_id,
    )
    assert [e["kind"] for e in events] == ["CREDIT", "CREDIT"]
    unknown = await api.client.post(
        "/sandbox/refunds", json={"endToEndId": "E" + "1" * 31, "amount": 1}, headers=auth
    )
    assert unknown.status_code == 404
    assert (await ledger_report(migrated_database))["ok"]


async def test_med_accepted_refunds_the_blocked_amount_with_a_med_nature(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth, 80)
    assert (await put_refund(api, auth, e2e, refund_id(), valor="30.00")).status_code == 201
    opened = await api.client.post(
        "/sandbox/med", json={"endToEndId": e2e, "reason": "MED_FRAUDE"}, headers=auth
    )
    assert opened.status_code == 201, opened.text
    case = opened.json()
    assert case["status"] == "CREATED"
    assert case["amount"] == 50  # what remained refundable
    assert await balance(api, auth) == (Decimal("0.00"), Decimal("80.00"))
    # While the case is open, nothing more may be refunded, and no second case opened.
    assert (await put_refund(api, auth, e2e, refund_id(), valor="0.01")).status_code == 400
    again = await api.client.post(
        "/sandbox/med", json={"endToEndId": e2e, "reason": "MED_FRAUDE"}, headers=auth
    )
    assert again.status_code == 409

    accepted = await api.client.post(f"/sandbox/med/{case['id']}/accept", headers=auth)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "ACCEPTED"
    refund = accepted.json()["refund"]
    assert refund["natureza"] == "MED_FRAUDE"
    assert refund["status"] == "DEVOLVIDO"
    read = await api.client.get(f"/pix/{e2e}/devolucao/{refund['id']}", headers=auth)
    assert read.json()["natureza"] == "MED_FRAUDE"
    assert await balance(api, auth) == (Decimal("0.00"), Decimal("30.00"))
    assert (await api.client.post(f"/sandbox/med/{case['id']}/reject", headers=auth)).status_code == 422

    events = await fetch_rows(
        migrated_database,
        "SELECT payload->'data'->>'status' AS status FROM outbox "
        "WHERE account_id = $1 AND event_type = 'MED' ORDER BY id",
        client.account_id,
    )
    assert [e["status"] for e in events] == ["CREATED", "ACCEPTED"]
    assert (await ledger_report(migrated_database))["ok"]


async def test_med_rejected_releases_and_blocks_only_what_is_available(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    client, auth = owner
    e2e = await receive(api, client, auth, 60)
    key, _ = await add_external_key(api.client, auth)
    spent = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": 45}},
        headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
    )
    assert spent.status_code == 201
    opened = await api.client.post(
        "/sandbox/med", json={"endToEndId": e2e, "reason": "MED_OPERACIONAL"}, headers=auth
    )
    case = opened.json()
    assert (case["amount"], case["blocked"]) == (60, 15)
    assert await balance(api, auth) == (Decimal("0.00"), Decimal("60.00"))
    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    assert (await api.client.post(f"/sandbox/med/{case['id']}/reject", headers=other_auth)).status_code == 404

    rejected = await api.client.post(f"/sandbox/med/{case['id']}/reject", headers=auth)
    assert rejected.status_code == 200
    assert rejected.json()["status"] == "REJECTED"
    assert await balance(api, auth) == (Decimal("15.00"), Decimal("45.00"))
    bad = await api.client.post("/sandbox/med", json={"endToEndId": e2e, "reason": "ORIGINAL"}, headers=auth)
    assert bad.status_code == 400
    assert (await ledger_report(migrated_database))["ok"]


@pytest.mark.parametrize("action", ["accept", "reject"])
@pytest.mark.parametrize("case_id", [0, 2**63, 10**22])
async def test_a_med_case_id_out_of_range_is_not_found(
    api: Api, owner: tuple[Client, dict[str, str]], action: str, case_id: int
) -> None:
    # Found by the fuzz suite: an id beyond bigint reached the database and came back as a 500.
    _, auth = owner
    response = await api.client.post(f"/sandbox/med/{case_id}/{action}", headers=auth)
    assert response.status_code == 404, response.text
    assert set(response.json()) == {"statusCode", "message", "error"}


async def test_concurrent_requests_of_one_refund_id_get_one_answer(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    """A refund id is the refund's idempotency key: six PUTs of one id at once, beside another id
    competing for the same refundable amount (one of the two fits), in rounds: every request of an id
    gets one answer (the same refund, or the same refusal), and an id refunds at most once."""
    client, auth = owner
    made = 0
    for round_ in range(10):
        e2e = await receive(api, client, auth, 10)
        mine, stranger = refund_id(), refund_id()
        ids = [mine] * 6
        ids.insert(round_ % 7, stranger)
        responses = await asyncio.gather(*(put_refund(api, auth, e2e, rid, valor="10.00") for rid in ids))
        for rid in (mine, stranger):
            # The request that made the refund is answered 201, a replay 200: the same refund.
            answers = {
                ("made", r.json()["rtrId"]) if r.status_code in {200, 201} else (r.status_code, r.text)
                for asked, r in zip(ids, responses, strict=True)
                if asked == rid
            }
            assert len(answers) == 1, (round_, rid == mine, answers)
            made += answers.pop()[0] == "made"
        assert sum(r.status_code == 201 for r in responses) == 1, [r.status_code for r in responses]
    assert made == 10
    rows = await fetch_rows(
        migrated_database,
        "SELECT count(*) AS n FROM refunds r JOIN transactions t ON t.id = r.original_transaction_id "
        "WHERE t.account_id = $1",
        client.account_id,
    )
    assert rows[0]["n"] == 10
    assert (await ledger_report(migrated_database))["ok"]
