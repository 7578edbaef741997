"""Transaction queries end to end: the two lists, the two look-ups, their errors and their privacy.

Records come from the sandbox (payments in, transfers out) or, for dates and
volumes the API cannot make, straight from SQL. Rows written by SQL have no
ledger entries, so they move no balance and the ledger check stays true.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from pixcore.documents import mask_document
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, add_external_key, bearer, fund, ledger_report, new_client, random_cpf

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
ITEM_KEYS = {
    "transactionId",
    "externalId",
    "status",
    "operationType",
    "movementType",
    "originalAmount",
    "feeAmount",
    "finalAmount",
    "endToEndId",
    "createdAt",
    "processedAt",
    "counterpart",
}
RECORD_KEYS = {
    "id",
    "externalId",
    "type",
    "status",
    "originalAmount",
    "feeAmount",
    "finalAmount",
    "e2eId",
    "counterpartName",
    "counterpartDocument",
    "counterpartAccountBankCode",
    "counterpartAccountBranch",
    "counterpartAccountNumber",
    "counterpartAccountIspb",
    "counterpartAccountBankName",
    "createdAt",
    "updatedAt",
    "processedAt",
}


async def insert_rows(url: str, account_id: int, rows: list[dict[str, Any]]) -> list[int]:
    """Insert records without ledger entries (no balance moves); returns their ids in order."""
    conn = await asyncpg.connect(url)
    try:
        ids = []
        for row in rows:
            at = row.get("created_at", datetime.now(UTC))
            ids.append(
                await conn.fetchval(
                    """
                    INSERT INTO transactions (account_id, type, status, amount, external_id, end_to_end_id,
                        pix_key, counterpart_name, counterpart_document, counterpart_ispb, created_at,
                        updated_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING id
                    """,
                    account_id,
                    row.get("type", "PAYMENT"),
                    row.get("status", "PENDING"),
                    row.get("amount", 100),
                    row.get("external_id"),
                    row.get("end_to_end_id"),
                    row.get("pix_key"),
                    row.get("counterpart_name", "Someone"),
                    row.get("counterpart_document", random_cpf()),
                    row.get("counterpart_ispb", "12345678"),
                    at,
                )
            )
        return ids
    finally:
        await conn.close()


def e2e_id() -> str:
    return "E12345678" + datetime.now(UTC).strftime("%Y%m%d%H%M") + uuid.uuid4().hex[:11]


async def holder(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


async def get_ok(api: Api, path: str, auth: dict[str, str], **params: Any) -> Any:
    response = await api.client.get(path, params=params, headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


def assert_error(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["statusCode"] == status
    assert body["error"] == {400: "Bad Request", 401: "Unauthorized", 404: "Not Found"}[status]
    assert isinstance(body["message"], str)
    assert body["message"]
    return body


# ------------------------------------------------------------------------------------ shapes


async def test_list_items_have_the_spec_shape_and_display_values(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    payer = random_cpf()
    paid = await api.client.post(
        "/sandbox/payments",
        json={
            "pixKey": client.opened.keys[0].value,
            "amount": "100.50",
            "payer": {"name": "Ana Payer", "document": payer, "ispb": "11112222"},
        },
        headers=auth,
    )
    assert paid.status_code == 201, paid.text
    key, creditor = await add_external_key(api.client, auth, name="Bob Receiver")
    sent = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"currency": "BRL", "amount": 25.5}},
        headers=auth | {"x-idempotency-key": (idempotency := str(uuid.uuid4()))},
    )
    assert sent.status_code == 201, sent.text

    response = await api.client.get("/api/transactions", headers=auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["metadata"] == {
        "page": 1,
        "size": 20,
        "total": 2,
        "totalPages": 1,
        "hasNext": False,
        "hasPrevious": False,
    }
    out, into = body["data"]  # newest first
    assert set(out) == set(into) == ITEM_KEYS
    assert out["transactionId"] == str(sent.json()["id"])
    assert (out["status"], out["operationType"], out["movementType"]) == ("Pendente", "Pix out", "DEBIT")
    assert out["externalId"] == idempotency
    assert out["endToEndId"] == sent.json()["endToEndId"]
    assert out["processedAt"] is None
    assert out["counterpart"] == {
        "name": "Bob Receiver",
        "document": mask_document(creditor),
        "bank": {
            "bankISPB": "12345678",
            "bankName": "OTHER BANK",
            "bankCode": None,
            "accountBranch": "0001",
            "accountNumber": "123",
        },
    }
    assert (into["status"], into["operationType"], into["movementType"]) == ("Confirmado", "Pix in", "CREDIT")
    assert into["endToEndId"] == paid.json()["endToEndId"]
    assert into["counterpart"]["name"] == "Ana Payer"
    assert into["counterpart"]["document"] == mask_document(payer)
    assert into["counterpart"]["bank"]["bankISPB"] == "11112222"
    assert TIMESTAMP.fullmatch(into["createdAt"])
    assert TIMESTAMP.fullmatch(into["processedAt"])
    # Exact numbers with two decimals on the wire, never through a float.
    assert '"originalAmount":25.50,"feeAmount":0.00,"finalAmount":25.50' in response.text
    assert '"originalAmount":100.50,"feeAmount":0.00,"finalAmount":100.50' in response.text

    record = await get_ok(api, f"/api/pix/transaction/{out['transactionId']}", auth)
    assert set(record) == RECORD_KEYS
    assert record["type"] == "WITHDRAW"
    assert record["status"] == "PENDING"
    assert (record["originalAmount"], record["feeAmount"], record["finalAmount"]) == (
        "25.50",
        "0.00",
        "25.50",
    )
    assert record["e2eId"] == out["endToEndId"]
    assert record["externalId"] == idempotency
    assert record["counterpartDocument"] == mask_document(creditor)
    assert record["counterpartAccountIspb"] == "12345678"
    assert record["counterpartAccountBankName"] == "OTHER BANK"
    assert record["processedAt"] is None
    assert TIMESTAMP.fullmatch(record["updatedAt"])
    assert (await ledger_report(migrated_database))["ok"]


async def test_every_raw_value_maps_to_its_display_value(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    combos = [
        ("PAYMENT", "PENDING", "Pix in", "Pendente", "CREDIT"),
        ("WITHDRAW", "CONFIRMED", "Pix out", "Confirmado", "DEBIT"),
        ("REFUND_IN", "ERROR", "Refund in", "Error", "DEBIT"),
        ("REFUND_OUT", "PENDING", "Refund out", "Pendente", "CREDIT"),
    ]
    ids = await insert_rows(
        migrated_database, client.account_id, [{"type": t, "status": s} for t, s, *_ in combos]
    )
    body = await get_ok(api, "/api/transactions", auth)
    by_id = {item["transactionId"]: item for item in body["data"]}
    for transaction_id, (raw_type, raw_status, operation, status, movement) in zip(ids, combos, strict=True):
        item = by_id[str(transaction_id)]
        assert (item["operationType"], item["status"], item["movementType"]) == (operation, status, movement)
        record = await get_ok(api, f"/api/pix/transaction/{transaction_id}", auth)
        assert (record["type"], record["status"]) == (raw_type, raw_status)


# ------------------------------------------------------------------------------------ paging


@pytest.mark.parametrize("size", [1, 7, 20, 45, 100])
async def test_pages_cover_every_match_once_newest_first(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str, size: int
) -> None:
    client, auth = await holder(pg_uow, api)
    now = datetime.now(UTC)
    count = 45
    rows = [{"created_at": now - timedelta(hours=i % 9, minutes=i)} for i in range(count)]
    await insert_rows(migrated_database, client.account_id, rows)
    pages = -(-count // size)
    seen: list[dict[str, Any]] = []
    for page in range(1, pages + 2):
        body = await get_ok(api, "/api/transactions", auth, page=page, size=size)
        meta = body["metadata"]
        assert meta == {
            "page": page,
            "size": size,
            "total": count,
            "totalPages": pages,
            "hasNext": page < pages,
            "hasPrevious": page > 1,
        }
        expected = min(size, max(0, count - (page - 1) * size))
        assert len(body["data"]) == expected
        seen += body["data"]
    assert len({item["transactionId"] for item in seen}) == count
    order = [(item["createdAt"], int(item["transactionId"])) for item in seen]
    assert order == sorted(order, reverse=True)


async def test_an_empty_list_has_consistent_metadata(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    _, auth = await holder(pg_uow, api)
    body = await get_ok(api, "/api/transactions", auth)
    assert body == {
        "data": [],
        "metadata": {
            "page": 1,
            "size": 20,
            "total": 0,
            "totalPages": 0,
            "hasNext": False,
            "hasPrevious": False,
        },
    }


async def test_pages_stay_put_while_new_transactions_arrive_when_end_date_is_fixed(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    now = datetime.now(UTC)
    await insert_rows(
        migrated_database,
        client.account_id,
        [{"created_at": now - timedelta(minutes=i + 1)} for i in range(30)],
    )
    anchor = (await get_ok(api, "/api/transactions", auth, size=100))["data"]
    end = anchor[0]["createdAt"]
    first = await get_ok(api, "/api/transactions", auth, size=10, page=1, endDate=end)
    for _ in range(3):  # new money arrives between the pages
        await fund(api.client, client, auth, "1.00")
    await insert_rows(migrated_database, client.account_id, [{"created_at": datetime.now(UTC)}])
    second = await get_ok(api, "/api/transactions", auth, size=10, page=2, endDate=end)
    third = await get_ok(api, "/api/transactions", auth, size=10, page=3, endDate=end)
    assert first["metadata"]["total"] == second["metadata"]["total"] == third["metadata"]["total"] == 30
    assert first["data"] + second["data"] + third["data"] == anchor
    # Without the anchor, a page means "as of now": the new records come first.
    latest = await get_ok(api, "/api/transactions", auth, size=10, page=1)
    assert latest["metadata"]["total"] == 34
    assert latest["data"][4:] == anchor[:6]


# ------------------------------------------------------------------------------------ dates


async def test_default_windows_are_31_and_30_days(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    key = client.opened.keys[0].value
    now = datetime.now(UTC)
    ages = {"29d": 29, "30.5d": 30.5, "31.5d": 31.5}
    ids = dict(
        zip(
            ages,
            await insert_rows(
                migrated_database,
                client.account_id,
                [{"created_at": now - timedelta(days=d), "pix_key": key} for d in ages.values()],
            ),
            strict=True,
        )
    )
    listed = {item["transactionId"] for item in (await get_ok(api, "/api/transactions", auth))["data"]}
    assert listed == {str(ids["29d"]), str(ids["30.5d"])}
    by_key = await get_ok(api, f"/api/pix/transactions/pix-key/{key}", auth)
    assert {item["transactionId"] for item in by_key["data"]} == {str(ids["29d"])}
    # A default start counts back from the endDate given.
    old_end = (now - timedelta(days=31)).isoformat()
    back = await get_ok(api, "/api/transactions", auth, endDate=old_end)
    assert {item["transactionId"] for item in back["data"]} == {str(ids["31.5d"])}


async def test_dates_are_inclusive_and_a_date_alone_means_its_whole_day(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    day = (datetime.now(UTC) - timedelta(days=40)).replace(hour=0, minute=0, second=0, microsecond=0)
    moments = [
        day,
        day + timedelta(hours=23, minutes=59, seconds=59, microseconds=999_999),
        day + timedelta(days=1),
    ]
    first, last, next_day = await insert_rows(
        migrated_database, client.account_id, [{"created_at": m} for m in moments]
    )
    date = day.date().isoformat()
    whole_day = await get_ok(api, "/api/transactions", auth, startDate=date, endDate=date)
    assert [item["transactionId"] for item in whole_day["data"]] == [str(last), str(first)]
    exact = await get_ok(
        api,
        "/api/transactions",
        auth,
        startDate=day.isoformat(),
        endDate=(day + timedelta(days=1)).isoformat(),
    )
    assert [item["transactionId"] for item in exact["data"]] == [str(next_day), str(last), str(first)]
    # An offset is honoured; a naive time is UTC.
    local = await get_ok(
        api,
        "/api/transactions",
        auth,
        startDate=(day - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%S-03:00"),
        endDate=day.strftime("%Y-%m-%dT%H:%M:%S"),
    )
    assert [item["transactionId"] for item in local["data"]] == [str(first)]
    # 31 whole days is the longest span: a month of 31 days, by dates alone.
    month = await api.client.get(
        "/api/transactions",
        params={"startDate": date, "endDate": (day + timedelta(days=30)).date().isoformat()},
        headers=auth,
    )
    assert month.status_code == 200, month.text


# ------------------------------------------------------------------------------------ filters


async def test_filters_of_the_transactions_list(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    e2e, external = e2e_id(), f"order-{uuid.uuid4().hex[:8]}"
    rows = [
        {"type": "PAYMENT", "status": "PENDING", "external_id": external},
        {"type": "WITHDRAW", "status": "ERROR", "end_to_end_id": e2e},
        {"type": "REFUND_IN", "status": "ERROR"},
        {"type": "REFUND_OUT", "status": "PENDING"},
    ]
    ids = [str(i) for i in await insert_rows(migrated_database, client.account_id, rows)]

    async def listed(**params: Any) -> list[str]:
        body = await get_ok(api, "/api/transactions", auth, **params)
        assert body["metadata"]["total"] == len(body["data"])
        return sorted(item["transactionId"] for item in body["data"])

    assert await listed() == sorted(ids)
    assert await listed(status="ERROR") == sorted([ids[1], ids[2]])
    assert await listed(status="CONFIRMED") == []
    assert await listed(type="REFUND_OUT") == [ids[3]]
    assert await listed(type="WITHDRAW", status="ERROR") == [ids[1]]
    assert await listed(type="WITHDRAW", status="PENDING") == []
    assert await listed(externalId=external) == [ids[0]]
    assert await listed(endToEndId=e2e) == [ids[1]]
    assert await listed(endToEndId=e2e, type="PAYMENT") == []
    assert await listed(status="", type="") == sorted(ids)  # an empty value is no filter


async def test_pix_key_list_holds_the_records_of_that_key_only(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    own = client.opened.keys[0].value
    other = f"Someone.{uuid.uuid4().hex[:6]}@Example.com"
    rows = [
        {"pix_key": own, "type": "PAYMENT", "status": "PENDING"},
        {"pix_key": other.lower(), "type": "WITHDRAW", "status": "ERROR"},
        {"pix_key": None, "type": "REFUND_IN", "status": "ERROR"},
        {"pix_key": own, "type": "REFUND_OUT", "status": "ERROR"},
    ]
    ids = [str(i) for i in await insert_rows(migrated_database, client.account_id, rows)]
    mine = await get_ok(api, f"/api/pix/transactions/pix-key/{own}", auth)
    assert [item["transactionId"] for item in mine["data"]] == [ids[3], ids[0]]
    # The key is read in canonical form: an e-mail in capitals is the same key.
    theirs = await get_ok(api, f"/api/pix/transactions/pix-key/{other}", auth)
    assert [item["transactionId"] for item in theirs["data"]] == [ids[1]]
    filtered = await get_ok(
        api, f"/api/pix/transactions/pix-key/{own}", auth, status="ERROR", type="REFUND_OUT"
    )
    assert [item["transactionId"] for item in filtered["data"]] == [ids[3]]


async def test_pix_key_list_reaches_1000_results_at_most(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    key = client.opened.keys[0].value
    conn = await asyncpg.connect(migrated_database)
    try:
        await conn.execute(
            """
            INSERT INTO transactions (account_id, type, status, amount, pix_key, created_at, updated_at)
            SELECT $1, 'PAYMENT', 'ERROR', 100, $2, at, at
              FROM generate_series(1, 1005) AS g, LATERAL (SELECT now() - make_interval(secs => g) AS at) m
            """,
            client.account_id,
            key,
        )
        newest = [
            str(r["id"])
            for r in await conn.fetch(
                "SELECT id FROM transactions WHERE account_id = $1"
                " ORDER BY created_at DESC, id DESC LIMIT 1000",
                client.account_id,
            )
        ]
    finally:
        await conn.close()
    path = f"/api/pix/transactions/pix-key/{key}"
    everything = await get_ok(api, path, auth, size=1000)
    assert everything["metadata"] == {
        "page": 1,
        "size": 1000,
        "total": 1000,
        "totalPages": 1,
        "hasNext": False,
        "hasPrevious": False,
    }
    assert [item["transactionId"] for item in everything["data"]] == newest
    assert (await get_ok(api, path, auth, size=1000, page=2))["data"] == []
    fourth = await get_ok(api, path, auth, size=300, page=4)
    assert fourth["metadata"]["totalPages"] == 4
    assert fourth["metadata"]["hasNext"] is False
    assert [item["transactionId"] for item in fourth["data"]] == newest[900:]
    # /api/transactions is not capped.
    assert (await get_ok(api, "/api/transactions", auth, size=1))["metadata"]["total"] == 1005


# ------------------------------------------------------------------------------------ 400


LIST_ERRORS = [
    ({"page": "0"}, "page"),
    ({"page": "-1"}, "page"),
    ({"page": "1.5"}, "page"),
    ({"page": "abc"}, "page"),
    ({"page": "99999999999999999999999"}, "page"),
    ({"size": "0"}, "size"),
    ({"size": "101"}, "size"),
    ({"size": "ten"}, "size"),
    ({"status": "pending"}, "status"),
    ({"status": "DONE"}, "status"),
    ({"type": "TRANSFER"}, "type"),
    ({"startDate": "yesterday"}, "startDate"),
    ({"endDate": "2026-13-01"}, "endDate"),
    ({"startDate": "2026-10-10", "endDate": "2026-10-09"}, "endDate"),
    ({"startDate": "2026-10-01T00:00:00Z", "endDate": "2026-11-01T00:00:01Z"}, "31 days"),
    ({"startDate": "2026-10-01", "endDate": "2026-11-01"}, "31 days"),
    ({"startDate": "0001-01-01"}, "endDate"),
    ({"externalId": "x" * 101}, "externalId"),
    ({"endToEndId": "E123"}, "endToEndId"),
]


@pytest.mark.parametrize(("params", "named"), LIST_ERRORS)
async def test_invalid_transactions_list_parameters_are_400(
    pg_uow: UnitOfWorkFactory, api: Api, params: dict[str, str], named: str
) -> None:
    _, auth = await holder(pg_uow, api)
    body = assert_error(await api.client.get("/api/transactions", params=params, headers=auth), 400)
    assert named in body["message"]
    assert body["details"]


PIX_KEY_ERRORS = [
    ({"size": "1001"}, "size"),
    ({"size": "0"}, "size"),
    ({"page": "0"}, "page"),
    ({"status": "X"}, "status"),
    ({"type": "payment"}, "type"),
    ({"startDate": "2026-01-01", "endDate": "2026-03-01"}, "31 days"),
    ({"startDate": "2026-02-01", "endDate": "2026-01-01"}, "endDate"),
    ({"endDate": "not a date"}, "endDate"),
]


@pytest.mark.parametrize(("params", "named"), PIX_KEY_ERRORS)
async def test_invalid_pix_key_list_parameters_are_400(
    pg_uow: UnitOfWorkFactory, api: Api, params: dict[str, str], named: str
) -> None:
    client, auth = await holder(pg_uow, api)
    path = f"/api/pix/transactions/pix-key/{client.opened.keys[0].value}"
    body = assert_error(await api.client.get(path, params=params, headers=auth), 400)
    assert named in body["message"]


@pytest.mark.parametrize("key", ["not-a-key", "12345678900", "+5511", "a b@example.com"])
async def test_an_invalid_pix_key_is_400(pg_uow: UnitOfWorkFactory, api: Api, key: str) -> None:
    _, auth = await holder(pg_uow, api)
    for path in (f"/api/pix/transactions/pix-key/{key}", f"/api/pix/transactions/pix-key/{key}/123"):
        body = assert_error(await api.client.get(path, headers=auth), 400)
        assert "pixKey" in body["message"] + " ".join(body.get("details", []))


async def test_every_problem_is_listed_at_once(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    _, auth = await holder(pg_uow, api)
    response = await api.client.get(
        "/api/transactions", params={"page": "0", "size": "500", "status": "?", "endDate": "x"}, headers=auth
    )
    body = assert_error(response, 400)
    assert [d.split(":")[0] for d in body["details"]] == ["page", "size", "status", "endDate"]


async def test_without_a_token_every_query_is_401(api: Api) -> None:
    for path in (
        "/api/transactions",
        "/api/pix/transactions/pix-key/someone@example.com",
        "/api/pix/transactions/pix-key/someone@example.com/1",
        "/api/pix/transaction/1",
    ):
        assert_error(await api.client.get(path), 401)


# ------------------------------------------------------------------------------------ look-ups


async def test_pix_key_lookup_by_end_to_end_id_id_and_external_id(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    key = client.opened.keys[0].value
    e2e, external, numeric_external = e2e_id(), f"order-{uuid.uuid4().hex}", "777000111"
    ids = await insert_rows(
        migrated_database,
        client.account_id,
        [
            {"pix_key": key, "end_to_end_id": e2e},
            {"pix_key": key, "external_id": external},
            {"pix_key": key, "external_id": numeric_external},
            {"pix_key": "other@example.com", "external_id": f"x-{external}"},
        ],
    )
    base = f"/api/pix/transactions/pix-key/{key}"
    for identifier, expected in (
        (e2e, ids[0]),
        (str(ids[0]), ids[0]),
        (external, ids[1]),
        (str(ids[1]), ids[1]),
        (numeric_external, ids[2]),  # digits that are no record's id: its externalId
    ):
        item = await get_ok(api, f"{base}/{identifier}", auth)
        assert set(item) == ITEM_KEYS
        assert item["transactionId"] == str(expected), identifier
    # The record exists, but under another key: not found under this one.
    for identifier in (str(ids[3]), f"x-{external}"):
        assert_error(await api.client.get(f"{base}/{identifier}", headers=auth), 404)
    found = await get_ok(api, f"/api/pix/transactions/pix-key/other@example.com/{ids[3]}", auth)
    assert found["transactionId"] == str(ids[3])


async def test_an_identifier_shaped_as_its_kind_wins_over_an_external_id(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    key = client.opened.keys[0].value
    [target] = await insert_rows(migrated_database, client.account_id, [{"pix_key": key}])
    [decoy] = await insert_rows(
        migrated_database, client.account_id, [{"pix_key": key, "external_id": str(target)}]
    )
    assert decoy > target
    item = await get_ok(api, f"/api/pix/transactions/pix-key/{key}/{target}", auth)
    assert item["transactionId"] == str(target)
    record = await get_ok(api, f"/api/pix/transaction/{target}", auth)
    assert record["id"] == str(target)


@pytest.mark.parametrize(
    "identifier",
    ["999999999999", "99999999999999999999999", "0", "007", "E" + "0" * 31, "no-such-external-id", "x" * 300],
)
async def test_unknown_identifiers_are_404(pg_uow: UnitOfWorkFactory, api: Api, identifier: str) -> None:
    client, auth = await holder(pg_uow, api)
    key = client.opened.keys[0].value
    for path in (f"/api/pix/transactions/pix-key/{key}/{identifier}", f"/api/pix/transaction/{identifier}"):
        body = assert_error(await api.client.get(path, headers=auth), 404)
        assert body["message"] == "Transaction not found."


async def test_status_record_by_external_id(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    external = f"cash-in-{uuid.uuid4().hex[:10]}"
    [transaction_id] = await insert_rows(
        migrated_database, client.account_id, [{"external_id": external, "type": "PAYMENT", "amount": 1234}]
    )
    record = await get_ok(api, f"/api/pix/transaction/{external}", auth)
    assert record["id"] == str(transaction_id)
    assert record["externalId"] == external
    assert (record["originalAmount"], record["finalAmount"]) == ("12.34", "12.34")
    assert record["e2eId"] is None


# ------------------------------------------------------------------------------------ privacy


async def test_another_accounts_records_are_404_on_every_path(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    alice, alice_auth = await holder(pg_uow, api)
    bob, bob_auth = await holder(pg_uow, api)
    await fund(api.client, alice, alice_auth, "10.00")
    await fund(api.client, bob, bob_auth, "10.00")
    shared_key = f"shared-{uuid.uuid4().hex[:8]}@example.com"
    secrets = {}
    for who in (alice, bob):
        e2e, external = e2e_id(), f"ext-{uuid.uuid4().hex[:12]}"
        [row_id] = await insert_rows(
            migrated_database,
            who.account_id,
            [{"pix_key": shared_key, "end_to_end_id": e2e, "external_id": external}],
        )
        secrets[who.account_id] = (row_id, e2e, external)
    for me, my_auth, other in ((alice, alice_auth, bob), (bob, bob_auth, alice)):
        mine, theirs = secrets[me.account_id], secrets[other.account_id]
        other_key = other.opened.keys[0].value
        their_id, their_e2e, their_external = theirs
        for identifier in (str(their_id), their_e2e, their_external):
            for path in (
                f"/api/pix/transactions/pix-key/{shared_key}/{identifier}",
                f"/api/pix/transactions/pix-key/{other_key}/{identifier}",
                f"/api/pix/transaction/{identifier}",
            ):
                assert_error(await api.client.get(path, headers=my_auth), 404)
        # Lists: the other's records never show, whatever the filter.
        for params in ({}, {"endToEndId": their_e2e}, {"externalId": their_external}, {"size": "100"}):
            body = await get_ok(api, "/api/transactions", my_auth, **params)
            assert str(their_id) not in {item["transactionId"] for item in body["data"]}
        by_shared = await get_ok(api, f"/api/pix/transactions/pix-key/{shared_key}", my_auth)
        assert [item["transactionId"] for item in by_shared["data"]] == [str(mine[0])]
        by_their_key = await get_ok(api, f"/api/pix/transactions/pix-key/{other_key}", my_auth)
        assert by_their_key["data"] == []
        assert by_their_key["metadata"]["total"] == 0
        # ...while the owner sees its own on every path.
        for identifier in (str(mine[0]), mine[1], mine[2]):
            item = await get_ok(api, f"/api/pix/transactions/pix-key/{shared_key}/{identifier}", my_auth)
            assert item["transactionId"] == str(mine[0])
        assert (await get_ok(api, f"/api/pix/transaction/{mine[2]}", my_auth))["id"] == str(mine[0])


async def test_no_response_shows_a_bare_counterpart_document(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client, auth = await holder(pg_uow, api)
    documents = [random_cpf() for _ in range(3)]
    for document in documents:
        paid = await api.client.post(
            "/sandbox/payments",
            json={"pixKey": client.opened.keys[0].value, "amount": "5.00", "payer": {"document": document}},
            headers=auth,
        )
        assert paid.status_code == 201, paid.text
    key, creditor = await add_external_key(api.client, auth)
    sent = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"currency": "BRL", "amount": 1}},
        headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
    )
    assert sent.status_code == 201, sent.text
    cnpj = "11222333000181"
    odd = "123"  # not a valid document: hidden entirely
    await insert_rows(
        migrated_database,
        client.account_id,
        [
            {"counterpart_document": cnpj, "pix_key": key},
            {"counterpart_document": odd, "external_id": "odd-doc"},
        ],
    )
    documents += [creditor, cnpj]
    own_key = client.opened.keys[0].value
    listed = await api.client.get("/api/transactions", params={"size": "100"}, headers=auth)
    items = listed.json()["data"]
    assert len(items) == 6
    bodies = [
        listed.text,
        (await api.client.get(f"/api/pix/transactions/pix-key/{own_key}", headers=auth)).text,
        (await api.client.get(f"/api/pix/transactions/pix-key/{key}", headers=auth)).text,
    ]
    for item in items:
        transaction_id = item["transactionId"]
        bodies.append((await api.client.get(f"/api/pix/transaction/{transaction_id}", headers=auth)).text)
        for path_key in (own_key, key):
            path = f"/api/pix/transactions/pix-key/{path_key}/{transaction_id}"
            bodies.append((await api.client.get(path, headers=auth)).text)
    shown = 0
    for body in bodies:
        for document in documents:
            assert document not in body
        shown += body.count("***.") + body.count("**.")
    assert shown >= 6 * 2  # masked documents were there to be seen, in the lists and the look-ups
    assert '"document":"**.222.333/0001-**"' in bodies[0]
    assert '"document":"***"' in bodies[0]
    assert cnpj not in "".join(bodies)
    assert (await ledger_report(migrated_database))["ok"]
