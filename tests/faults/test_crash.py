"""Crash safety: the real service under load, hit by a fault mid-way.

Each test runs ``PIX_FAULT_OPS`` (default 1000) transfers, receipts and refunds with 50 in
flight, breaks something a third of the way in, lets the load and then settlement and delivery
finish, and proves what :mod:`tests.faults.proofs` lists: nothing lost, nothing done twice.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from tests.faults.deployment import deployed
from tests.faults.load import Load, running
from tests.faults.processes import EmbeddedPostgres
from tests.faults.proofs import prove_everything, wait_until_quiet
from tests.integration.receiver import Receiver, Reply

pytestmark = pytest.mark.faults

WITHIN = 600  # seconds for a whole load: a guard against hangs, not a speed requirement
HELD_BY_THE_NOTIFIER = """
SELECT count(*) FROM webhook_deliveries
 WHERE status = 'pending' AND next_attempt_at > now() AND next_attempt_at < now() + interval '6 seconds'
"""


def unavailable(load: Load) -> int:
    return sum(count for (_, status), count in load.statuses.items() if status == 503)


async def fetch_value(url: str, sql: str) -> Any:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


GROUPED = """
SELECT count(*) FROM (SELECT 1 FROM transactions WHERE type = 'WITHDRAW'
                       GROUP BY account_id, created_at HAVING count(*) > 1) AS groups
"""
SETTLED_IN_GROUPS = """
SELECT count(*) FROM (SELECT 1 FROM transfers WHERE finished_at IS NOT NULL
                       GROUP BY finished_at HAVING count(*) > 1) AS groups
"""


@pytest.mark.parametrize(
    "grouping",
    [
        pytest.param({"PIX_TRANSFER_BATCH_SIZE": "1"}, id="one-by-one"),
        # Group commit with a wide window: the kill lands while groups of an account wait or commit.
        pytest.param({"PIX_TRANSFER_BATCH_SIZE": "64", "PIX_TRANSFER_BATCH_WINDOW_MS": "20"}, id="grouped"),
    ],
)
async def test_an_api_killed_mid_load_loses_nothing_and_does_nothing_twice(
    own_database: str, receiver: Receiver, tmp_path: Path, fault_ops: int, grouping: dict[str, str]
) -> None:
    async with deployed(own_database, tmp_path, receiver, settings=grouping) as deployment:
        (api,) = deployment.apis
        load = deployment.load(fault_ops)
        async with asyncio.timeout(WITHIN), running(load):
            await load.wait_done(fault_ops // 3)
            assert await api.kill() == -signal.SIGKILL
            await api.start()  # same port, same database: the clients' retries find it again
        await wait_until_quiet(own_database)
        await prove_everything(own_database, load, receiver, deployment.paths)
        assert load.connection_errors > 0, "the kill went unnoticed: no request was refused or cut"
        if grouping["PIX_TRANSFER_BATCH_SIZE"] != "1":  # transfers of one group share their instant
            assert await fetch_value(own_database, GROUPED) > 0, "no two transfers shared a group"
            # Settlement groups too: the transfers of one group are finished at one instant.
            assert await fetch_value(own_database, SETTLED_IN_GROUPS) > 0, "no two transfers settled together"
        await deployment.stop()


async def test_a_database_restarted_mid_load_is_a_503_then_nothing_is_lost(
    receiver: Receiver, tmp_path: Path, fault_ops: int
) -> None:
    postgres = EmbeddedPostgres()  # the shared server is never stopped
    try:
        async with deployed(postgres.url, tmp_path, receiver, notifiers=1) as deployment:
            load = deployment.load(fault_ops)
            async with asyncio.timeout(WITHIN), running(load):
                await load.wait_done(fault_ops // 3)
                await postgres.stop()
                refused = unavailable(load)
                await asyncio.sleep(3)  # the load goes on against an API without its database
                await postgres.start()
            assert unavailable(load) > refused, "no request met the outage"
            await wait_until_quiet(postgres.url)
            await prove_everything(postgres.url, load, receiver, deployment.paths)
            assert all(process.running for process in [*deployment.apis, *deployment.notifiers]), (
                deployment.logs()
            )
            await deployment.stop()
    finally:
        postgres.cleanup()


async def test_a_notifier_killed_mid_delivery_loses_no_event(
    own_database: str, receiver: Receiver, tmp_path: Path, fault_ops: int
) -> None:
    slow = asyncio.Event()  # answers wait a moment, so that the kill finds deliveries in flight

    async def trickle() -> None:
        while True:
            await asyncio.sleep(0.02)
            slow.set()
            slow.clear()

    trickling = asyncio.create_task(trickle())
    try:
        # Only the notifier delivers (the API settles, PIX_DELIVERY off): the kill finds it mid-delivery.
        deployment_of = deployed(own_database, tmp_path, receiver, notifiers=1, api_delivery=False)
        async with deployment_of as deployment:
            (notifier,) = deployment.notifiers
            for path in deployment.paths.values():
                receiver.plan[path] = [Reply(200, hold=slow)]
            load = deployment.load(fault_ops)
            async with asyncio.timeout(WITHIN), running(load):
                await load.wait_done(fault_ops // 3)
                arrived = len(receiver.received)
                await receiver.wait_for(arrived + 20)  # delivering now
                assert await notifier.kill() == -signal.SIGKILL
                # It died holding claims: pending deliveries leased for its 5 seconds (no receiver
                # answers anything but 200 here, so no retries).
                assert await fetch_value(own_database, HELD_BY_THE_NOTIFIER) > 0
                await notifier.start()
            await wait_until_quiet(own_database)
            await prove_everything(own_database, load, receiver, deployment.paths)
            await deployment.stop()
    finally:
        trickling.cancel()
