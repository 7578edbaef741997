"""The service as the model-based test sees it: the real app on the run's database, a clock
that only the test moves, and the few ways of reading it that may change as the service does.

Each way of touching the service that is not a plain API call sits in one small function
here, so that it is the only place to adapt: how the clock moves (``advance_clock``), how a
token is obtained (``token_for``), how the ledger check is read (``ledger_ok``) and how the
outside world's balance is read (``outside_world_total``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar
from unittest import mock

import asyncpg
import httpx

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.ledger_check import check_ledger
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from tests.e2e.conftest import running_api
from tests.support import Client, bearer

__all__ = [
    "ModelService",
    "Runner",
    "SteppedClock",
    "advance_clock",
    "cents",
    "ledger_ok",
    "model_service",
    "outside_world_total",
    "reais",
    "token_for",
    "valor",
]

T = TypeVar("T")


def reais(amount: int) -> Decimal:
    """Centavos as a JSON number with two decimals."""
    return Decimal(amount).scaleb(-2)


def valor(amount: int) -> str:
    return f"{amount // 100}.{amount % 100:02d}"


def cents(number: Any) -> int:
    """A JSON number or string in reais (parsed as Decimal) as centavos."""
    value = Decimal(str(number)) * 100
    if value != value.to_integral_value():
        raise AssertionError(f"{number} has more than two decimals")
    return int(value)


class Runner(Protocol):
    def __call__(self, coroutine: Awaitable[T]) -> T: ...


class SteppedClock(SystemClock):
    """The service clock, standing still between the test's moves, so that the model knows the
    exact time of every step (expiries, deadlines and the refund window fall on known seconds)."""

    def __init__(self) -> None:
        super().__init__()
        self.start = datetime.now(UTC).replace(microsecond=0)

    def now(self) -> datetime:
        return self.start + self.offset


@dataclass
class ModelService:
    http: httpx.AsyncClient
    clock: SteppedClock
    conn: asyncpg.Connection[Any]
    uow: UnitOfWorkFactory
    """Units of work on the service's database, for the workers' use cases and opening accounts."""
    settings: Settings
    run: Runner
    """Runs a coroutine on the service's event loop from the state machine's thread."""


def service_settings(database_url: str, data_dir: Path) -> Settings:
    """The service's settings, from the environment as an operator gives them: no background
    loops (the test runs the workers' use cases), and no limit on the token endpoints, which a
    run asks for hundreds of tokens (fresh accounts per example, new tokens after clock moves)."""
    environment = {
        "PIX_DATABASE_URL": database_url,
        "PIX_DATA_DIR": str(data_dir),
        "PIX_WORKERS": "off",
        "PIX_SANDBOX": "on",
        "PIX_PRODUCTION": "off",
        "PIX_TOKEN_RATE_PER_CLIENT": "0",
        "PIX_TOKEN_RATE_PER_ADDRESS": "0",
    }
    with mock.patch.dict(os.environ, environment):
        return Settings.from_env()


@asynccontextmanager
async def model_service(database: Database, data_dir: Path) -> AsyncIterator[ModelService]:
    """The app on ``database``'s URL with its lifespan (no background loops: the test runs the
    workers' use cases, on units of work on ``database``), a connection to look behind the API,
    and a bridge for a synchronous state machine."""
    assert database.url is not None
    database_url = database.url
    settings = service_settings(database_url, data_dir)
    clock = SteppedClock()
    loop = asyncio.get_running_loop()

    def run(coroutine: Awaitable[T]) -> T:
        async def wrapped() -> T:
            return await coroutine

        return asyncio.run_coroutine_threadsafe(wrapped(), loop).result()

    conn = await asyncpg.connect(database_url)
    try:
        async with running_api(settings, clock) as api:
            yield ModelService(
                http=api.client,
                clock=clock,
                conn=conn,
                uow=partial(PostgresUnitOfWork, database),
                settings=settings,
                run=run,
            )
    finally:
        await conn.close()


async def advance_clock(service: ModelService, seconds: int) -> None:
    """Move the service clock forward (the sandbox clock belongs to the operator; the test's
    app has a clock of its own, which the test moves)."""
    service.clock.advance(seconds)


async def token_for(service: ModelService, client: Client) -> dict[str, str]:
    """The Authorization header of a new token, through the token endpoint."""
    return await bearer(service.http, client)


async def ledger_ok(service: ModelService) -> tuple[bool, dict[str, Any]]:
    """``pixweb admin ledger check``'s verdict over the whole database, and its report."""
    report = await check_ledger(service.conn)
    return bool(report["ok"]), report


async def outside_world_total(service: ModelService, account_ids: list[int]) -> int:
    """The outside world's balance in the service's ledger, as far as the transactions of these
    accounts moved it: what went out to other institutions minus what came in from them."""
    total = await service.conn.fetchval(
        """
        SELECT coalesce(sum(e.amount), 0)::bigint
          FROM ledger_entries e JOIN transactions t ON t.id = e.transaction_id
         WHERE e.account_id IS NULL AND t.account_id = ANY($1::bigint[])
        """,
        account_ids,
    )
    return int(total)
