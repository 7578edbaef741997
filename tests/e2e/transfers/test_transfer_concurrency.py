"""Transfers under real concurrency: many simultaneous HTTP requests and settlement workers on PostgreSQL.

Every request goes through the in-process app over the run's database; each one awaits database I/O,
so their transactions really interleave. The assertions are invariants (no 500, no deadlock reaching
a client, money conserved, each transfer finished exactly once, the ledger reconciles) and counts
derived from the responses, never timings.
"""

from __future__ import annotations

import asyncio
import json
import pprint
import uuid
from collections.abc import Awaitable, Iterable
from decimal import Decimal
from typing import Any

import httpx

from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, add_external_key, bearer, fetch_rows, fund, ledger_report, new_client

Auth = dict[str, str]


# --- helpers -------------------------------------------------------------------------------------


def _transfer_body(key: str, amount: float, **extra: Any) -> dict[str, Any]:
    return {"pixKey": key, "payment": {"currency": "BRL", "amount": amount}} | extra


def _headers(auth: Auth) -> Auth:
    return auth | {"x-idempotency-key": str(uuid.uuid4())}


async def _balance(api: Api, auth: Auth) -> tuple[Decimal, Decimal]:
    response = await api.client.get("/accounts/balances", headers=auth)
    assert response.status_code == 200, response.text
    amount = json.loads(response.text, parse_float=Decimal)["data"][0]["balanceAmount"]
    return Decimal(amount["available"]), Decimal(amount["blocked"])


async def _account(pg_uow: UnitOfWorkFactory, api: Api, amount: str) -> tuple[Client, Auth]:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, amount)
    return client, auth


async def _assert_ledger_ok(url: str) -> None:
    report = await ledger_report(url)
    if report["ok"] is not True:
        pprint.pprint(report)  # shown by pytest on failure
    assert report["ok"] is True, pprint.pformat(report)


def _assert_no_server_errors(responses: Iterable[httpx.Response], allowed: set[int]) -> None:
    unexpected = [(r.status_code, r.text) for r in responses if r.status_code not in allowed]
    assert not unexpected, unexpected[:5]
    deadlocks = [r.text for r in responses if "deadlock" in r.text.lower()]
    assert not deadlocks, deadlocks[:5]


async def _drain(pg_uow: UnitOfWorkFactory, api: Api) -> int:
    """Settle until nothing due is left; the number finished."""
    total = 0
    while finished := await settle_due(pg_uow, api.clock):
        total += finished
    return total


async def _settle_until(pg_uow: UnitOfWorkFactory, api: Api, done: asyncio.Event) -> int:
    """A settlement worker: rounds of ``settle_due`` until ``done`` was set before a round that found
    nothing. (SKIP LOCKED: a round may find nothing because another worker holds the rest; that
    worker finishes them.)"""
    total = 0
    while True:
        was_done = done.is_set()
        finished = await settle_due(pg_uow, api.clock)
        total += finished
        if was_done and finished == 0:
            return total
        await asyncio.sleep(0)


async def _all_then_set(
    done: asyncio.Event, requests: Iterable[Awaitable[httpx.Response]]
) -> list[httpx.Response]:
    try:
        return list(await asyncio.gather(*requests))
    finally:
        done.set()


async def _transfer_states(url: str, ids: list[int]) -> dict[int, str]:
    rows = await fetch_rows(
        url, "SELECT transaction_id, state FROM transfers WHERE transaction_id = ANY($1::bigint[])", ids
    )
    return {row["transaction_id"]: row["state"] for row in rows}


async def _transfer_event_counts(url: str, ids: list[int]) -> dict[int, int]:
    rows = await fetch_rows(
        url,
        """
        SELECT payload->'data'->>'id' AS id, count(*) AS events FROM outbox
         WHERE event_type = 'TRANSFER' AND payload->'data'->>'id' = ANY($1::text[])
         GROUP BY 1
        """,
        [str(i) for i in ids],
    )
    return {int(row["id"]): row["events"] for row in rows}


# --- tests ---------------------------------------------------------------------------------------


