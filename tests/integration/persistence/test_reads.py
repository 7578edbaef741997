"""The read side on PostgreSQL (``pixinfra.persistence.reads``): a read unit of work refuses
writes wherever it runs, reads go to the replica when it holds the account's writes, and a
replica that refuses connections hands the read to the primary without an error.

The "replica" here is a second pool on the run's own server (a server that is no standby has
replayed everything it holds), or one on a port nobody listens on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date

import asyncpg
import pytest

from pixcore.accounts.accounts_service import get_balance
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.reads import Reads, RoutedTransactionQueries
from pixinfra.postgres.availability import ReplicaReadCut, database_unavailable
from pixinfra.postgres.pool import Database
from pixinfra.postgres.replica import ReadRouter, Route
from tests.faults.processes import free_port
from tests.support.clients import new_client


@pytest.fixture
async def same_server(database: Database) -> AsyncIterator[Database]:
    assert database.url is not None
    replica = Database()
    await replica.open(database.url, min_size=0, max_size=2)
    try:
        yield replica
    finally:
        await replica.close()


@pytest.fixture
async def refusing() -> AsyncIterator[Database]:
    replica = Database()
    await replica.open(f"postgresql://postgres@127.0.0.1:{free_port()}/pix", min_size=0, max_size=2)
    try:
        yield replica
    finally:
        await replica.close()


async def test_a_read_unit_of_work_refuses_writes(database: Database, pg_uow: UnitOfWorkFactory) -> None:
    client = await new_client(pg_uow)
    reads = Reads(ReadRouter(database))
    async with reads.uow(client.account_id)() as tx:
        assert (await tx.balances.get(client.account_id)) is not None
        with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
            await tx.balances.lock(client.account_id)  # SELECT ... FOR UPDATE is a write's lock


async def test_reads_go_to_a_replica_that_holds_the_write(
    database: Database, same_server: Database, pg_uow: UnitOfWorkFactory
) -> None:
    client = await new_client(pg_uow)
    seen: list[Route] = []
    router = ReadRouter(database, same_server, observe=seen.append)
    await router.mark(client.account_id)
    balance = await get_balance(Reads(router).uow(client.account_id), client.account_id)
    assert balance.available == 0
    queries = RoutedTransactionQueries(router)
    assert await queries.daily_flows(client.account_id, date(2026, 1, 1), date(2026, 1, 2)) is not None
    assert seen == [Route.REPLICA, Route.REPLICA]
    assert same_server.pool.get_size() >= 1  # the replica's pool did the reading


async def test_a_refusing_replica_hands_reads_to_the_primary(
    database: Database, refusing: Database, pg_uow: UnitOfWorkFactory
) -> None:
    client = await new_client(pg_uow)
    seen: list[Route] = []
    router = ReadRouter(database, refusing, observe=seen.append)
    # No write yet: the replica is chosen without a look, and fails as the read starts.
    balance = await get_balance(Reads(router).uow(client.account_id), client.account_id)
    assert balance.available == 0
    assert seen == [Route.PRIMARY_UNAVAILABLE]
    queries = RoutedTransactionQueries(router)
    await queries.daily_flows(client.account_id, date(2026, 1, 1), date(2026, 1, 2))
    assert seen == [Route.PRIMARY_UNAVAILABLE] * 2  # left alone for a while: no second attempt


CONFLICT = "DO $$ BEGIN RAISE EXCEPTION 'conflict with recovery' USING ERRCODE = '40001'; END $$"
"""What a standby raises when it cancels a read for the WAL it must replay (SQLSTATE 40001)."""


async def test_a_read_unit_cancelled_halfway_on_the_replica_is_an_outage_of_that_read(
    database: Database, same_server: Database, pg_uow: UnitOfWorkFactory
) -> None:
    client = await new_client(pg_uow)
    seen: list[Route] = []
    router = ReadRouter(database, same_server, observe=seen.append)

    async def read_cut_halfway() -> None:
        async with Reads(router).uow(client.account_id)() as tx:
            assert tx.database is same_server
            await tx.connection.execute(CONFLICT)

    with pytest.raises(ReplicaReadCut) as cut:
        await read_cut_halfway()
    assert isinstance(cut.value.__cause__, asyncpg.SerializationError)
    assert database_unavailable(cut.value)  # answered 503 with Retry-After, as an outage
    assert seen == [Route.REPLICA, Route.PRIMARY_CONFLICT]
    chosen, route = await router.database_for(client.account_id)  # the replica is not lost
    assert (chosen, route) == (same_server, Route.REPLICA)


async def test_the_same_error_on_the_primary_is_the_reads_own(
    database: Database, pg_uow: UnitOfWorkFactory
) -> None:
    client = await new_client(pg_uow)

    async def read() -> None:
        async with Reads(ReadRouter(database)).uow(client.account_id)() as tx:
            await tx.connection.execute(CONFLICT)

    with pytest.raises(asyncpg.SerializationError):
        await read()
