"""What a request reads from the database before its handler, with the shared sandbox clock.

The clock's offset and the bearer token's certificate status are read by ONE statement at the
start of the request (``in_force_with_clock``); the separate look-up (``in_force``) is left for a
request whose clock read could not name the certificate. Both must still take effect at once: a
revocation committed elsewhere refuses the very next request, and a clock moved elsewhere expires
a token the process has cached as verified.

A grouped ``POST /dict/pix`` reads neither before its handler: its group reads every caller's
certificate status and the clock with one statement (``in_force_many_with_clock``), and refuses a
revoked certificate or an expired token with the bearer check's own answer, writing nothing.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.revocation import PostgresCertificateStatus
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from pixweb.security.tokens import TOKEN_LIFETIME_SECONDS
from tests.e2e.conftest import Api, running_api
from tests.support import Client, add_external_key, bearer, fetch_rows, fund, new_client


@pytest.fixture
async def shared_api(database: Database, tmp_path: Path) -> AsyncIterator[Api]:
    """The app on the run's database with the shared sandbox clock (no private clock handed in)."""
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False)
    async with running_api(settings, None, database) as running:  # type: ignore[arg-type]
        yield running


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each look-up of the certificate status runs."""
    counted = {"in_force": 0, "in_force_with_clock": 0, "in_force_many_with_clock": 0}
    for name in counted:
        original: Callable[..., Awaitable[Any]] = getattr(PostgresCertificateStatus, name)

        def counting(*args: Any, _name: str = name, _original: Any = original) -> Awaitable[Any]:
            counted[_name] += 1
            return _original(*args)  # type: ignore[no-any-return]

        monkeypatch.setattr(PostgresCertificateStatus, name, counting)
    return counted


async def test_one_statement_reads_the_clock_and_the_certificate_status(
    pg_uow: UnitOfWorkFactory, shared_api: Api, calls: dict[str, int]
) -> None:
    auth = await bearer(shared_api.client, await new_client(pg_uow))
    for _ in range(3):
        response = await shared_api.client.get("/balance", headers=auth)
        assert response.status_code == 200, response.text
    assert calls == {"in_force": 0, "in_force_with_clock": 3, "in_force_many_with_clock": 0}


async def test_a_revocation_elsewhere_refuses_the_next_request(
    pg_uow: UnitOfWorkFactory, shared_api: Api, calls: dict[str, int], migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(shared_api.client, client)
    assert (await shared_api.client.get("/balance", headers=auth)).status_code == 200

    conn = await asyncpg.connect(migrated_database)
    try:
        await conn.execute(
            "UPDATE client_certificates SET revoked_at = now() WHERE fingerprint = $1", client.fingerprint
        )
    finally:
        await conn.close()

    response = await shared_api.client.get("/balance", headers=auth)
    assert response.status_code == 401, response.text
    assert "revoked" in response.json()["message"]
    assert calls == {"in_force": 0, "in_force_with_clock": 2, "in_force_many_with_clock": 0}


async def test_a_clock_moved_elsewhere_expires_a_cached_token_at_once(
    pg_uow: UnitOfWorkFactory, shared_api: Api, migrated_database: str
) -> None:
    auth = await bearer(shared_api.client, await new_client(pg_uow))
    assert (await shared_api.client.get("/balance", headers=auth)).status_code == 200  # cached as verified

    moved = timedelta(seconds=TOKEN_LIFETIME_SECONDS + 1) // timedelta(microseconds=1)
    conn = await asyncpg.connect(migrated_database)
    try:
        before = await conn.fetchval("SELECT offset_micros FROM sandbox_clock WHERE id = 1")
        await conn.execute("UPDATE sandbox_clock SET offset_micros = offset_micros + $1 WHERE id = 1", moved)
        try:
            response = await shared_api.client.get("/balance", headers=auth)
        finally:
            await conn.execute("UPDATE sandbox_clock SET offset_micros = $1 WHERE id = 1", before)
    finally:
        await conn.close()
    assert response.status_code == 401, response.text
    assert "expired" in response.json()["message"]


async def test_a_token_that_does_not_verify_still_reads_the_clock_and_is_refused(
    shared_api: Api, calls: dict[str, int]
) -> None:
    response = await shared_api.client.get("/balance", headers={"Authorization": "Bearer not.a.token"})
    assert response.status_code == 401, response.text
    assert calls == {"in_force": 0, "in_force_with_clock": 0, "in_force_many_with_clock": 0}


async def test_a_private_clock_keeps_the_separate_look_up(
    pg_uow: UnitOfWorkFactory, api: Api, calls: dict[str, int]
) -> None:
    auth = await bearer(api.client, await new_client(pg_uow))
    assert (await api.client.get("/balance", headers=auth)).status_code == 200
    assert calls == {"in_force": 1, "in_force_with_clock": 0, "in_force_many_with_clock": 0}


async def _sender(pg_uow: UnitOfWorkFactory, api: Api, amount: str) -> tuple[Client, dict[str, str], str]:
    """A funded client, its bearer header and an outside key to pay."""
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, amount)
    key, _ = await add_external_key(api.client, auth)
    return client, auth, key


def _send(api: Api, auth: dict[str, str], key: str, amount: float = 1.0) -> Awaitable[httpx.Response]:
    body = {"pixKey": key, "payment": {"currency": "BRL", "amount": amount}}
    return api.client.post("/dict/pix", json=body, headers=auth | {"x-idempotency-key": str(uuid.uuid4())})


async def _revoke(url: str, fingerprint: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "UPDATE client_certificates SET revoked_at = now() WHERE fingerprint = $1", fingerprint
        )
    finally:
        await conn.close()


async def test_a_grouped_transfer_reads_its_certificate_in_its_group_not_before_its_handler(
    pg_uow: UnitOfWorkFactory, shared_api: Api, calls: dict[str, int]
) -> None:
    _, auth, key = await _sender(pg_uow, shared_api, "10.00")
    before = dict(calls)
    responses = await asyncio.gather(*(_send(shared_api, auth, key) for _ in range(6)))
    assert [r.status_code for r in responses] == [201] * 6, [r.text for r in responses]
    assert calls["in_force"] == before["in_force"]
    assert calls["in_force_with_clock"] == before["in_force_with_clock"]  # none before the handler
    assert 1 <= calls["in_force_many_with_clock"] - before["in_force_many_with_clock"] <= 6


async def test_a_revocation_elsewhere_refuses_the_next_grouped_transfer_with_the_bearer_checks_answer(
    pg_uow: UnitOfWorkFactory, shared_api: Api, calls: dict[str, int], migrated_database: str
) -> None:
    client, auth, key = await _sender(pg_uow, shared_api, "10.00")
    other, other_auth, other_key = await _sender(pg_uow, shared_api, "10.00")
    assert (await _send(shared_api, auth, key)).status_code == 201

    await _revoke(migrated_database, client.fingerprint)
    refused_elsewhere = await shared_api.client.get("/balance", headers=auth)  # today's answer
    rows_before = await fetch_rows(migrated_database, "SELECT count(*) AS n FROM transactions")
    responses = await asyncio.gather(
        *(_send(shared_api, auth, key) for _ in range(3)), _send(shared_api, other_auth, other_key)
    )
    assert [r.status_code for r in responses] == [401, 401, 401, 201], [r.text for r in responses]
    for response in responses[:3]:
        assert response.json() == refused_elsewhere.json()
        assert "revoked" in response.json()["message"]
    rows_after = await fetch_rows(migrated_database, "SELECT count(*) AS n FROM transactions")
    assert rows_after[0]["n"] == rows_before[0]["n"] + 1  # only the other caller's transfer
    balance = await shared_api.client.get("/balance", headers=other_auth)
    assert balance.status_code == 200, balance.text
    assert other.fingerprint != client.fingerprint


async def test_a_clock_moved_elsewhere_expires_a_cached_token_at_its_grouped_transfer(
    pg_uow: UnitOfWorkFactory, shared_api: Api, migrated_database: str
) -> None:
    _, auth, key = await _sender(pg_uow, shared_api, "10.00")
    assert (await _send(shared_api, auth, key)).status_code == 201  # the token cached as verified

    moved = timedelta(seconds=TOKEN_LIFETIME_SECONDS + 1) // timedelta(microseconds=1)
    conn = await asyncpg.connect(migrated_database)
    try:
        before = await conn.fetchval("SELECT offset_micros FROM sandbox_clock WHERE id = 1")
        await conn.execute("UPDATE sandbox_clock SET offset_micros = offset_micros + $1 WHERE id = 1", moved)
        try:
            response = await _send(shared_api, auth, key)
        finally:
            await conn.execute("UPDATE sandbox_clock SET offset_micros = $1 WHERE id = 1", before)
    finally:
        await conn.close()
    assert response.status_code == 401, response.text
    assert "expired" in response.json()["message"]


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ('{"pixKey": "x@y.example", "payment": {"amount": 1.0}', {}),  # not JSON: refused before the handler
        ('{"pixKey": "x@y.example", "payment": {"amount": -1}}', {}),  # a rule of the request: in the handler
        ('{"pixKey": "x@y.example", "payment": {"amount": 1.0}}', {"x-idempotency-key": "not-a-uuid"}),
        ('{"pixKey": "x@y.example", "payment": {"amount": 1.0}}', {"x-idempotency-key": None}),  # missing
        ("\x00" * 10, {}),  # a NUL byte: the edge refuses the text
    ],
)
async def test_a_revoked_certificate_is_refused_401_even_when_the_transfer_never_reaches_a_group(
    pg_uow: UnitOfWorkFactory,
    shared_api: Api,
    migrated_database: str,
    body: str,
    headers: dict[str, str | None],
) -> None:
    client, auth, _ = await _sender(pg_uow, shared_api, "10.00")
    sent = {"content-type": "application/json", "x-idempotency-key": str(uuid.uuid4())} | auth | headers
    request_headers = {name: value for name, value in sent.items() if value is not None}
    alive = await shared_api.client.post("/dict/pix", content=body, headers=request_headers)
    assert alive.status_code == 400, alive.text  # what the body earns while the certificate is in force

    await _revoke(migrated_database, client.fingerprint)
    refused_elsewhere = await shared_api.client.get("/balance", headers=auth)
    response = await shared_api.client.post("/dict/pix", content=body, headers=request_headers)
    assert response.status_code == 401, response.text
    assert response.json() == refused_elsewhere.json()
