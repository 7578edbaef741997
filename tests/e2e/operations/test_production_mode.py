"""Production mode (docs/decisions/production-mode.md): ``PIX_PRODUCTION=on pixweb serve`` as an operator
starts it, on a database of the test's own. No demo account is created or printed (``--demo`` is refused), the
sandbox and the web console are off, and a bearer token must come with its client certificate."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.faults.processes import BIN, ApiProcess, run_cli, service_env
from tests.support import certificate_header, random_cpf

pytestmark = pytest.mark.slow

SECRET_MARKS = ("clientSecret", "Demo account", "BEGIN CERTIFICATE", "PRIVATE KEY", "Authorization: Bearer")


def _production_env(url: str, folder: Path) -> dict[str, str]:
    env = service_env(url, folder / "data", PIX_PRODUCTION="on", PIX_LOG_LEVEL="INFO")
    del env["PIX_WEBHOOK_ALLOW_PRIVATE"]  # as production runs: no private webhook addresses
    return env


async def _account_count(url: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        count = await conn.fetchval("SELECT count(*) FROM accounts")
    finally:
        await conn.close()
    assert isinstance(count, int)
    return count


async def test_production_mode_serves_no_demo_no_sandbox_and_binds_tokens(
    own_database: str, tmp_path: Path
) -> None:
    env = _production_env(own_database, tmp_path)
    api = ApiProcess("api-production", env, tmp_path / "api.log")
    api.argv = [str(BIN / "pixweb"), "serve"]  # the operator's plain command: no --no-demo
    await api.start()
    try:
        assert await _account_count(own_database) == 0  # no demo account
        assert not (tmp_path / "data" / "demo").exists()
        opened = await run_cli(
            env, "pixweb", "admin", "account", "create", "--name", "Real Client", "--document", random_cpf()
        )
        certs = tmp_path / "cert"
        await run_cli(
            env,
            "pixweb",
            "admin",
            "cert",
            "create",
            "--account",
            str(opened["accountId"]),
            "--out",
            str(certs),
        )
        cert = certificate_header((certs / "client-cert.pem").read_bytes())
        credentials = {"clientId": opened["clientId"], "clientSecret": opened["clientSecret"]}
        async with httpx.AsyncClient(base_url=api.url, timeout=30) as http:
            token = await http.post("/api/auth/token", json=credentials, headers={"X-SSL-Client-Cert": cert})
            assert token.status_code == 201, token.text
            bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}

            alone = await http.get("/balance", headers=bearer)  # PIX_REQUIRE_CLIENT_CERT is on
            assert alone.status_code == 401, alone.text
            assert set(alone.json()) == {"statusCode", "message", "error"}
            assert (
                await http.get("/balance", headers=bearer | {"X-SSL-Client-Cert": cert})
            ).status_code == 200

            for path in ("/sandbox/payments", "/sandbox/dict", "/sandbox/clock", "/sandbox/refunds"):
                response = await http.post(path, json={}, headers=bearer | {"X-SSL-Client-Cert": cert})
                assert response.status_code == 404, f"{path}: {response.text}"
            for path in ("/", "/console", "/console/sign-in"):  # no console either (PIX_CONSOLE)
                response = await http.get(path, headers=bearer | {"X-SSL-Client-Cert": cert})
                assert response.status_code == 404, f"{path}: {response.text}"
    finally:
        await api.stop()
    printed = api.log.read_text(errors="replace")
    assert "Started server process" in printed  # the log was captured
    for mark in SECRET_MARKS:
        assert mark not in printed, mark
    assert opened["clientSecret"] not in printed
    assert await _account_count(own_database) == 1  # the operator's account only


async def test_production_mode_refuses_demo(own_database: str, tmp_path: Path) -> None:
    env = _production_env(own_database, tmp_path)
    process = await asyncio.create_subprocess_exec(
        BIN / "pixweb",
        "serve",
        "--demo",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        out, err = await process.communicate()
    assert process.returncode == 2, err.decode()
    assert out == b""
    error = json.loads(err)
    assert error["error"] == "DemoInProduction"
    assert "PIX_PRODUCTION" in error["message"]
    assert not await _has_accounts_table(own_database)  # refused before touching the database
    assert not (tmp_path / "data" / "demo").exists()


async def _has_accounts_table(url: str) -> bool:
    conn = await asyncpg.connect(url)
    try:
        return bool(await conn.fetchval("SELECT to_regclass('accounts') IS NOT NULL"))
    finally:
        await conn.close()
