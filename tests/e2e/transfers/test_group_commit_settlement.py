"""Settlement in groups on PostgreSQL: several loops at once, a mixed burst, each transfer finished once.

The workers below run ``settle_in_groups`` as the app's loop does, concurrently on the run's database;
the assertions are invariants (each transfer finished exactly once with the outcome its rules give,
one TRANSFER event each, money conserved, the ledger reconciles), never timings.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest

from pixcore.group_commit.settlement import settle_in_groups
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import add_external_key, bearer, fetch_rows, fund, ledger_report, new_client

Auth = dict[str, str]


def _body(key: str, amount: float, **extra: Any) -> dict[str, Any]:
    return {"pixKey": key, "payment": {"currency": "BRL", "amount": amount}} | extra


async def _balance(api: Api, auth: Auth) -> tuple[Decimal, Decimal]:
    response = await api.client.get("/accounts/balances", headers=auth)
    assert response.status_code == 200, response.text
    amount = response.json()["data"][0]["balanceAmount"]
    return Decimal(str(amount["available"])), Decimal(str(amount["blocked"]))


async def _drain(pg_uow: UnitOfWorkFactory, api: Api) -> int:
    total = 0
    while finished := await settle_due(pg_uow, api.clock):
        total += finished
    return total


async def test_several_grouped_loops_finish_a_mixed_burst_each_transfer_once(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The database is shared by the run: finish what earlier tests left due first.
    api.clock.advance(api.settings.norm_delay_seconds + 1)
    await _drain(pg_uow, api)

    sender = await new_client(pg_uow)
    auth = await bearer(api.client, sender)
    await fund(api.client, sender, auth, "100.00")
    receiver = await new_client(pg_uow)
    receiver_auth = await bearer(api.client, receiver)
    settles, _ = await add_external_key(api.client, auth)
    refuses, _ = await add_external_key(api.client, auth, behavior="reject")
    inside = receiver.opened.keys[0].value

    kinds = ["out", "refused", "expired", "inside"] * 10
    bodies = {
        "out": _body(settles, 1.00),
        "refused": _body(refuses, 1.00),
        "expired": _body(settles, 1.00, expiration=1),
        "inside": _body(inside, 1.00),
    }
    responses = await asyncio.gather(
        *(
            api.client.post(
                "/dict/pix", json=bodies[kind], headers=auth | {"x-idempotency-key": str(uuid.uuid4())}
            )
            for kind in kinds
        )
    )
    assert [r.status_code for r in responses] == [201] * 40, [
        r.text for r in responses if r.status_code != 201
    ]
    ids = [r.json()["id"] for r in responses]
    assert await _balance(api, auth) == (Decimal("60.00"), Decimal("40.00"))

    api.clock.advance(api.settings.norm_delay_seconds + 1)
    caplog.set_level(logging.WARNING, "pixcore.group_commit.settlement")
    finished = await asyncio.gather(
        *(
            settle_in_groups(pg_uow, api.clock, size=size, limit=limit)
            for size, limit in [(4, 100)] * 4 + [(7, 9)]
        )
    )
    rest = await _drain(pg_uow, api)  # a loop with a small limit may leave some for the next round

    assert sum(finished) + rest == 40, (finished, rest)
    fell_back = [r.getMessage() for r in caplog.records if r.name == "pixcore.group_commit.settlement"]
    assert fell_back == []  # the groups committed as groups: none fell back to one by one
    rows = await fetch_rows(
        migrated_database,
        "SELECT transaction_id, state, error_code FROM transfers WHERE transaction_id = ANY($1::bigint[])",
        ids,
    )
    outcome = {row["transaction_id"]: (row["state"], row["error_code"]) for row in rows}
    expected = {
        "out": ("COMPLETED", None),
        "refused": ("ERROR", "AC06"),
        "expired": ("ERROR", "AB03"),
        "inside": ("COMPLETED", None),
    }
    assert outcome == {i: expected[kind] for i, kind in zip(ids, kinds, strict=True)}

    events = await fetch_rows(
        migrated_database,
        """
        SELECT payload->'data'->>'id' AS id, count(*) AS events FROM outbox
         WHERE event_type = 'TRANSFER' AND payload->'data'->>'id' = ANY($1::text[])
         GROUP BY 1
        """,
        [str(i) for i in ids],
    )
    assert {int(row["id"]): row["events"] for row in events} == dict.fromkeys(ids, 1)
    received = await fetch_rows(
        migrated_database,
        "SELECT count(*) AS n FROM outbox WHERE event_type = 'RECEIVE' AND account_id = $1",
        receiver.opened.account.id,
    )
    assert received[0]["n"] == 10
    payments = await fetch_rows(
        migrated_database,
        "SELECT end_to_end_id FROM transactions WHERE account_id = $1 AND type = 'PAYMENT'",
        receiver.opened.account.id,
    )
    sent = {r.json()["endToEndId"] for r, kind in zip(responses, kinds, strict=True) if kind == "inside"}
    assert Counter(row["end_to_end_id"] for row in payments) == Counter(sent)

    # 20 settled (10 out, 10 inside), 20 released: conservation across the two accounts.
    assert await _balance(api, auth) == (Decimal("80.00"), Decimal("0.00"))
    assert await _balance(api, receiver_auth) == (Decimal("10.00"), Decimal("0.00"))
    report = await ledger_report(migrated_database)
    assert report["ok"] is True, report
