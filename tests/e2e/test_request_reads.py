"""What a request reads from the database before its handler, with the shared sandbox clock.

The clock's offset and the bearer token's certificate status are read by ONE statement at the
start of the request (``in_force_with_clock``); the separate look-up (``in_force``) is left for a
request whose clock read could not name the certificate. Both must still take effect at once: a
revocation committed elsewhere refuses the very next request, and a clock moved elsewhere expires
a token the process has cached as verified.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from pixweb.persistence.revocation import PostgresCertificateStatus
from pixweb.security.tokens import TOKEN_LIFETIME_SECONDS
from tests.e2e.conftest import Api, running_api
from tests.support import bearer, new_client


@pytest.fixture
async def shared_api(database: Database, tmp_path: Path) -> AsyncIterator[Api]:
    """The app on the run's database with the shared sandbox clock (no private clock handed in)."""
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False)
    async with running_api(settings, None, database) as running:  # type: ignore[arg-type]
        yield running


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each look-up of the certificate status runs."""
    counted = {"in_force": 0, "in_force_with_clock": 0}
    for name in counted:
        original: Callable[..., Awaitable[Any]] = getattr(PostgresCertificateStatus, name)

        def counting(*args: Any, _name: str = name, _original: Any = original) -> Awaitable[Any]:
            counted[_name] += 1
            return _original(*args)  # type: ignore[no-any-return]

        monkeypatch.setattr(PostgresCertificateStatus, name, counting)
    return counted


async def test_one_statement_reads_the_clock_and_the_certificate_status(
    shared_api: Api, calls: dict[str, int]
) -> None:
    auth = await bearer(shared_api.client, await new_client())
    for _ in range(3):
        response = await shared_api.client.get("/balance", headers=auth)
        assert response.status_code == 200, response.text
    assert calls == {"in_force": 0, "in_force_with_clock": 3}


async def test_a_revocation_elsewhere_refuses_the_next_request(
    shared_api: Api, calls: dict[str, int], migrated_database: str
) -> None:
    client = await new_client()
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
    assert calls == {"in_force": 0, "in_force_with_clock": 2}


async def test_a_clock_moved_elsewhere_expires_a_cached_token_at_once(
    shared_api: Api, migrated_database: str
) -> None:
    auth = await bearer(shared_api.client, await new_client())
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
    assert calls == {"in_force": 0, "in_force_with_clock": 0}


async def test_a_private_clock_keeps_the_separate_look_up(api: Api, calls: dict[str, int]) -> None:
    auth = await bearer(api.client, await new_client())
    assert (await api.client.get("/balance", headers=auth)).status_code == 200
    assert calls == {"in_force": 1, "in_force_with_clock": 0}
