"""The notifier counts its attempts by result, logs each as structured fields, and serves its metrics."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import httpx
import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from pixcore.clock import ManualClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import EventType
from pixinfra.persistence.deliveries import PostgresDeliveryStore
from pixinfra.postgres.pool import Database
from pixinfra.settings import NotifierSettings
from pixnotify import Notifier
from pixnotify.metrics import DeliveryMetrics
from pixweb.observability import JsonFormatter
from tests.integration.notifier.test_notifier import BIN, Tables, fake_resolver, new_secret, transfer
from tests.integration.receiver import Receiver, Reply, running_receiver
from tests.support import free_port, migrated_by_command, process_env, scratch_database
from tests.support.processes import stop_process


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running


@pytest.fixture
async def own_database(database_server: str, tmp_path: Path) -> AsyncIterator[str]:
    """A migrated database for the notifier process alone."""
    async with scratch_database(database_server, "pixmetrics") as url:
        yield await migrated_by_command(url, tmp_path)


@pytest.fixture
async def quiet_tables(migrated_database: str, pg_uow: UnitOfWorkFactory) -> AsyncIterator[Tables]:
    """The tables, with what earlier tests left pending set aside: only this test's deliveries count."""
    conn = await asyncpg.connect(migrated_database)
    try:
        await conn.execute("UPDATE outbox SET dispatched_at = now() WHERE dispatched_at IS NULL")
        await conn.execute(
            """UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now()
               WHERE status = 'pending'"""
        )
        yield Tables(conn, pg_uow)
    finally:
        await conn.close()


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "pixnotify.worker":
            self.lines.append(self.format(record))


async def test_attempts_are_counted_by_result_and_logged_as_fields(
    database: Database, quiet_tables: Tables, receiver: Receiver, clock: ManualClock
) -> None:
    tables = quiet_tables
    account = await tables.account()
    secret = new_secret()
    await tables.secret(account, secret)
    flaky = await tables.webhook(account, receiver.url("/metrics/flaky"))
    await tables.webhook(account, receiver.url("/metrics/gone"))
    receiver.plan["/metrics/flaky"] = [Reply(500), Reply(200)]
    receiver.plan["/metrics/gone"] = [Reply(410)]
    await tables.emit(account, transfer(7), EventType.CASH_OUT)
    registry = CollectorRegistry()
    metrics = DeliveryMetrics.of(registry)
    config = NotifierSettings(timeout=5.0, lease=30.0)
    lines, logger = Lines(), logging.getLogger("pixnotify.worker")
    logger.addHandler(lines)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        async with Notifier(
            PostgresDeliveryStore(database),
            config,
            allow_private=True,
            clock=clock,
            resolver=fake_resolver,
            metrics=metrics,
        ) as notifier:
            await notifier.run_once()
            clock.advance(6)
            await notifier.run_once()
    finally:
        logger.removeHandler(lines)
        logger.setLevel(level)

    def count(result: str) -> float | None:
        return registry.get_sample_value("pix_webhook_delivery_attempts_total", {"result": result})

    assert (count("retry"), count("gone"), count("delivered")) == (1.0, 1.0, 1.0)
    assert (count("failed"), count("inactive"), count("lease_lost"), count("error")) == (0.0, 0.0, 0.0, 0.0)
    attempts = [json.loads(line) for line in lines.lines]
    assert sorted(a["result"] for a in attempts) == ["delivered", "failed", "pending"]
    delivered = next(a for a in attempts if a["result"] == "delivered")
    assert delivered["level"] == "INFO"
    assert delivered["webhook"] == flaky
    assert delivered["statusCode"] == 200
    assert delivered["attempt"] == 2
    assert delivered["message"] == "webhook attempt: delivered"
    assert secret not in "\n".join(lines.lines)
    assert "/metrics/flaky" not in "\n".join(lines.lines)  # URL paths are never logged


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime.now(UTC))  # the real time, so that signatures verify


@pytest.mark.slow
async def test_pixnotify_run_serves_its_metrics_when_asked(own_database: str, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "notifier.log"
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            BIN / "pixnotify",
            "run",
            f"--metrics-port={port}",
            env=process_env(own_database, tmp_path) | {"PIX_LOG_LEVEL": "INFO"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        text = ""
        async with httpx.AsyncClient() as http:
            for _ in range(300):  # bounds a start-up that never ends
                try:
                    response = await http.get(f"http://127.0.0.1:{port}/metrics")
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
                    continue
                text = response.text
                break
        names = {family.name for family in text_string_to_metric_families(text)}
        assert "pix_webhook_delivery_attempts" in names, log.read_text()
        assert "process_cpu_seconds" in names
    finally:
        assert await stop_process(process, "pixnotify run") == 0, log.read_text()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert any(line["logger"] == "pixnotify" and "metrics at" in line["message"] for line in lines)
    assert any(
        line["logger"] == "pixnotify.worker" and line["message"] == "notifier stopped" for line in lines
    )
