"""Group commit of charge payments (``PIX_TRANSFER_BATCH_SIZE``) on PostgreSQL: a burst of payments
of one account's charges credits each once, and concurrent payers of one charge credit it once."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from decimal import Decimal
from typing import Any

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_charges import cob, new_txid
from tests.e2e.conftest import Api
from tests.support import bearer, fetch_rows, ledger_report, new_client


async def _available(api: Api, auth: dict[str, str]) -> Decimal:
    response = await api.client.get("/accounts/balances", headers=auth)
    return Decimal(json.loads(response.text, parse_float=Decimal)["data"][0]["balanceAmount"]["available"])


async def _charge(api: Api, auth: dict[str, str], original: str) -> dict[str, Any]:
    response = await api.client.put(f"/cob/{new_txid()}", json=cob(original), headers=auth)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _paid_rows(url: str, account_id: int) -> list[Any]:
    return await fetch_rows(
        url,
        """
        SELECT t.created_at, count(*) AS n, count(o.id) AS events FROM transactions t
          LEFT JOIN outbox o ON o.account_id = t.account_id AND o.event_type = 'RECEIVE'
               AND o.payload->'data'->>'endToEndId' = t.end_to_end_id
         WHERE t.account_id = $1 AND t.type = 'PAYMENT' GROUP BY 1
        """,
        account_id,
    )


async def test_a_burst_of_charge_payments_of_one_account_is_credited_once_each(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    assert api.settings.transfer_batch_size > 1  # the default groups
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    charges = [await _charge(api, auth, f"{n}.00") for n in range(1, 31)]
    other = await new_client(pg_uow)
    foreign = await _charge(api, await bearer(api.client, other), "5.00")  # not the caller's
    codes = [c["pixCopiaECola"] for c in charges]
    codes += codes[:5]  # paid twice at once: the second payment of each is refused
    codes.append(foreign["pixCopiaECola"])
    responses = await asyncio.gather(
        *(api.client.post("/sandbox/payments", json={"pixCopiaECola": code}, headers=auth) for code in codes)
    )
    statuses = [r.status_code for r in responses]
    assert Counter(statuses[:30]) + Counter(statuses[30:35]) == {201: 30, 422: 5}, [r.text for r in responses]
    for first, again in zip(responses[:5], responses[30:35], strict=True):
        assert sorted([first.status_code, again.status_code]) == [201, 422]
    assert statuses[-1] == 404, responses[-1].text
    assert await _available(api, auth) == Decimal(sum(range(1, 31)))
    for charge in charges:
        read = await api.client.get(f"/cob/{charge['txid']}", headers=auth)
        assert read.json()["status"] == "CONCLUIDA"
        assert len(read.json()["pix"]) == 1
    rows = await _paid_rows(migrated_database, client.opened.account.id)
    assert sum(row["n"] for row in rows) == sum(row["events"] for row in rows) == 30  # one event each
    assert max(row["n"] for row in rows) > 1, "no two charge payments shared a group"
    report = await ledger_report(migrated_database)
    assert report["ok"] is True, report


async def test_concurrent_payers_of_one_charge_credit_it_once(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    charge = await _charge(api, auth, "12.34")
    responses = await asyncio.gather(
        *(
            api.client.post(
                "/sandbox/payments", json={"pixCopiaECola": charge["pixCopiaECola"]}, headers=auth
            )
            for _ in range(12)
        )
    )
    assert Counter(r.status_code for r in responses) == {201: 1, 422: 11}, [r.text for r in responses]
    assert await _available(api, auth) == Decimal("12.34")
    rows = await _paid_rows(migrated_database, client.opened.account.id)
    assert sum(row["n"] for row in rows) == sum(row["events"] for row in rows) == 1
    report = await ledger_report(migrated_database)
    assert report["ok"] is True, report
