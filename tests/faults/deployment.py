"""One deployment of the service for a fault test: a database of its own, API and notifier
processes on it, accounts opened with the operator's commands, a webhook per account and event
type to a local receiver, keys of other banks in the sandbox directory, and funds."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx

from pixcore.webhooks.rules import REGISTRABLE
from tests.faults.load import Account, Load, add_external_key, open_account, sign_in
from tests.faults.processes import ApiProcess, NotifierProcess, run_cli, service_env
from tests.integration.receiver import Receiver

FUNDS = 500_00  # centavos each account receives before the load


@dataclass
class Deployment:
    url: str
    folder: Path
    receiver: Receiver
    env: dict[str, str]
    apis: list[ApiProcess] = field(default_factory=list)
    notifiers: list[NotifierProcess] = field(default_factory=list)
    accounts: list[Account] = field(default_factory=list)
    external: list[tuple[str, str]] = field(default_factory=list)  # (key, document) of other banks
    paths: dict[int, str] = field(default_factory=dict)  # webhook id -> the receiver's path for it

    def load(self, ops: int) -> Load:
        return Load(
            apis=[api.url for api in self.apis],
            accounts=self.accounts,
            external=self.external,
            ops=ops,
            funds=FUNDS,
        )

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.log_tail()}" for p in [*self.apis, *self.notifiers])

    async def stop(self) -> None:
        """SIGTERM to every process: each must stop in time, by itself. The notifier exits 0;
        uvicorn shuts down gracefully, then raises the signal it caught again (exit -SIGTERM)."""
        notifiers = [await notifier.stop() for notifier in self.notifiers]
        apis = [await api.stop() for api in self.apis]
        assert set(notifiers) <= {0}, f"notifier exit statuses {notifiers}\n{self.logs()}"
        assert set(apis) <= {0, -signal.SIGTERM}, f"API exit statuses {apis}\n{self.logs()}"


async def _register_webhooks(url: str, accounts: list[Account], receiver: Receiver) -> dict[int, str]:
    """A secret per account and a registration per event type, written as the API would store them
    (the API accepts only https URLs; the receiver speaks plain HTTP on 127.0.0.1)."""
    paths: dict[int, str] = {}
    conn = await asyncpg.connect(url)
    try:
        for account in accounts:
            secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
            await conn.execute(
                "INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, now())",
                account.id,
                secret,
            )
            for kind in REGISTRABLE:
                path = f"/hooks/{account.id}/{kind.value}"
                hook = await conn.fetchval(
                    """INSERT INTO webhooks (account_id, event_type, url, created_at, updated_at)
                       VALUES ($1, $2, $3, now(), now()) RETURNING id""",
                    account.id,
                    kind.value,
                    receiver.url(path),
                )
                paths[hook] = path
    finally:
        await conn.close()
    return paths


@contextlib.asynccontextmanager
async def deployed(
    url: str,
    folder: Path,
    receiver: Receiver,
    *,
    apis: int = 1,
    notifiers: int = 0,
    accounts: int = 3,
    api_delivery: bool = True,
    settings: dict[str, str] | None = None,
) -> AsyncIterator[Deployment]:
    """The deployment, ready for load; every process is stopped (SIGTERM, then SIGKILL) on the way out.
    ``settings``: further ``PIX_`` variables of every process."""
    env = service_env(url, folder / "data", **(settings or {}))
    deployment = Deployment(url=url, folder=folder, receiver=receiver, env=env)
    try:
        await run_cli(env, "pixweb", "migrate")  # a separate step, as in production
        deployment.accounts = list(
            await asyncio.gather(*(open_account(env, folder, n) for n in range(accounts)))
        )
        deployment.paths = await _register_webhooks(url, deployment.accounts, receiver)
        for n in range(apis):
            api = ApiProcess(f"api-{n}", env, folder / f"api-{n}.log", delivery=api_delivery)
            deployment.apis.append(api)
            await api.start()
        for n in range(notifiers):
            notifier = NotifierProcess(f"notifier-{n}", env, folder / f"notifier-{n}.log")
            deployment.notifiers.append(notifier)
            await notifier.start()
        base = deployment.apis[0].url
        async with httpx.AsyncClient(timeout=30) as http:
            for account in deployment.accounts:  # tokens from one API serve on all: one signing key
                await sign_in(http, base, account)
            first = deployment.accounts[0]
            deployment.external = [
                await add_external_key(http, base, first, behavior)
                for behavior in ("settle", "settle", "reject")
            ]
            for account in deployment.accounts:
                body = {"pixKey": account.key, "amount": FUNDS / 100}
                funded = await http.post(f"{base}/sandbox/payments", json=body, headers=account.auth)
                assert funded.status_code == 201, funded.text
        yield deployment
    finally:
        for process in [*deployment.notifiers, *deployment.apis]:
            with contextlib.suppress(AssertionError):
                await process.stop()
