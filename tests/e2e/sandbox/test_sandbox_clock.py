"""The sandbox clock belongs to the operator (docs/decisions/sandbox-clock.md): ``pixweb admin clock
advance|show``, and ``POST /sandbox/clock`` only for an account the operator created with ``--sandbox-admin``.

The commands that move the clock run on a database of the test's own: the run's database keeps
its clock still, for every other test.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import asyncpg
import pytest

from pixcore.clock import parse_timestamp
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixweb.sandbox.clock import MAX_ADVANCE, MAX_OFFSET
from pixweb.workers import purge_idempotency_keys
from tests.e2e.cli.test_cli import pixweb
from tests.e2e.conftest import Api
from tests.support import add_external_key, bearer, fund, new_client, random_cpf


def _env(url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("PIX_")}
    return env | {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(data_dir)} | extra


@pytest.fixture
async def clock_env(own_database: str, tmp_path: Path) -> dict[str, str]:
    env = _env(own_database, tmp_path)
    (await pixweb(env, "migrate")).ok()
    return env


def _assert_error(body: dict[str, object], status: int) -> None:
    assert set(body) == {"statusCode", "message", "error"}
    assert body["statusCode"] == status


async def _offset(url: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        micros = await conn.fetchval("SELECT offset_micros FROM sandbox_clock WHERE id = 1")
    finally:
        await conn.close()
    assert isinstance(micros, int)
    return micros


# -- POST /sandbox/clock ----------------------------------------------------------------------------


async def test_an_account_that_is_no_sandbox_admin_cannot_move_the_clock(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    other = await new_client(pg_uow)
    other_auth = await bearer(api.client, other)
    attacker = await new_client(pg_uow)
    auth = await bearer(api.client, attacker)
    before = api.clock.offset
    for seconds in (3600, 400 * 86_400, 0):
        response = await api.client.post("/sandbox/clock", json={"advanceSeconds": seconds}, headers=auth)
        assert response.status_code == 403, response.text
        _assert_error(response.json(), 403)
        assert "sandbox administrator" in response.json()["message"]
    assert api.clock.offset == before
    assert (await api.client.get("/balance", headers=other_auth)).status_code == 200  # still valid


async def test_a_sandbox_admin_moves_the_clock_within_bounds(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    auth = await bearer(api.client, await new_client(pg_uow, sandbox_admin=True))
    for seconds in (-1, MAX_ADVANCE + 1):
        response = await api.client.post("/sandbox/clock", json={"advanceSeconds": seconds}, headers=auth)
        assert response.status_code == 400, response.text
        _assert_error(response.json(), 400)
    before = api.clock.now()
    response = await api.client.post("/sandbox/clock", json={"advanceSeconds": 60}, headers=auth)
    assert response.status_code == 200, response.text
    assert parse_timestamp(response.json()["now"]) >= before + timedelta(seconds=60) - timedelta(
        milliseconds=1
    )


async def test_the_clock_never_runs_past_its_bound_ahead(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    """Enough moves would carry dates past the year 9999 and break every request."""
    ahead = datetime.now(UTC) + timedelta(seconds=MAX_OFFSET - 60)
    admin = await new_client(pg_uow, sandbox_admin=True, cert_now=ahead, days=1)  # valid then
    api.clock.offset = timedelta(seconds=MAX_OFFSET - 10)
    try:
        auth = await bearer(api.client, admin)
        too_far = await api.client.post("/sandbox/clock", json={"advanceSeconds": 11}, headers=auth)
        assert too_far.status_code == 400, too_far.text
        assert api.clock.offset == timedelta(seconds=MAX_OFFSET - 10)
    finally:
        api.clock.offset = timedelta(0)


async def test_a_clock_move_forgets_no_idempotency_key(
    database: Database, pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    """A client's retry after the operator moved the clock two days replays its transfer: the key
    is kept 24 hours of real time, whatever the service clock says (the retry debited twice when
    the purge went by the service clock)."""
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, "10.00")
    key, _ = await add_external_key(api.client, auth)
    body = {"pixKey": key, "payment": {"currency": "BRL", "amount": 4}}
    headers = auth | {"x-idempotency-key": str(uuid.uuid4())}
    first = await api.client.post("/dict/pix", json=body, headers=headers)
    assert first.status_code == 201, first.text

    api.clock.advance(2 * 86_400)
    await purge_idempotency_keys(database)  # what the settlement loop does every 600 rounds

    auth = await bearer(api.client, client)  # the old token expired with the move
    retry = await api.client.post("/dict/pix", json=body, headers=headers | auth)
    assert retry.status_code == 201, retry.text
    assert retry.json()["id"] == first.json()["id"]
    balance = (await api.client.get("/balance", headers=auth)).json()
    assert (balance["netBalance"], balance["blockedBalance"]) == (6, 4)  # debited once


async def test_account_create_sandbox_admin_is_stored(
    clock_env: dict[str, str], own_database: str, tmp_path: Path
) -> None:
    args = ["admin", "account", "create", "--name", "Sandbox Operator", "--document"]
    admin = (await pixweb(clock_env, *args, random_cpf(), "--sandbox-admin")).ok()
    plain = (await pixweb(clock_env, *args, random_cpf())).ok()
    conn = await asyncpg.connect(own_database)
    try:
        rows = await conn.fetch(
            "SELECT id, sandbox_admin FROM accounts WHERE id = ANY($1::bigint[])",
            [admin["accountId"], plain["accountId"]],
        )
    finally:
        await conn.close()
    assert {row["id"]: row["sandbox_admin"] for row in rows} == {
        admin["accountId"]: True,
        plain["accountId"]: False,
    }


# -- pixweb admin clock -----------------------------------------------------------------------------


async def test_clock_advance_moves_the_stored_clock_and_show_reads_it(
    clock_env: dict[str, str], own_database: str
) -> None:
    shown = parse_timestamp((await pixweb(clock_env, "admin", "clock", "show")).ok()["now"])
    assert abs(shown - datetime.now(UTC)) < timedelta(seconds=30)
    moved = (await pixweb(clock_env, "admin", "clock", "advance", "--seconds", "86400")).ok()
    assert set(moved) == {"now"}
    assert moved["now"].endswith("Z")
    assert parse_timestamp(moved["now"]) >= shown + timedelta(days=1)
    assert await _offset(own_database) == 86_400 * 1_000_000
    again = parse_timestamp((await pixweb(clock_env, "admin", "clock", "show")).ok()["now"])
    assert again - datetime.now(UTC) > timedelta(hours=23)
    assert await _offset(own_database) == 86_400 * 1_000_000  # show moves nothing


@pytest.mark.parametrize("seconds", ["0", "-5", "abc", "1.5", "1e3", str(MAX_ADVANCE + 1), str(10**30), ""])
async def test_clock_advance_refuses_what_is_not_a_move_forward(
    clock_env: dict[str, str], own_database: str, seconds: str
) -> None:
    outcome = await pixweb(clock_env, "admin", "clock", "advance", f"--seconds={seconds}")
    assert outcome.code == 2, str(outcome)
    assert outcome.error()["error"] == "InvalidClockMove"
    assert await _offset(own_database) == 0


async def test_clock_advance_refuses_to_pass_the_bound_ahead(
    clock_env: dict[str, str], own_database: str
) -> None:
    conn = await asyncpg.connect(own_database)
    try:
        await conn.execute("UPDATE sandbox_clock SET offset_micros = $1", (MAX_OFFSET - 10) * 1_000_000)
    finally:
        await conn.close()
    outcome = await pixweb(clock_env, "admin", "clock", "advance", "--seconds", "11")
    assert outcome.code == 2, str(outcome)
    assert outcome.error()["error"] == "InvalidClockMove"
    assert await _offset(own_database) == (MAX_OFFSET - 10) * 1_000_000
    (await pixweb(clock_env, "admin", "clock", "advance", "--seconds", "10")).ok()
    assert await _offset(own_database) == MAX_OFFSET * 1_000_000


async def test_clock_advance_is_refused_with_the_sandbox_off(
    clock_env: dict[str, str], own_database: str
) -> None:
    for off in ({"PIX_SANDBOX": "off"}, {"PIX_PRODUCTION": "on"}):
        outcome = await pixweb(clock_env | off, "admin", "clock", "advance", "--seconds", "60")
        assert outcome.code == 2, str(outcome)
        assert outcome.error()["error"] == "SandboxOff"
    assert await _offset(own_database) == 0


async def test_a_sandbox_admin_made_by_the_operator_moves_the_clock_over_http(
    migrated_database: str, api: Api, tmp_path: Path
) -> None:
    """The whole path: ``account create --sandbox-admin``, ``cert create``, a token, the move (on
    the app's private clock: nothing is stored)."""
    cli_env = _env(migrated_database, tmp_path / "cli")
    args = ["admin", "account", "create", "--name", "Sandbox Operator", "--document", random_cpf()]
    account = (await pixweb(cli_env, *args, "--sandbox-admin")).ok()
    out = tmp_path / "admin-cert"
    (
        await pixweb(
            cli_env, "admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(out)
        )
    ).ok()
    cert = quote((out / "client-cert.pem").read_text(), safe="")
    credentials = {"clientId": account["clientId"], "clientSecret": account["clientSecret"]}
    token = await api.client.post("/api/auth/token", json=credentials, headers={"X-SSL-Client-Cert": cert})
    assert token.status_code == 201, token.text
    auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
    before = api.clock.offset
    response = await api.client.post("/sandbox/clock", json={"advanceSeconds": 5}, headers=auth)
    assert response.status_code == 200, response.text
    assert api.clock.offset == before + timedelta(seconds=5)
