"""Scale-out: two API processes and two notifiers on one database.

Both APIs run their settlement and delivery loops (``PIX_WORKERS`` on, the default), so four
processes deliver webhooks and two settle at once: the most contention the design allows. Each
request goes to either API at random, as behind a load balancer, with a token that one of them
issued (the processes share the signing key). Afterwards nothing was settled twice, no event was
fanned out twice, and none was lost (:mod:`tests.faults.proofs`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.faults.deployment import deployed
from tests.faults.load import running
from tests.faults.proofs import prove_everything, wait_until_quiet
from tests.integration.receiver import Receiver

pytestmark = pytest.mark.faults


async def test_two_apis_and_two_notifiers_settle_and_deliver_everything_once(
    own_database: str, receiver: Receiver, tmp_path: Path, fault_ops: int
) -> None:
    async with deployed(own_database, tmp_path, receiver, apis=2, notifiers=2) as deployment:
        load = deployment.load(fault_ops)
        async with asyncio.timeout(600), running(load):
            pass
        assert set(load.served) == set(load.apis), "the load did not reach both APIs"
        assert load.connection_errors == 0
        assert load.statuses.total() == fault_ops  # each operation acknowledged at the first try
        await wait_until_quiet(own_database)
        await prove_everything(own_database, load, receiver, deployment.paths)
        await deployment.stop()
