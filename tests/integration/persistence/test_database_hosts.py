"""A ``PIX_DATABASE_URL`` listing several hosts: every path that reads it (creating the database,
``pixweb migrate`` through Piccolo's engine, the pool, the notifier's ``LISTEN``) goes past a host
that is down to the one that answers, and a list with no host of the wanted kind is an outage
(503), not a bug."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import asyncpg
import pytest

from pixinfra.persistence.deliveries import OUTBOX_CHANNEL, listen_for_events
from pixinfra.postgres.availability import database_unavailable
from pixinfra.postgres.database import ensure_database, schema_is_current
from pixinfra.postgres.pool import CONNECT_TIMEOUT, Database, HostList
from tests.faults.processes import free_port
from tests.support import scratch_database
from tests.support.processes import migrated_by_command


def behind_a_dead_host(url: str, attrs: str = "read-write") -> str:
    """``url`` with a host that refuses connections listed first (a TCP port nobody listens on,
    or a socket folder that does not exist), and ``target_session_attrs``."""
    parts = urlsplit(url)
    auth, at, hosts = parts.netloc.rpartition("@")
    query = parts.query
    if hosts:
        netloc = f"{auth}{at}127.0.0.1:{free_port()},{hosts}"
    else:  # a Unix socket named in the query (?host=/folder)
        netloc = parts.netloc
        query = query.replace("host=", "host=/nonexistent-pix-socket,", 1)
    query = f"{query}&target_session_attrs={attrs}" if query else f"target_session_attrs={attrs}"
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


@pytest.fixture
async def listed(database_server: str) -> AsyncIterator[str]:
    """A scratch database's URL, behind a dead host."""
    async with scratch_database(database_server, "pixhosts") as url:
        yield behind_a_dead_host(url)


async def test_the_database_is_created_and_migrated_past_a_dead_host(
    listed: str, database_server: str, tmp_path: Path
) -> None:
    conn = await asyncpg.connect(listed)  # the scratch database exists; one that does not:
    await conn.close()
    fresh = listed.replace(urlsplit(listed).path, urlsplit(listed).path + "_new")
    try:
        await ensure_database(fresh)
        assert not await schema_is_current(fresh)
        await migrated_by_command(fresh, tmp_path / "data")  # Piccolo's engine, from the same URL
        assert await schema_is_current(fresh)
    finally:
        admin = await asyncpg.connect(database_server)
        try:
            name = urlsplit(fresh).path.lstrip("/")
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


async def test_the_pool_and_the_notifiers_listen_go_past_a_dead_host(listed: str) -> None:
    database = Database()
    await database.open(listed, min_size=1, max_size=2)
    wake, stop = asyncio.Event(), asyncio.Event()
    listening = asyncio.create_task(listen_for_events(database, wake, stop))
    try:
        assert await database.pool.fetchval("SELECT NOT pg_is_in_recovery()") is True
        await asyncio.wait_for(wake.wait(), 10)  # set once as the listening begins
        wake.clear()
        async with database.acquire() as conn:
            await conn.execute(f"NOTIFY {OUTBOX_CHANNEL}")
        await asyncio.wait_for(wake.wait(), 10)
    finally:
        stop.set()
        await listening
        await database.close()


async def test_no_host_of_the_wanted_kind_is_an_outage(database_server: str) -> None:
    parts = urlsplit(database_server)
    query = f"{parts.query}&" if parts.query else ""
    standby_only = urlunsplit(
        (parts.scheme, parts.netloc, parts.path, f"{query}target_session_attrs=standby", "")
    )
    database = Database()
    with pytest.raises(asyncpg.TargetServerAttributeNotMatched) as refused:
        await database.open(standby_only, min_size=1, max_size=1)
    assert database_unavailable(refused.value)  # answered 503, as when the server is down


@contextmanager
def behind_a_silent_host(url: str) -> Iterator[str]:
    """``url`` with a server listed first that takes TCP connections (the kernel does) and never
    answers: a machine gone whose packets are dropped, as a client sees it."""
    parts = urlsplit(url)
    auth, at, hosts = parts.netloc.rpartition("@")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        silent_port = silent.getsockname()[1]
        if hosts:
            netloc = f"{auth}{at}127.0.0.1:{silent_port},{hosts}"
            yield urlunsplit((parts.scheme, netloc, parts.path, "target_session_attrs=read-write", ""))
            return
        # The embedded server listens on a Unix socket only: its folder in the query's host, and its
        # port in the socket file's name.
        folder = parse_qs(parts.query)["host"][-1]
        (socket_file,) = (found for found in Path(folder).glob(".s.PGSQL.*") if found.suffix != ".lock")
        port = socket_file.name.rsplit(".", 1)[1]
        query = f"host=127.0.0.1,{folder}&port={silent_port},{port}&target_session_attrs=read-write"
        yield urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


async def test_a_server_that_never_answers_costs_one_timeout_once(database_server: str) -> None:
    """asyncpg alone spends its one timeout on the first server and never reaches the second;
    :class:`HostList` gives each its own, and starts with the one that answered from then on."""
    with behind_a_silent_host(database_server) as url:
        with pytest.raises(TimeoutError):
            await asyncpg.connect(url, timeout=1)

        chooser = HostList(url)
        started = time.monotonic()
        first = await chooser.connect(url, timeout=1)
        took_first = time.monotonic() - started
        started = time.monotonic()
        second = await chooser.connect(url, timeout=1)
        took_second = time.monotonic() - started
        try:
            assert await first.fetchval("SELECT NOT pg_is_in_recovery()") is True
            assert await second.fetchval("SELECT NOT pg_is_in_recovery()") is True
        finally:
            await first.close()
            await second.close()
    assert 1 <= took_first < 3
    assert took_second < 0.5


@pytest.mark.slow  # one connect timeout (10 s)
async def test_migrate_goes_past_a_server_that_never_answers(database_server: str, tmp_path: Path) -> None:
    """``pixweb migrate`` (checking the database, the lock, Piccolo's engine) pays the silent
    server's timeout once, then works on the other."""
    async with scratch_database(database_server, "pixquiet") as scratch:
        with behind_a_silent_host(scratch) as url:
            started = time.monotonic()
            await migrated_by_command(url, tmp_path / "data")
            took = time.monotonic() - started
            assert await schema_is_current(scratch)
    print(f"pixweb migrate past a silent server: {took:.1f} s")
    assert took < 2 * CONNECT_TIMEOUT
