"""The HTTP API, end to end: the real Litestar app (lifespan, middleware, error
mapping) over an HTTP client, on the run's PostgreSQL database.

The client is httpx over the ASGI interface, in the test's own event loop, so
that the app shares the run's connection pool.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest
from litestar import Litestar

from pixcore.clock import SystemClock
from pixcore.webhooks.ports import HostResolver
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from pixnotify import deliver_in_process, probe_for
from pixweb.app import create_app
from tests.support import scratch_database


@dataclass
class Api:
    client: httpx.AsyncClient
    clock: SystemClock
    settings: Settings
    app: Litestar | None = None  # for a second client (another address) on the same running app


@asynccontextmanager
async def running_api(
    settings: Settings,
    clock: SystemClock,
    database: Database | None = None,
    *,
    resolver: HostResolver | None = None,
    overrides: Mapping[str, object] | None = None,
) -> AsyncIterator[Api]:
    """The app with its lifespan running, and an HTTP client on it. ``database``: one open already
    (the run's) for the app to share; without one the app opens its own on ``settings``.
    ``resolver`` and ``overrides``: as ``create_app`` takes them (a test's DNS answers; what the
    handlers are handed in place of the app's own)."""
    # Composed as the `pixweb` command composes it (pixservice): delivery runs in the app's process.
    app = create_app(
        settings,
        clock=clock,
        database=database,
        delivery=deliver_in_process,
        probe=probe_for(settings),
        resolver=resolver,
        overrides=overrides,
    )
    started, stop = asyncio.Event(), asyncio.Event()

    async def run_lifespan() -> None:
        # Litestar's lifespan holds an anyio task group: enter and leave it in one task.
        async with app.lifespan():
            started.set()
            await stop.wait()

    task = asyncio.create_task(run_lifespan())
    await asyncio.wait({task, asyncio.create_task(started.wait())}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()  # start-up failed: raise its error here
    try:
        async with client_of(app) as client:
            yield Api(client=client, clock=clock, settings=settings, app=app)
    finally:
        stop.set()
        await task


@asynccontextmanager
async def client_of(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client on a running app, with a cookie jar of its own. It asks for the console's
    pages in English (their default is Brazilian Portuguese, which
    tests/e2e/console/test_console_language.py checks); the API's answers have one language."""
    transport = httpx.ASGITransport(app=app)
    english = {"Accept-Language": "en"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1:8000", headers=english
    ) as client:
        yield client


@asynccontextmanager
async def fresh_client(shared: Api) -> AsyncIterator[Api]:
    """``shared`` (an app serving a whole module) with a new client, no cookie of an earlier test;
    its clock, which the test may move on, is put back afterwards."""
    assert shared.app is not None
    offset = shared.clock.offset
    try:
        async with client_of(shared.app) as client:
            yield replace(shared, client=client)
    finally:
        shared.clock.offset = offset


def _grouping() -> dict[str, int]:
    """Group commit as ``PIX_TRANSFER_BATCH_SIZE`` / ``PIX_TRANSFER_BATCH_WINDOW_MS`` say, when set: the
    suite runs grouped (the default) or not (size 1) against the same tests."""
    names = {
        "transfer_batch_size": "PIX_TRANSFER_BATCH_SIZE",
        "transfer_batch_window_ms": "PIX_TRANSFER_BATCH_WINDOW_MS",
    }
    return {field: int(os.environ[name]) for field, name in names.items() if name in os.environ}


@pytest.fixture(scope="module")
def resolver() -> HostResolver | None:
    """The host resolver of webhook registration the ``api`` is built with: the operating system's
    here; a module whose tests register names overrides this fixture with a ``StaticResolver``."""
    return None


@pytest.fixture(scope="module")
async def module_api(
    database: Database, tmp_path_factory: pytest.TempPathFactory, resolver: HostResolver | None
) -> AsyncIterator[Api]:
    """The app, one per test module: building it (Litestar registers every handler) costs more than
    most tests, and a test's state lives in the accounts it opens, not in the app. Settlement is
    driven by the tests (settle_due) unless a test starts the loop itself."""
    settings = Settings(
        database_url=database.url, data_dir=tmp_path_factory.mktemp("api"), run_workers=False, **_grouping()
    )
    async with running_api(settings, SystemClock(), database, resolver=resolver) as running:
        yield running


@pytest.fixture
async def api(module_api: Api) -> AsyncIterator[Api]:
    """The module's app with a client of this test's own (its own cookies). A test that changes the
    app itself (its clock, its counters, its settings) uses ``own_api`` instead."""
    async with fresh_client(module_api) as fresh:
        yield fresh


@pytest.fixture
async def own_api(database: Database, tmp_path: Path, resolver: HostResolver | None) -> AsyncIterator[Api]:
    """An app of this test's own, as ``api``'s."""
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False, **_grouping())
    async with running_api(settings, SystemClock(), database, resolver=resolver) as running:
        yield running


@pytest.fixture
async def own_database(database_server: str) -> AsyncIterator[str]:
    """An empty database of the test's own on the run's server (for tests that start
    ``pixweb serve`` processes, whose clock and settings must not touch the run's), dropped
    afterwards."""
    async with scratch_database(database_server, "pixe2e") as url:
        yield url
