"""Reads from a lagging replica: a client never misses its own write, reads land on the replica
once it has caught up, and a replica that is gone sends them to the primary without an error.

Two PostgreSQL servers of the test's own (:mod:`tests.faults.replication`); the standby applies
the WAL :data:`DELAY` late (``recovery_min_apply_delay``), far past ``PIX_READ_WAIT_MS``. Two API
processes share them (``PIX_DATABASE_READ_URL``: the standby): each round writes through one and
reads through the other, so the write's mark crosses processes through the primary's table.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.faults.deployment import deployed
from tests.faults.replication import ReplicatedPair, replicated_pair
from tests.integration.receiver import Receiver

pytestmark = pytest.mark.faults

DELAY = 2.0  # seconds the standby waits before applying what it received
ROUNDS = 8


@pytest.fixture
def lagging() -> Iterator[ReplicatedPair]:
    with replicated_pair(recovery_min_apply_delay=f"{int(DELAY * 1000)}ms") as servers:
        yield servers


async def reads(http: httpx.AsyncClient, api: str) -> dict[tuple[str, str], float]:
    """``pix_reads_total`` of one API process, by (database, reason)."""
    text = (await http.get(f"{api}/metrics")).text
    found = re.findall(r'^pix_reads_total\{database="(\w+)",reason="(\w+)"\} (\S+)$', text, re.MULTILINE)
    return {(database, reason): float(value) for database, reason, value in found}


async def replica_sessions(url: str) -> int:
    """Sessions on the standby that have run a statement of the service's reads."""
    conn = await asyncpg.connect(url)
    try:
        count: int = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = 'pix' AND backend_type = 'client backend'"
            " AND pid <> pg_backend_pid()"
        )
        return count
    finally:
        await conn.close()


def window() -> dict[str, str]:
    now = datetime.now(UTC)
    return {
        "inicio": (now - timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
        "fim": (now + timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
    }


async def test_a_lagging_replica_never_hides_a_write(
    lagging: ReplicatedPair, tmp_path: Path, receiver: Receiver
) -> None:
    await lagging.wait_synchronous()
    settings = {"PIX_DATABASE_READ_URL": lagging.standby.url("pix"), "PIX_READ_WAIT_MS": "200"}
    async with (
        deployed(lagging.url("pix"), tmp_path, receiver, apis=2, accounts=1, settings=settings) as deployment,
        httpx.AsyncClient(timeout=30) as http,
    ):
        writer, reader = (api.url for api in deployment.apis)
        account = deployment.accounts[0]
        before = await reads(http, reader)

        # Each round: a charge and a received PIX written through one process, read at once
        # through the other. The replica is 2 s behind: every read must come from the primary.
        for _ in range(ROUNDS):
            txid = secrets.token_hex(15)
            made = await http.put(
                f"{writer}/cob/{txid}",
                json={"calendario": {"expiracao": 3600}, "valor": {"original": "1.00"}},
                headers=account.auth,
            )
            assert made.status_code == 201, made.text
            listed = await http.get(f"{reader}/cob", params=window(), headers=account.auth)
            assert listed.status_code == 200, listed.text
            assert txid in {cob["txid"] for cob in listed.json()["cobs"]}

            total = (await http.get(f"{reader}/api/transactions", headers=account.auth)).json()["metadata"][
                "total"
            ]
            paid = await http.post(
                f"{writer}/sandbox/payments",
                json={"pixKey": account.key, "amount": 0.5},
                headers=account.auth,
            )
            assert paid.status_code == 201, paid.text
            after = await http.get(f"{reader}/api/transactions", headers=account.auth)
            assert after.status_code == 200, after.text
            assert after.json()["metadata"]["total"] == total + 1
        lagged = await reads(http, reader)
        # Three reads a round: the charges, and the transactions before and after the payment.
        assert lagged[("primary", "lag")] - before[("primary", "lag")] == 3 * ROUNDS
        assert lagged[("replica", "caught_up")] == before[("replica", "caught_up")]

        # Once the replica has applied the writes, the same reads land on it.
        await asyncio.sleep(DELAY + 1)
        listed = await http.get(f"{reader}/cob", params=window(), headers=account.auth)
        assert listed.status_code == 200, listed.text
        assert len(listed.json()["cobs"]) == ROUNDS
        history = await http.get(f"{reader}/api/transactions", headers=account.auth)
        assert history.json()["metadata"]["total"] == after.json()["metadata"]["total"]
        caught_up = await reads(http, reader)
        assert caught_up[("replica", "caught_up")] - lagged[("replica", "caught_up")] == 2
        assert await replica_sessions(lagging.standby.url("pix")) >= 1

        # The replica is gone: reads still answer 200, from the primary, counted.
        lagging.standby.stop()
        for _ in range(3):
            again = await http.get(f"{reader}/api/transactions", headers=account.auth)
            assert again.status_code == 200, again.text
            assert again.json()["metadata"]["total"] == after.json()["metadata"]["total"]
            cobs = await http.get(f"{reader}/cob", params=window(), headers=account.auth)
            assert cobs.status_code == 200, cobs.text
        lost = await reads(http, reader)
        assert lost[("primary", "replica_unavailable")] - caught_up[("primary", "replica_unavailable")] == 6
        assert lost[("replica", "caught_up")] == caught_up[("replica", "caught_up")]
        log = (tmp_path / "api-1.log").read_text()
        assert log.count("the read replica is out of reach") == 1, deployment.logs()
        await deployment.stop()
