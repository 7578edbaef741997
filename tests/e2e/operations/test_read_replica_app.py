"""The app with ``PIX_DATABASE_READ_URL`` (here a second pool on the run's own server, which has
replayed everything it holds): a request that may write stores its account's read mark before it
answers, through the API and the console alike; a read does not; the query endpoints answer from
the replica and ``/metrics`` counts them.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from tests.e2e.conftest import Api, running_api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.support import new_client
from tests.support.clients import bearer

COB = {"calendario": {"expiracao": 3600}, "valor": {"original": "3.00"}}


@pytest.fixture
async def replicated_api(database: Database, tmp_path: Path) -> AsyncIterator[Api]:
    settings = Settings(
        database_url=database.url, database_read_url=database.url, data_dir=tmp_path, run_workers=False
    )
    async with running_api(settings, SystemClock(), database) as running:
        yield running


async def mark_of(database: Database, account_id: int) -> int | None:
    found: int | None = await database.pool.fetchval(
        "SELECT lsn FROM read_marks WHERE account_id = $1", account_id
    )
    return found


async def replica_reads(api: Api) -> float:
    text = (await api.client.get("/metrics")).text
    found = re.search(r'^pix_reads_total\{database="replica",reason="caught_up"\} (\S+)$', text, re.MULTILINE)
    assert found is not None, text
    return float(found.group(1))


async def test_a_write_through_the_api_marks_its_account_and_a_read_does_not(
    replicated_api: Api, database: Database, pg_uow: UnitOfWorkFactory
) -> None:
    api = replicated_api
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)  # a POST without an account: nothing to mark
    assert await mark_of(database, client.account_id) is None
    assert (await api.client.get("/api/transactions", headers=auth)).status_code == 200
    assert await mark_of(database, client.account_id) is None

    before = await replica_reads(api)
    txid = secrets.token_hex(15)
    made = await api.client.put(f"/cob/{txid}", json=COB, headers=auth)
    assert made.status_code == 201, made.text
    first = await mark_of(database, client.account_id)
    assert first is not None
    assert first > 0
    listed = await api.client.get(
        "/cob", params={"inicio": "2000-01-01T00:00:00Z", "fim": "2100-01-01T00:00:00Z"}, headers=auth
    )
    assert listed.status_code == 200, listed.text
    assert [cob["txid"] for cob in listed.json()["cobs"]] == [txid]
    assert (await api.client.get("/api/transactions", headers=auth)).status_code == 200
    assert await replica_reads(api) == before + 2

    again = await api.client.put(f"/cob/{secrets.token_hex(15)}", json=COB, headers=auth)
    assert again.status_code == 201, again.text
    second = await mark_of(database, client.account_id)
    assert second is not None
    assert second > first


async def test_a_write_through_the_console_marks_its_account(
    replicated_api: Api, database: Database, pg_uow: UnitOfWorkFactory
) -> None:
    api = replicated_api
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    signed_in = await mark_of(database, client.account_id) or 0
    charges = await api.client.get("/console/charges")
    assert charges.status_code == 200
    assert await mark_of(database, client.account_id) == (signed_in or None)
    made = await api.client.post("/console/charges", data={"amount": "10.00", "csrf": csrf_of(charges)})
    assert made.status_code == 303, made.text
    marked = await mark_of(database, client.account_id)
    assert marked is not None
    assert marked > signed_in
    overview = await api.client.get("/console")
    assert overview.status_code == 200
