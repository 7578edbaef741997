"""The notifier against PostgreSQL and a real local HTTP receiver.

Registrations, secrets and outbox events are written straight into the tables. The notifier's
clock is a ManualClock (started at the real time, so that signatures verify): retries become due
when a test moves it, never by waiting. Host names are resolved by a fake resolver, so nothing
here reaches a real DNS server or the internet.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from pixcore.clock import ManualClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.delivery import message_id
from pixcore.webhooks.rules import EventType
from pixinfra.persistence.deliveries import PostgresDeliveryStore, queue_status
from pixinfra.postgres.pool import Database
from pixinfra.settings import NotifierSettings
from pixnotify import Notifier
from pixnotify.worker import run_listening
from tests.contract.delivery_rows import PostgresRows
from tests.integration.receiver import Received, Receiver, Reply, running_receiver
from tests.support import migrated_by_command, new_client, process_env, scratch_database
from tests.support.processes import stop_process

BIN = Path(sys.executable).parent


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def transfer(n: int = 1) -> dict[str, Any]:
    return {
        "type": "TRANSFER",
        "data": {
            "id": n,
            "txId": None,
            "pixKey": "someone@example.com",
            "status": "LIQUIDATED",
            "payment": {"amount": "10.00", "currency": "BRL"},
            "endToEndId": f"E9999999920261122120000000000{n:03d}"[:32],
            "creditDebitType": "DEBIT",
            "idempotencyKey": f"key-{n}",
            "creditorAccount": {"name": "Maria", "document": "***.456.789-**", "ispb": "12345678"},
            "remittanceInformation": "açaí",
        },
    }


def receive(n: int = 1) -> dict[str, Any]:
    return {"type": "RECEIVE", "data": {"id": n, "txId": "t" * 26, "status": "LIQUIDATED"}}


class Tables(PostgresRows):
    """Rows written straight into the webhook tables, on a connection of its own, as the contract
    suite writes them; with ``uow`` (units of work on the same database), its accounts are opened
    as the API opens them."""

    def __init__(self, conn: asyncpg.Connection[Any], uow: UnitOfWorkFactory | None = None) -> None:
        super().__init__(conn)
        self.conn = conn
        self.uow = uow

    async def account(self) -> int:
        if self.uow is None:
            return await super().account()
        return (await new_client(self.uow, link=False)).account_id

    async def delivery(self, outbox_id: int, webhook_id: int) -> asyncpg.Record:
        row = await self.conn.fetchrow(
            "SELECT * FROM webhook_deliveries WHERE outbox_id = $1 AND webhook_id = $2", outbox_id, webhook_id
        )
        assert row is not None, f"no delivery of event {outbox_id} to webhook {webhook_id}"
        return row


@pytest.fixture
async def tables(migrated_database: str, pg_uow: UnitOfWorkFactory) -> AsyncIterator[Tables]:
    conn = await asyncpg.connect(migrated_database)
    try:
        yield Tables(conn, pg_uow)
    finally:
        await conn.close()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime.now(UTC))


HOSTS = {"hooks.pix.test": ["127.0.0.1"]}


async def fake_resolver(host: str, port: int) -> list[str]:
    if host not in HOSTS:
        raise OSError(f"unknown host {host} (the tests resolve no real names)")
    return HOSTS[host]


def notifier(
    database: Database, clock: ManualClock, *, allow_private: bool = True, **config: Any
) -> Notifier:
    settings = NotifierSettings(**{"timeout": 5.0, "lease": 30.0} | config)
    return Notifier(
        PostgresDeliveryStore(database),
        settings,
        allow_private=allow_private,
        clock=clock,
        resolver=fake_resolver,
    )


# ------------------------------------------------------------------------------------ fan-out


async def test_an_event_goes_signed_to_each_active_url_of_its_type(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    secret, previous = new_secret(), new_secret()
    await tables.secret(account, secret, previous, clock.now() + timedelta(hours=24))
    hooks = [
        await tables.webhook(account, receiver.url(f"/fan/{n}"), headers={"X-Tenant": f"t{n}"})
        for n in range(3)
    ]
    other_type = await tables.webhook(account, receiver.url("/fan/cash-in"), "cash_in")
    inactive = await tables.webhook(account, receiver.url("/fan/inactive"), active=False)
    other_account = await tables.account()
    await tables.webhook(other_account, receiver.url("/fan/other-account"))
    event = transfer(1)
    outbox_id = await tables.emit(account, event, EventType.CASH_OUT)

    async with notifier(database, clock) as running:
        await running.run_once()

    for n, hook in enumerate(hooks):
        row = await tables.delivery(outbox_id, hook)
        assert (row["status"], row["attempts"], row["last_status_code"]) == ("delivered", 1, 200)
        assert row["next_attempt_at"] is None
        assert row["message_id"] == message_id(outbox_id, hook)
        (got,) = receiver.at(f"/fan/{n}")
        assert got.webhook_id == row["message_id"]
        assert got.headers["x-tenant"] == f"t{n}"
        assert got.headers["content-type"] == "application/json"
        assert got.verify(secret) == event
        assert got.verify(previous) == event  # the rotation's grace: both signatures
        assert len(got.headers["webhook-signature"].split(" ")) == 2
    assert len({r.body for r in receiver.received}) == 1
    assert not receiver.at("/fan/cash-in")
    assert not receiver.at("/fan/inactive")
    assert not receiver.at("/fan/other-account")
    rows = await tables.conn.fetch(
        "SELECT webhook_id FROM webhook_deliveries WHERE outbox_id = $1", outbox_id
    )
    assert sorted(row["webhook_id"] for row in rows) == sorted(hooks)  # not other_type, not inactive
    assert {other_type, inactive}.isdisjoint(hooks)
    assert await tables.conn.fetchval("SELECT dispatched_at FROM outbox WHERE id = $1", outbox_id) is not None


async def test_an_expired_rotation_signs_with_the_current_secret_only(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    secret, previous = new_secret(), new_secret()
    await tables.secret(account, secret, previous, clock.now() - timedelta(seconds=1))
    await tables.webhook(account, receiver.url("/expired-rotation"), "cash_in")
    await tables.emit(account, receive(1), EventType.CASH_IN)
    async with notifier(database, clock) as running:
        await running.run_once()
    (got,) = receiver.at("/expired-rotation")
    assert len(got.headers["webhook-signature"].split(" ")) == 1
    got.verify(secret)
    with pytest.raises(Exception, match="signature"):
        got.verify(previous)


async def test_an_event_without_registrations_is_only_marked_dispatched(
    database: Database, tables: Tables, clock: ManualClock
) -> None:
    account = await tables.account()
    outbox_id = await tables.emit(account, transfer(2), EventType.CASH_OUT)
    async with notifier(database, clock) as running:
        done = await running.run_once()
    assert done.dispatched >= 1
    assert await tables.conn.fetchval("SELECT dispatched_at FROM outbox WHERE id = $1", outbox_id) is not None
    assert (
        await tables.conn.fetchval("SELECT count(*) FROM webhook_deliveries WHERE outbox_id = $1", outbox_id)
        == 0
    )


# ------------------------------------------------------------------------------------ pixnotify status


async def test_status_names_each_failing_url_with_its_last_error_until_it_delivers(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    flaky = await tables.webhook(account, receiver.url("/status/flaky?token=t0ps3cret"))
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    dead = await tables.webhook(account, f"http://hooks.pix.test:{closed}/status/dead")
    receiver.plan["/status/flaky?token=t0ps3cret"] = [Reply(500), Reply(204)]
    await tables.emit(account, transfer(31), EventType.CASH_OUT)

    async def failing() -> dict[int, dict[str, Any]]:
        report = (await queue_status(database, clock.now())).as_json()
        return {url["webhookId"]: url for url in report["failingUrls"] if url["webhookId"] in (flaky, dead)}

    async with notifier(database, clock) as running:
        await running.run_once()
        listed = await failing()
        assert {
            hook: (url["lastError"], url["lastStatusCode"], url["pendingDeliveries"])
            for hook, url in listed.items()
        } == {
            flaky: ("answered 500", 500, 1),
            dead: (f"connection refused by hooks.pix.test:{closed}", None, 1),
        }
        assert listed[flaky]["url"] == f"http://127.0.0.1:{receiver.port}/"  # never the path or its token
        assert listed[flaky]["accountId"] == account

        clock.advance(6)
        await running.run_once()  # the flaky URL answers 204 now; the dead one is still refused
        assert set(await failing()) == {dead}


# ------------------------------------------------------------------------------------ retries


async def test_a_500_is_retried_on_the_schedule_with_the_same_id_and_body(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    secret = new_secret()
    await tables.secret(account, secret)
    hook = await tables.webhook(account, receiver.url("/flaky"))
    receiver.plan["/flaky"] = [Reply(500), Reply(200)]
    outbox_id = await tables.emit(account, transfer(3), EventType.CASH_OUT)

    async with notifier(database, clock) as running:
        await running.run_once()
        first = await tables.delivery(outbox_id, hook)
        assert (first["status"], first["attempts"], first["last_status_code"]) == ("pending", 1, 500)
        assert first["last_error"] == "answered 500"
        assert (
            clock.now() + timedelta(seconds=4.5)
            <= first["next_attempt_at"]
            <= clock.now() + timedelta(seconds=5.5)
        )

        await running.run_once()  # not due yet
        assert len(receiver.at("/flaky")) == 1

        clock.advance(6)
        await running.run_once()

    second = await tables.delivery(outbox_id, hook)
    assert (second["status"], second["attempts"], second["last_status_code"]) == ("delivered", 2, 200)
    assert second["finished_at"] == clock.now()
    one, two = receiver.at("/flaky")
    assert one.webhook_id == two.webhook_id == message_id(outbox_id, hook)
    assert one.body == two.body
    assert int(two.headers["webhook-timestamp"]) - int(one.headers["webhook-timestamp"]) == 6
    assert one.verify(secret) == two.verify(secret) == transfer(3)


async def test_410_fails_the_delivery_and_deactivates_the_url(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    gone = await tables.webhook(account, receiver.url("/gone"))
    kept = await tables.webhook(account, receiver.url("/kept"))
    receiver.plan["/gone"] = [Reply(410)]
    first = await tables.emit(account, transfer(4), EventType.CASH_OUT)

    async with notifier(database, clock) as running:
        await running.run_once()
        row = await tables.delivery(first, gone)
        assert (row["status"], row["attempts"], row["last_status_code"]) == ("failed", 1, 410)
        assert row["next_attempt_at"] is None
        hook = await tables.conn.fetchrow("SELECT * FROM webhooks WHERE id = $1", gone)
        assert hook["is_active"] is False
        assert hook["deactivation_reason"] == "gone (HTTP 410)"
        assert hook["deactivated_at"] is not None

        second = await tables.emit(account, transfer(5), EventType.CASH_OUT)
        await running.run_once()

    delivered_to = await tables.conn.fetch(
        "SELECT webhook_id FROM webhook_deliveries WHERE outbox_id = $1", second
    )
    assert [r["webhook_id"] for r in delivered_to] == [kept]
    assert len(receiver.at("/gone")) == 1
    assert len(receiver.at("/kept")) == 2


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_sets_the_next_attempt(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock, status: int
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    path = f"/busy/{status}"
    hook = await tables.webhook(account, receiver.url(path))
    receiver.plan[path] = [Reply(status, {"Retry-After": "120"}), Reply(200)]
    outbox_id = await tables.emit(account, transfer(6), EventType.CASH_OUT)

    async with notifier(database, clock) as running:
        await running.run_once()
        row = await tables.delivery(outbox_id, hook)
        assert (row["status"], row["last_status_code"]) == ("pending", status)
        assert row["next_attempt_at"] == row["last_attempt_at"] + timedelta(seconds=120)

        clock.advance(119)
        await running.run_once()
        assert len(receiver.at(path)) == 1

        clock.advance(1)
        await running.run_once()

    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"]) == ("delivered", 2)


async def test_a_receiver_slower_than_the_timeout_is_a_failed_attempt(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    hook = await tables.webhook(account, receiver.url("/slow"))
    never = asyncio.Event()
    receiver.plan["/slow"] = [Reply(200, hold=never)]
    outbox_id = await tables.emit(account, transfer(7), EventType.CASH_OUT)
    try:
        async with notifier(database, clock, timeout=0.3, lease=5.0) as running:
            await running.run_once()
    finally:
        never.set()
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending", 1, None)
    assert row["last_error"] == "timed out after 0.3 s"
    assert len(receiver.at("/slow")) == 1  # it did arrive: at least once, the retry carries the same id
    assert row["next_attempt_at"] > clock.now()


async def test_a_name_resolving_to_loopback_is_refused_at_delivery(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    hook = await tables.webhook(account, receiver.url("/ssrf", host="hooks.pix.test"))
    outbox_id = await tables.emit(account, transfer(8), EventType.CASH_OUT)

    async with notifier(database, clock, allow_private=False) as running:
        await running.run_once()
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending", 1, None)
    assert row["last_error"] == (
        "address refused: hooks.pix.test resolves to 127.0.0.1, which is loopback "
        "(PIX_WEBHOOK_ALLOW_PRIVATE is off)"
    )
    assert receiver.at("/ssrf") == []

    # With private addresses allowed the same name is delivered to: the connection goes to the
    # address the check saw (the system resolver does not know this name).
    clock.advance(6)
    async with notifier(database, clock, allow_private=True) as running:
        await running.run_once()
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"]) == ("delivered", 2)
    (got,) = receiver.at("/ssrf")
    assert got.headers["host"] == f"hooks.pix.test:{receiver.port}"


async def test_a_delivery_to_a_url_deactivated_after_the_fan_out_fails_unsent(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    hook = await tables.webhook(account, receiver.url("/deleted"))
    outbox_id = await tables.emit(account, transfer(9), EventType.CASH_OUT)
    async with notifier(database, clock) as running:
        await running.dispatch()
        await tables.conn.execute("UPDATE webhooks SET is_active = false WHERE id = $1", hook)
        await running.run_once()
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"]) == ("failed", 0)
    assert row["last_error"] == "the registration is no longer active"
    assert receiver.at("/deleted") == []


# ------------------------------------------------------------------------------------ the loop


async def test_stopping_lets_deliveries_in_flight_finish_within_the_grace_period(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    hook = await tables.webhook(account, receiver.url("/grace"))
    answer = asyncio.Event()
    receiver.plan["/grace"] = [Reply(200, hold=answer)]
    outbox_id = await tables.emit(account, transfer(10), EventType.CASH_OUT)
    stop = asyncio.Event()
    async with notifier(database, clock, grace_period=30.0, poll_interval=0.02) as running:
        loop = asyncio.create_task(running.run(stop))
        await receiver.wait_for(1, "/grace")
        stop.set()
        await asyncio.sleep(0.1)
        assert not loop.done()  # waiting for the delivery in flight
        answer.set()
        await loop
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"]) == ("delivered", 1)


async def test_an_event_committed_while_the_notifier_waits_goes_out_at_once_not_at_the_next_poll(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    # The outbox trigger notifies pix_outbox at COMMIT; the listening notifier fans out then.
    # A poll interval of a minute: only the notification can bring the event within 5 s.
    account = await tables.account()
    await tables.secret(account, new_secret())
    hook = await tables.webhook(account, receiver.url("/at-once"))
    stop = asyncio.Event()
    async with notifier(database, clock, poll_interval=60.0) as running:
        loop = asyncio.create_task(run_listening(running, database, stop))
        await asyncio.sleep(0.5)  # started, idle: its first fan-out found nothing
        assert receiver.at("/at-once") == []
        outbox_id = await tables.emit(account, transfer(11), EventType.CASH_OUT)
        await receiver.wait_for(1, "/at-once", within=5)
        stop.set()
        await loop
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"]) == ("delivered", 1)


async def test_deliveries_past_the_grace_period_are_given_back(
    database: Database, tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    account = await tables.account()
    await tables.secret(account, new_secret())
    hook = await tables.webhook(account, receiver.url("/past-grace"))
    never = asyncio.Event()
    receiver.plan["/past-grace"] = [Reply(200, hold=never)]
    outbox_id = await tables.emit(account, transfer(11), EventType.CASH_OUT)
    stop = asyncio.Event()
    try:
        async with notifier(database, clock, grace_period=0.1, poll_interval=0.02) as running:
            loop = asyncio.create_task(running.run(stop))
            await receiver.wait_for(1, "/past-grace")
            stop.set()
            await loop
    finally:
        never.set()
    row = await tables.delivery(outbox_id, hook)
    assert (row["status"], row["attempts"]) == ("pending", 0)
    assert row["next_attempt_at"] <= clock.now()  # claimable again at once, not after the lease


# ------------------------------------------------------------------------------------ the process


@pytest.fixture
async def own_database(database_server: str, tmp_path: Path) -> AsyncIterator[str]:
    """A database of this test's own, migrated by ``pixweb migrate``: the notifier process
    works on it alone."""
    async with scratch_database(database_server, "pixnotify") as url:
        yield await migrated_by_command(url, tmp_path)


async def start_notifier(url: str, data_dir: Path, log: Path) -> asyncio.subprocess.Process:
    with log.open("ab") as out:
        return await asyncio.create_subprocess_exec(
            BIN / "pixnotify",
            "run",
            "--concurrency=4",
            "--batch-size=5",
            "--poll-interval=0.05",
            "--timeout=2",
            "--lease=5",
            "--grace-period=5",
            env=process_env(url, data_dir),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.mark.slow
async def test_a_killed_notifier_process_loses_nothing(
    own_database: str, receiver: Receiver, tmp_path: Path
) -> None:
    conn = await asyncpg.connect(own_database)
    log = tmp_path / "notifier.log"
    try:
        account = await conn.fetchval(
            """INSERT INTO accounts (ispb, branch, number, name, document, city)
               VALUES ('99999999', '0001', '00000001', 'Kill Test', '12345678909', 'RECIFE') RETURNING id"""
        )
        await conn.execute("INSERT INTO balances (account_id) VALUES ($1)", account)
        secret = new_secret()
        await Tables(conn).secret(account, secret)
        hooks = [await Tables(conn).webhook(account, receiver.url(f"/kill/{n}")) for n in range(2)]
        slow = asyncio.Event()  # every answer waits a little, so that the kill finds requests in flight
        for n in range(2):
            receiver.plan[f"/kill/{n}"] = [Reply(200, hold=slow)]
        events = [await Tables(conn).emit(account, transfer(n), EventType.CASH_OUT) for n in range(40)]
        expected = {message_id(outbox_id, hook) for outbox_id in events for hook in hooks}

        async def trickle() -> None:
            while True:
                await asyncio.sleep(0.02)
                slow.set()
                slow.clear()

        trickling = asyncio.create_task(trickle())
        first = await start_notifier(own_database, tmp_path, log)
        await receiver.wait_for(12)
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
        pending = "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'"
        undispatched = "SELECT count(*) FROM outbox WHERE dispatched_at IS NULL"
        assert await conn.fetchval(pending) + await conn.fetchval(undispatched) > 0  # killed mid-way

        second = await start_notifier(own_database, tmp_path, log)
        async with asyncio.timeout(60):
            while await conn.fetchval(pending) or await conn.fetchval(undispatched):  # noqa: ASYNC110 - polls the database
                await asyncio.sleep(0.1)
        assert await stop_process(second, "pixnotify run") == 0, log.read_text()
        trickling.cancel()

        rows = await conn.fetch("SELECT status, message_id FROM webhook_deliveries")
        assert {r["message_id"] for r in rows} == expected
        assert {r["status"] for r in rows} == {"delivered"}
        by_id: dict[str, list[Received]] = {}
        for got in receiver.received:
            by_id.setdefault(got.webhook_id, []).append(got)
        assert set(by_id) == expected  # every event delivered to every URL
        for copies in by_id.values():  # duplicates only as the same message: same id, same bytes
            assert len({copy.body for copy in copies}) == 1
            for copy in copies:
                copy.verify(secret)

        status = await asyncio.create_subprocess_exec(
            BIN / "pixnotify", "status", env=process_env(own_database, tmp_path), stdout=subprocess.PIPE
        )
        out, _ = await status.communicate()
        assert status.returncode == 0
        report = json.loads(out)
        assert report["undispatchedEvents"] == 0
        assert report["pendingDeliveries"] == 0
        assert report["dueNow"] == 0
        assert report["failedDeliveries"] == 0
        assert report["oldestPendingAgeSeconds"] is None
        assert report["failingUrls"] == []
    finally:
        await conn.close()
