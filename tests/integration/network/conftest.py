"""The network's fixtures: certificates made once a module, and ``network``, the application served
over mutual TLS on the module's database with both banks registered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import asyncpg
import pytest
from aiohttp import web

from pixnet.server.app import Identity, make_app
from pixnet.server.common import NETWORK
from pixnet.server.tls import server_context
from pixnet.settlement.spi import check_ledger
from pixnet.store.entries import add_participant
from pixnet.store.schema import migrate
from tests.integration.network.support import BANK_A, BANK_B, CA, Network, Party, issue
from tests.support.databases import scratch_database


@pytest.fixture(scope="module")
def payee_timeout() -> timedelta:
    """How long a payee has to answer a payment (a module may define its own)."""
    return timedelta(seconds=10)


@pytest.fixture(scope="module")
async def network_database(database_server: str) -> AsyncIterator[str]:
    async with scratch_database(database_server, "pixnet") as url:
        yield url


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Party]]:
    """The authority's file, and the network's and participants' certificates (RSA: made once)."""
    folder = tmp_path_factory.mktemp("pki")
    parties = {ispb: issue(CA, f"{ispb}.participants.pix.example", folder) for ispb in (BANK_A, BANK_B)}
    parties["dict"] = issue(CA, "127.0.0.1", folder)
    parties["stranger"] = issue(CA, "stranger.pix.example", folder)  # issued, never registered
    CA.cert_pem.write_to_path(str(folder / "ca.pem"))
    return folder / "ca.pem", parties


@pytest.fixture
async def network(
    network_database: str, certificates: tuple[Path, dict[str, Party]], payee_timeout: timedelta
) -> AsyncIterator[Network]:
    pool = await asyncpg.create_pool(network_database, min_size=1, max_size=4)
    ca_file, made = certificates
    parties = dict(made)
    dict_party = parties.pop("dict")
    async with pool.acquire() as connection:
        await migrate(connection)
        for ispb in (BANK_A, BANK_B):
            await add_participant(connection, ispb, f"Bank {ispb}", parties[ispb].cert)
    context = server_context(
        certificate=dict_party.files[0], private_key=dict_party.files[1], authority=ca_file
    )
    app = make_app(pool, Identity(dict_party.cert, dict_party.key), payee_timeout=payee_timeout)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield Network(
            f"https://127.0.0.1:{port}", dict_party, parties, network_database, app[NETWORK].buckets
        )
    finally:
        await runner.cleanup()
        await pool.close()


@pytest.fixture
async def books(network: Network) -> AsyncIterator[asyncpg.Connection]:
    """A connection on the network's database; the settlement's books are proved when the test ends."""
    connection = await asyncpg.connect(network.database)
    try:
        yield connection
        report = await check_ledger(connection)
        assert report["ok"], report
    finally:
        await connection.close()
