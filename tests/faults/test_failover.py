"""Failover to a synchronous standby under load: nothing acknowledged is lost, and the service
follows the new primary by itself.

Two PostgreSQL servers of the test's own (:mod:`tests.faults.replication`): a primary and a
standby it commits to synchronously. ``pixweb serve`` and ``pixnotify run`` are given both, in
one URL with ``target_session_attrs=read-write``. A third of the way into the load the primary is
SIGKILLed (postmaster and backends: the machine is gone); a moment later the standby is promoted,
as an operator or a failover tool would. Meanwhile requests get 503s in the error shape; after the
promotion the API answers again within :data:`BACK_WITHIN` seconds, the load finishes, and on the
new primary every acknowledged operation is there, the ledger check passes and money is conserved
(:mod:`tests.faults.proofs`). The notifier's ``LISTEN`` is back on the new primary: an event
produced after the failover is delivered long before its next poll would find it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.faults.deployment import deployed
from tests.faults.load import running
from tests.faults.processes import run_cli
from tests.faults.proofs import prove_everything, wait_until_quiet
from tests.faults.replication import ReplicatedPair, replicated_pair
from tests.integration.receiver import Receiver

pytestmark = pytest.mark.faults

WITHIN = 300  # seconds for the whole load: a guard against hangs
DETECTION = 2.0  # seconds between the primary's death and the promotion (a tool noticing it)
BACK_WITHIN = 10.0  # seconds from the promotion until the API answers from the database again
POLL_INTERVAL = 8.0  # the notifier's: an event delivered much sooner was announced by NOTIFY
WOKEN_WITHIN = 3.0  # seconds from a committed event to its delivery, when LISTEN works


@pytest.fixture
def pair() -> Iterator[ReplicatedPair]:
    with replicated_pair() as servers:
        yield servers


async def answering_after(api: str, since: float, within: float) -> float:
    """Seconds from ``since`` until ``/health/ready`` is 200 (the database answers the API)."""
    async with httpx.AsyncClient(timeout=5) as http, asyncio.timeout(within):
        while True:
            try:
                if (await http.get(f"{api}/health/ready")).status_code == 200:
                    return time.monotonic() - since
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)


async def listening_sessions(url: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        count: int = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %pix_outbox%'"
        )
        return count
    finally:
        await conn.close()


async def test_failover_to_a_synchronous_standby_loses_nothing(
    pair: ReplicatedPair, tmp_path: Path, receiver: Receiver, fault_ops: int
) -> None:
    await pair.wait_synchronous()
    url = pair.url("pix")
    # Only the notifier delivers (the API does not), polling seldom: a prompt delivery is LISTEN's.
    async with deployed(url, tmp_path, receiver, notifiers=1, api_delivery=False) as deployment:
        notifier = deployment.notifiers[0]
        await notifier.stop()
        notifier.argv = [
            f"--poll-interval={POLL_INTERVAL}" if arg.startswith("--poll-interval") else arg
            for arg in notifier.argv
        ]
        await notifier.start()
        api = deployment.apis[0]
        assert await listening_sessions(pair.primary.url("pix")) == 1

        ops = fault_ops
        load = deployment.load(ops)
        async with asyncio.timeout(WITHIN), running(load):
            await load.wait_done(ops // 3)
            pair.primary.kill()
            died, done = time.monotonic(), load.done
            await asyncio.sleep(DETECTION)
            unavailable = sum(n for (_, status), n in load.statuses.items() if status == 503)
            await asyncio.to_thread(pair.standby.promote)
            promoted = time.monotonic()
            back = await answering_after(api.url, promoted, BACK_WITHIN)
            print(
                f"\nfailover: primary killed, standby promoted {promoted - died:.1f} s later; the API"
                f" answered from the new primary {back:.2f} s after the promotion"
            )
        assert unavailable > 0, "no request met the outage"
        assert load.done == ops
        server_errors = {status for (_, status), _ in load.statuses.items() if status >= 500}
        assert server_errors <= {503}, f"answers {sorted(server_errors)}\n{deployment.logs()}"
        print(
            f"{done} operations done before the kill, {ops - done} after;"
            f" {unavailable} 503s before the promotion"
        )

        # The notifier listens on the new primary, and is woken by an event made after the failover.
        new_primary = pair.standby.url("pix")
        await wait_until_quiet(url)
        assert await listening_sessions(new_primary) == 1, deployment.logs()
        before = len(receiver.received)
        account = deployment.accounts[0]
        async with httpx.AsyncClient(timeout=30) as http:
            made = time.monotonic()
            paid = await http.post(
                f"{api.url}/sandbox/payments",
                json={"pixKey": account.key, "amount": 1.23},
                headers=account.auth,
            )
            assert paid.status_code == 201, paid.text
            await receiver.wait_for(before + 1, within=WOKEN_WITHIN)
        print(f"a receipt after the failover: its webhook arrived {time.monotonic() - made:.2f} s later")
        await wait_until_quiet(url)

        # Nothing acknowledged was lost: all of it is on the new primary, and the ledger holds.
        await prove_everything(url, load, receiver, deployment.paths)
        checked = await run_cli(deployment.env, "pixweb", "admin", "ledger", "check")
        assert checked["ok"], checked
        conn = await asyncpg.connect(url)
        try:
            assert await conn.fetchval("SELECT pg_is_in_recovery()") is False
            assert await conn.fetchval("SELECT inet_server_port()") == pair.standby.port
        finally:
            await conn.close()
        await deployment.stop()
