"""The contract suites: every port's tests written once, run on the in-memory fake and on the
PostgreSQL adapter, so that the fake the unit tests trust cannot drift from the adapter.

The unit of work and its repositories: a test takes ``backend`` and works through ``backend.uow``
(a ``UnitOfWorkFactory``) only, so it sees what the ``Protocol`` promises and nothing of either
implementation. Their ``postgres`` half uses the run's database (``database``, tests/conftest.py):
shared by the whole run, so a test never assumes it is empty, makes its own rows (random
documents, keys, ids) and, unless committing is what it tests, rolls back.

The notifier's ``DeliveryStore``: a test takes ``store`` (and ``rows`` to seed and read it). Its
PostgreSQL half works on a database of its own (created and migrated once per run, its webhook
tables emptied before each test), so that a claim sees only the test's own deliveries.

The ports outside the unit of work (the key directory, the certificate check, the transaction
queries, the host resolver) have a ``side`` fixture in their own suite, parametrised the same way.

Every ``postgres`` half carries the ``postgres`` marker: ``-m "not postgres"`` runs the fakes
alone, without a database.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import partial

import asyncpg
import pytest

from pixcore.clock import ManualClock
from pixcore.group_commit.ports import TransferGroupStore
from pixcore.testing import InMemoryDeliveryStore, InMemoryStore, InMemoryTransferGroupStore, IntegrityError
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.ports import DeliveryStore
from pixcore.webhooks.rules import Delivery
from pixinfra.persistence.deliveries import PostgresDeliveryStore
from pixinfra.persistence.transfer_groups import PostgresTransferGroupStore
from pixinfra.postgres.pool import Database
from tests.contract.delivery_rows import MemoryRows, PostgresRows, Rows
from tests.support import PostgresUnits, migrated_by_command, opened_database, scratch_database


@dataclass(frozen=True)
class Backend:
    """One implementation of the ports, as a contract test sees it."""

    name: str
    uow: UnitOfWorkFactory
    refused: tuple[type[Exception], ...]
    """What a write the database refuses raises when no domain error names the rule (a row
    pointing at a missing account, a second row under a unique index)."""
    seed_delivery: Callable[[Delivery], Awaitable[int]]
    """Store a committed delivery (its ``id`` ignored) and return its id. No port creates
    deliveries (the notifier does, from the outbox): this is the one way in besides the ports."""
    transfer_groups: TransferGroupStore
    """The one-read, one-write side of a transfer group, on the same data as ``uow``."""


def _memory() -> Backend:
    store = InMemoryStore(clock=ManualClock())

    async def seed_delivery(delivery: Delivery) -> int:
        delivery_id = store.next_id("webhook_deliveries")
        store.webhooks.deliveries[delivery_id] = dataclasses.replace(delivery, id=delivery_id)
        return delivery_id

    return Backend(
        "memory",
        store.unit_of_work,
        (IntegrityError,),
        seed_delivery,
        InMemoryTransferGroupStore(store.unit_of_work),
    )


def _notification_of(route: str) -> str:
    """The envelope's type of an event delivered to registrations of type ``route``."""
    if route.startswith(("refund_", "med_")):
        return route.split("_", maxsplit=1)[0].upper()
    return {"cash_in": "RECEIVE", "cash_out": "TRANSFER"}[route]


async def _seed_postgres_delivery(uow: PostgresUnits, delivery: Delivery) -> int:
    d = delivery
    async with uow() as tx:
        # An outbox row marked dispatched already, so that no notifier of the run fans it out.
        outbox_id = await tx.connection.fetchval(
            """
            INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at, dispatched_at)
            VALUES ($1, $2, $3, '{}'::jsonb, $4, $4) RETURNING id
            """,
            d.account_id,
            _notification_of(d.event_type.value),  # the envelope's type (varchar(10)), then the route
            d.event_type.value,
            d.created_at,
        )
        delivery_id: int = await tx.connection.fetchval(
            """
            INSERT INTO webhook_deliveries (message_id, outbox_id, webhook_id, account_id, status, attempts,
                next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, finished_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id
            """,
            d.message_id,
            outbox_id,
            d.webhook_id,
            d.account_id,
            d.status.value,
            d.attempts,
            d.next_attempt_at,
            d.last_attempt_at,
            d.last_status_code,
            d.last_error,
            d.created_at,
            d.finished_at,
        )
        await tx.commit()
    return delivery_id


def _postgres(request: pytest.FixtureRequest) -> Backend:
    database: Database = request.getfixturevalue("database")  # the run's database, migrated and open
    uow: PostgresUnits = request.getfixturevalue("pg_uow")
    return Backend(
        "postgres",
        uow,
        (asyncpg.IntegrityConstraintViolationError,),
        partial(_seed_postgres_delivery, uow),
        PostgresTransferGroupStore(database),
    )


_BACKENDS: dict[str, Callable[[pytest.FixtureRequest], Backend]] = {
    "memory": lambda _: _memory(),
    "postgres": _postgres,
}


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> Backend:
    """The implementation under test: a fresh in-memory store, or the run's PostgreSQL database."""
    name: str = request.param
    return _BACKENDS[name](request)


# -- the notifier's DeliveryStore ---------------------------------------------------------------


@pytest.fixture(scope="session")
async def contract_database(
    database_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Database]:
    """A database of the contract suites' own, migrated by ``pixweb migrate`` (a process of its own:
    Piccolo migrates one database per process, and this one has migrated the run's already)."""
    async with scratch_database(database_server, "pixcontract") as url:
        await migrated_by_command(url, tmp_path_factory.mktemp("contract"))
        async with opened_database(url, max_size=8) as database:
            yield database


@pytest.fixture
async def empty_tables(contract_database: Database) -> Database:
    """The contract database with no events, registrations, secrets or deliveries (accounts stay)."""
    await contract_database.pool.execute(
        "TRUNCATE webhook_attempts, webhook_deliveries, outbox, webhooks, webhook_secrets"
    )
    return contract_database


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> DeliveryStore:
    """The port, in memory and on PostgreSQL (asked for only by the ``postgres`` half)."""
    if request.param == "memory":
        return InMemoryDeliveryStore()
    database: Database = request.getfixturevalue("empty_tables")
    return PostgresDeliveryStore(database)


@pytest.fixture
def rows(store: DeliveryStore) -> Rows:
    """The seeding and reading side of the same store."""
    if isinstance(store, InMemoryDeliveryStore):
        return MemoryRows(store)
    assert isinstance(store, PostgresDeliveryStore)
    return PostgresRows(store.database.pool)
