"""The sandbox clock across processes (docs/decisions/sandbox-clock.md): two ``pixweb serve`` processes on one
database, one of them without the background loops (``PIX_WORKERS=off``), see every move the
operator makes with ``pixweb admin clock advance`` at once. A token issued by either is valid at
both across a move, and expires at both."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from pixcore.accounts.token_service import TOKEN_LIFETIME_SECONDS
from pixcore.clock import parse_timestamp
from tests.faults.processes import ApiProcess, run_cli, service_env
from tests.support import certificate_header, random_cpf

pytestmark = pytest.mark.slow


class Caller:
    """One account, as a client of any of the processes."""

    def __init__(self, http: httpx.AsyncClient, credentials: dict[str, str], cert: str) -> None:
        self.http, self.credentials, self.cert = http, credentials, cert

    async def token(self, api: ApiProcess) -> str:
        response = await self.http.post(
            f"{api.url}/api/auth/token", json=self.credentials, headers={"X-SSL-Client-Cert": self.cert}
        )
        assert response.status_code == 201, response.text
        token: str = response.json()["access_token"]
        return token

    async def balance(self, api: ApiProcess, token: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}", "X-SSL-Client-Cert": self.cert}
        return await self.http.get(f"{api.url}/balance", headers=headers)


@asynccontextmanager
async def two_processes(
    url: str, folder: Path
) -> AsyncIterator[tuple[list[ApiProcess], Caller, dict[str, str]]]:
    """One API with the loops, one without, one account; and the operator's environment."""
    env = service_env(url, folder / "data")
    await run_cli(env, "pixweb", "migrate")
    opened = await run_cli(
        env, "pixweb", "admin", "account", "create", "--name", "Clock Test", "--document", random_cpf()
    )
    certs = folder / "cert"
    await run_cli(
        env, "pixweb", "admin", "cert", "create", "--account", str(opened["accountId"]), "--out", str(certs)
    )
    apis = [
        ApiProcess("api-workers", env, folder / "api-workers.log", workers=True),
        ApiProcess("api-no-workers", env, folder / "api-no-workers.log", workers=False),
    ]
    try:
        for api in apis:
            await api.start()
        async with httpx.AsyncClient(timeout=30) as http:
            credentials = {"clientId": opened["clientId"], "clientSecret": opened["clientSecret"]}
            yield (
                apis,
                Caller(http, credentials, certificate_header((certs / "client-cert.pem").read_bytes())),
                env,
            )
    finally:
        for api in apis:
            await api.stop()


async def test_every_process_sees_a_clock_move_at_once(own_database: str, tmp_path: Path) -> None:
    async with two_processes(own_database, tmp_path) as (apis, caller, env):
        early = {api.name: await caller.token(api) for api in apis}
        for api in apis:
            for token in early.values():
                assert (await caller.balance(api, token)).status_code == 200, api.log_tail()

        moved = await run_cli(env, "pixweb", "admin", "clock", "advance", "--seconds", "1700")
        assert (await run_cli(env, "pixweb", "admin", "clock", "show"))["now"] >= moved["now"]
        for api in apis:  # the very next request of each process runs on the moved clock
            for token in early.values():  # 1,700 s on: still inside the 1,800 s lifetime, everywhere
                response = await caller.balance(api, token)
                assert response.status_code == 200, f"{api.name}: {response.text}"
                seen = parse_timestamp(response.json()["consultedAt"])
                assert seen >= parse_timestamp(moved["now"]), f"{api.name} did not see the move"
        # Issued after the move: neither process takes the other's token for one from the future.
        late = {api.name: await caller.token(api) for api in apis}
        for api in apis:
            for token in late.values():
                assert (await caller.balance(api, token)).status_code == 200, api.name

        await run_cli(
            env, "pixweb", "admin", "clock", "advance", "--seconds", str(TOKEN_LIFETIME_SECONDS - 1700)
        )
        for api in apis:  # past 1,800 s: the early tokens are expired in both processes
            for token in early.values():
                response = await caller.balance(api, token)
                assert response.status_code == 401, f"{api.name}: {response.text}"
            for token in late.values():
                assert (await caller.balance(api, token)).status_code == 200, api.name