async def test_two_accounts_paying_each_other_while_settling(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    a, auth_a = await _account(pg_uow, api, "100.00")
    b, auth_b = await _account(pg_uow, api, "100.00")

    def to(receiver: Client, auth: Auth) -> Awaitable[httpx.Response]:
        body = _transfer_body(
            receiver.opened.keys[0].value,
            1.00,
            priority="HIGH",
            creditorDocument=receiver.opened.account.document,
        )
        return api.client.post("/dict/pix", json=body, headers=_headers(auth))

    directions: list[str] = []
    requests: list[Awaitable[httpx.Response]] = []
    for _ in range(100):
        directions += ["A->B", "B->A"]
        requests += [to(b, auth_a), to(a, auth_b)]

    done = asyncio.Event()
    responses, *_ = await asyncio.gather(
        _all_then_set(done, requests), *(_settle_until(pg_uow, api, done) for _ in range(4))
    )
    await _drain(pg_uow, api)

    _assert_no_server_errors(responses, {201, 422})
    a_sent = sum(
        1 for d, r in zip(directions, responses, strict=True) if d == "A->B" and r.status_code == 201
    )
    b_sent = sum(
        1 for d, r in zip(directions, responses, strict=True) if d == "B->A" and r.status_code == 201
    )
    # A starts with 100.00 and sends 100 x 1.00: nothing can be refused for lack of funds.
    assert a_sent == b_sent == 100

    created = [r.json()["id"] for r in responses if r.status_code == 201]
    assert len(set(created)) == len(created)
    states = await _transfer_states(migrated_database, created)
    assert set(states.values()) == {"COMPLETED"}, states
    assert len(states) == len(created)

    available_a, blocked_a = await _balance(api, auth_a)
    available_b, blocked_b = await _balance(api, auth_b)
    assert available_a + blocked_a + available_b + blocked_b == Decimal("200.00")
    assert (blocked_a, blocked_b) == (0, 0)
    assert available_a == Decimal(100 - a_sent + b_sent)
    assert available_b == Decimal(100 - b_sent + a_sent)
    await _assert_ledger_ok(migrated_database)


async def test_settlement_races_new_transfers_from_the_same_account(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    _, auth = await _account(pg_uow, api, "50.00")
    key, document = await add_external_key(api.client, auth)
    body = _transfer_body(key, 1.00, priority="HIGH", creditorDocument=document)

    done = asyncio.Event()
    requests = [api.client.post("/dict/pix", json=body, headers=_headers(auth)) for _ in range(50)]
    responses, *_ = await asyncio.gather(
        _all_then_set(done, requests), *(_settle_until(pg_uow, api, done) for _ in range(10))
    )

    _assert_no_server_errors(responses, {201})  # exactly the 50.00 there is: every one fits
    ids = [r.json()["id"] for r in responses]
    assert len(set(ids)) == 50

    events = await _transfer_event_counts(migrated_database, ids)
    assert events == dict.fromkeys(ids, 1), {i: n for i, n in events.items() if n != 1}
    states = await _transfer_states(migrated_database, ids)
    assert states == dict.fromkeys(ids, "COMPLETED"), states
    assert await _balance(api, auth) == (Decimal("0.00"), Decimal("0.00"))
    await _assert_ledger_ok(migrated_database)


async def test_several_settlement_workers_never_settle_a_transfer_twice(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    # The database is shared by the whole run: first finish whatever earlier tests left due, so that
    # the workers below can only find this test's transfers.
    api.clock.advance(api.settings.norm_delay_seconds + 1)
    await _drain(pg_uow, api)

    _, auth = await _account(pg_uow, api, "30.00")
    key, _ = await add_external_key(api.client, auth)
    responses = await asyncio.gather(
        *(
            api.client.post("/dict/pix", json=_transfer_body(key, 1.00), headers=_headers(auth))
            for _ in range(30)
        )
    )
    _assert_no_server_errors(responses, {201})
    ids = [r.json()["id"] for r in responses]
    assert await _balance(api, auth) == (Decimal("0.00"), Decimal("30.00"))

    api.clock.advance(api.settings.norm_delay_seconds + 1)
    finished = await asyncio.gather(*(settle_due(pg_uow, api.clock) for _ in range(8)))

    assert sum(finished) == 30, finished
    events = await _transfer_event_counts(migrated_database, ids)
    assert sum(events.values()) == 30
    assert events == dict.fromkeys(ids, 1)
    assert await _transfer_states(migrated_database, ids) == dict.fromkeys(ids, "COMPLETED")
    assert await _balance(api, auth) == (Decimal("0.00"), Decimal("0.00"))
    await _assert_ledger_ok(migrated_database)


async def test_receipts_and_transfers_on_one_account_at_once(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await _account(pg_uow, api, "10.00")
    key, document = await add_external_key(api.client, auth)
    own_key = client.opened.keys[0].value
    transfer = _transfer_body(key, 1.00, priority="HIGH", creditorDocument=document)

    # 90 transfers of 1.00 against 10.00 + 30 x 2.00 = 70.00: at least 20 must be refused, so the
    # receipts race transfers that are really short of funds.
    kinds: list[str] = []
    requests: list[Awaitable[httpx.Response]] = []
    for i in range(90):
        kinds.append("transfer")
        requests.append(api.client.post("/dict/pix", json=transfer, headers=_headers(auth)))
        if i % 3 == 2:
            kinds.append("receipt")
            requests.append(
                api.client.post("/sandbox/payments", json={"pixKey": own_key, "amount": "2.00"}, headers=auth)
            )
    assert kinds.count("receipt") == 30

    observed: list[tuple[Decimal, Decimal]] = []
    done = asyncio.Event()

    async def watch() -> None:
        while not done.is_set():
            observed.append(await _balance(api, auth))

    responses, *_ = await asyncio.gather(
        _all_then_set(done, requests), watch(), *(_settle_until(pg_uow, api, done) for _ in range(3))
    )
    await _drain(pg_uow, api)

    _assert_no_server_errors(responses, {201, 422})
    receipts = [r for k, r in zip(kinds, responses, strict=True) if k == "receipt"]
    transfers = [r for k, r in zip(kinds, responses, strict=True) if k == "transfer"]
    assert {r.status_code for r in receipts} == {201}, [r.text for r in receipts if r.status_code != 201]
    sent = sum(1 for r in transfers if r.status_code == 201)
    refused = [r for r in transfers if r.status_code == 422]
    assert len(refused) == 90 - sent
    assert all("insufficient" in r.text.lower() for r in refused), [r.text for r in refused[:3]]
    # Whole reais throughout: a transfer is refused only when available is 0.00, that is once the first
    # 10.00 and every receipt committed before it have been reserved. And no more than the 70.00 that
    # ever arrived can leave.
    assert 10 <= sent <= 70, sent

    assert observed, "the balance was never read while the requests ran"
    assert all(available >= 0 and blocked >= 0 for available, blocked in observed), observed
    assert await _balance(api, auth) == (Decimal(10 + 2 * len(receipts) - sent), Decimal("0.00"))
    ids = [r.json()["id"] for r in transfers if r.status_code == 201]
    assert await _transfer_states(migrated_database, ids) == dict.fromkeys(ids, "COMPLETED")
    await _assert_ledger_ok(migrated_database)
