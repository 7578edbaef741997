"""Request ids, access logs, metrics and health endpoints, through the real app."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from litestar import get
from prometheus_client.parser import text_string_to_metric_families

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.database import with_database
from pixinfra.postgres.pool import Database
from pixweb.app import create_app
from pixweb.observability import JsonFormatter, ReadinessProbe
from tests.e2e.conftest import Api, running_api
from tests.support import add_external_key, bearer, fetch_rows, fund, new_client

HEX_ID = re.compile(r"[0-9a-f]{32}")


class JsonLines(logging.Handler):
    """Formats each record as it is emitted (inside the request, as the real handler does)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    def parsed(self, logger: str) -> list[dict[str, Any]]:
        return [line for line in map(json.loads, self.lines) if line["logger"] == logger]


@pytest.fixture
def log_lines() -> Iterator[JsonLines]:
    handler, root = JsonLines(), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def metric_samples(text: str, name: str) -> list[tuple[dict[str, str], float]]:
    return [
        (sample.labels, sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    ]


def metric_value(text: str, name: str, **labels: str) -> float | None:
    for sample_labels, value in metric_samples(text, name):
        if all(sample_labels.get(k) == v for k, v in labels.items()):
            return value
    return None


# -- request ids ----------------------------------------------------------------------------


async def test_a_request_id_is_generated_for_each_request(api: Api) -> None:
    first = await api.client.get("/health/live")
    second = await api.client.get("/health/live")
    assert HEX_ID.fullmatch(first.headers["x-request-id"])
    assert HEX_ID.fullmatch(second.headers["x-request-id"])
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/health/live", 200),
        ("GET", "/balance", 401),  # no token
        ("GET", "/no/such/route", 404),
        ("DELETE", "/balance", 405),
        ("POST", "/api/auth/token", 400),  # no body
    ],
)
async def test_the_clients_request_id_is_echoed_on_every_response(
    api: Api, method: str, path: str, status: int
) -> None:
    request_id = f"client-{uuid.uuid4()}"
    response = await api.client.request(method, path, headers={"X-Request-Id": request_id})
    assert response.status_code == status
    assert response.headers.get_list("x-request-id") == [request_id]
    if status >= 400:
        assert {"statusCode", "message", "error"} <= set(response.json())


async def test_an_unusable_request_id_is_replaced(api: Api) -> None:
    for unusable in ("x" * 129, "two words", 'quote"and\\slash\x7f'):
        response = await api.client.get("/health/live", headers={"X-Request-Id": unusable})
        assert HEX_ID.fullmatch(response.headers["x-request-id"]), unusable


# -- the access log -------------------------------------------------------------------------


async def test_one_json_access_line_per_request_without_secrets(
    pg_uow: UnitOfWorkFactory, api: Api, log_lines: JsonLines
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    token = auth["Authorization"].removeprefix("Bearer ")
    request_id = f"trace-{uuid.uuid4().hex[:8]}"
    headers = auth | {"X-Request-Id": request_id, "X-SSL-Client-Cert": client.cert_header}
    response = await api.client.get("/balance", headers=headers)
    assert response.status_code == 200
    missing = await api.client.get(f"/cob/{uuid.uuid4().hex}", headers=auth)
    assert missing.status_code == 404

    access = log_lines.parsed("pixweb.access")
    [line] = [entry for entry in access if entry.get("request_id") == request_id]
    assert line["level"] == "INFO"
    assert line["method"] == "GET"
    assert line["route"] == "/balance"
    assert line["status"] == 200
    assert line["account_id"] == client.account_id
    assert isinstance(line["duration_ms"], int | float)
    assert line["duration_ms"] >= 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["timestamp"])
    [cob] = [entry for entry in access if entry.get("request_id") == missing.headers["x-request-id"]]
    assert cob["route"] == "/cob/{txid}"  # the template, never the raw path
    assert cob["status"] == 404
    [token_line] = [entry for entry in access if entry["route"] == "/api/auth/token"]
    assert token_line["status"] == 201
    assert token_line["account_id"] is None  # not authenticated by a bearer token

    everything = "\n".join(log_lines.lines)
    for secret in (token, client.opened.client_secret, client.cert_header, "Bearer"):
        assert secret not in everything


async def test_records_logged_inside_a_request_carry_its_id(
    bare_app: tuple[Any, httpx.AsyncClient], log_lines: JsonLines
) -> None:
    app, http = bare_app
    inner = logging.getLogger("pixweb.test.inner")

    @get("/health/test-log", operation_id="testLog", sync_to_thread=False)
    def logging_handler() -> dict[str, str]:
        inner.warning("inside", extra={"client_secret": "do-not-log"})
        return {}

    app.register(logging_handler)
    request_id = f"inner-{uuid.uuid4().hex[:8]}"
    assert (await http.get("/health/test-log", headers={"X-Request-Id": request_id})).status_code == 200
    inner.warning("outside any request")

    inside, outside = log_lines.parsed("pixweb.test.inner")
    assert inside["request_id"] == request_id
    assert inside["client_secret"] == "[redacted]"
    assert "request_id" not in outside
    assert "do-not-log" not in "\n".join(log_lines.lines)


# -- metrics --------------------------------------------------------------------------------


async def test_metrics_expose_request_latency_by_route_template(
    pg_uow: UnitOfWorkFactory, own_api: Api
) -> None:
    api = own_api  # the app's own counters
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    txid = uuid.uuid4().hex
    assert (await api.client.get("/balance", headers=auth)).status_code == 200
    assert (await api.client.get(f"/cob/{txid}", headers=auth)).status_code == 404
    assert (await api.client.get(f"/no/such/{txid}")).status_code == 404

    response = await api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    name = "pix_http_request_duration_seconds_count"
    assert metric_value(text, name, method="GET", route="/balance", status="2xx") == 1.0
    assert metric_value(text, name, method="GET", route="/cob/{txid}", status="4xx") == 1.0
    assert metric_value(text, name, method="GET", route="unmatched", status="4xx") == 1.0
    assert metric_value(text, name, method="POST", route="/api/auth/token", status="2xx") == 1.0
    assert txid not in text  # raw paths never become labels
    buckets = metric_samples(text, "pix_http_request_duration_seconds_bucket")
    assert any(labels.get("le") == "+Inf" and labels["route"] == "/balance" for labels, _ in buckets)


async def test_metrics_show_the_outbox_and_delivery_queue(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    auth = await bearer(api.client, client)
    await fund(api.client, client, auth, "1.00")  # a RECEIVE event, undispatched (no notifier runs)
    api.clock.advance(3600)
    before = api.clock.now()
    text = (await api.client.get("/metrics")).text
    after = api.clock.now()

    [row] = await fetch_rows(
        migrated_database,
        """
        SELECT (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL) AS undispatched,
            (SELECT created_at FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT 1) AS oldest,
            (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending
        """,
    )
    assert row["undispatched"] >= 1
    assert metric_value(text, "pix_outbox_undispatched_events") == row["undispatched"]
    assert metric_value(text, "pix_webhook_deliveries_pending") == row["pending"]
    age = metric_value(text, "pix_outbox_oldest_undispatched_age_seconds")
    assert age is not None
    low = max(0.0, (before - row["oldest"]).total_seconds())
    high = max(0.0, (after - row["oldest"]).total_seconds())
    assert low <= age <= high
    assert metric_value(text, "pix_webhook_deliveries_due") is not None
    assert metric_value(text, "pix_webhook_delivery_lag_seconds") is not None


async def test_metrics_count_transfers_by_outcome_and_delivery_attempts(
    pg_uow: UnitOfWorkFactory, api: Api, tmp_path: Path, migrated_database: str
) -> None:
    client = await new_client(pg_uow)
    settings = replace(api.settings, run_workers=True, data_dir=tmp_path / "workers")
    async with running_api(settings, SystemClock()) as live:
        auth = await bearer(live.client, client)
        await fund(live.client, client, auth, "5.00")
        for behavior in ("settle", "reject"):
            key, document = await add_external_key(live.client, auth, behavior=behavior)
            body = {"pixKey": key, "payment": {"amount": 2}, "priority": "HIGH", "creditorDocument": document}
            response = await live.client.post(
                "/dict/pix", json=body, headers=auth | {"x-idempotency-key": str(uuid.uuid4())}
            )
            assert response.status_code == 201
        text = ""
        for _ in range(400):  # the loop settles within a round or two; this bounds a hang
            text = (await live.client.get("/metrics")).text
            completed = metric_value(text, "pix_transfers_finished_total", outcome="completed")
            failed = metric_value(text, "pix_transfers_finished_total", outcome="error", error_code="AC06")
            balance = (await live.client.get("/balance", headers=auth)).json()
            if completed and failed and balance["blockedBalance"] == 0:
                break
            await asyncio.sleep(0.05)
        assert balance == balance | {"blockedBalance": 0, "netBalance": 3}  # the rejected 2.00 came back
        assert (
            metric_value(text, "pix_transfers_finished_total", outcome="completed", error_code="") or 0
        ) >= 1
        assert (
            metric_value(text, "pix_transfers_finished_total", outcome="error", error_code="AC06") or 0
        ) >= 1
        # The delivery loop runs in this process and counts into the same registry.
        assert any(
            family.name == "pix_webhook_delivery_attempts" for family in text_string_to_metric_families(text)
        )


# -- health ---------------------------------------------------------------------------------


async def test_liveness_and_readiness_answer_without_a_token(api: Api) -> None:
    live = await api.client.get("/health/live")
    assert live.status_code == 200
    assert live.json() == {"status": "ok"}
    ready = await api.client.get("/health/ready")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok"}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
async def bare_app(api: Api) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """An app of its own, with no lifespan: the health routes need none."""
    app = create_app(api.settings, clock=api.clock)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
        yield app, http


ServeWith = Callable[[ReadinessProbe], AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def probed_by(api: Api) -> ServeWith:
    """An app of its own, with no lifespan, whose ``/health/ready`` asks the probe given."""

    @asynccontextmanager
    async def serve(readiness: ReadinessProbe) -> AsyncIterator[httpx.AsyncClient]:
        app = create_app(api.settings, clock=api.clock, overrides={"readiness": readiness})
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            yield http

    return serve


def assert_not_ready(response: httpx.Response, message: str) -> None:
    assert response.status_code == 503
    assert response.json() == {"statusCode": 503, "message": message, "error": "Service Unavailable"}
    assert response.headers["retry-after"] == "1"
    assert HEX_ID.fullmatch(response.headers["x-request-id"])


async def test_readiness_is_503_when_the_database_is_unreachable(probed_by: ServeWith) -> None:
    unreachable = Database()
    await unreachable.open(f"postgresql://pix@127.0.0.1:{_closed_port()}/pix", min_size=0)
    try:
        async with probed_by(ReadinessProbe(unreachable, timeout=5.0)) as http:
            assert_not_ready(await http.get("/health/ready"), "The database is unreachable.")
            assert (await http.get("/health/live")).status_code == 200  # alive all the same
    finally:
        await unreachable.close()


async def test_readiness_is_503_without_a_pool(probed_by: ServeWith) -> None:
    async with probed_by(ReadinessProbe(Database())) as http:
        assert_not_ready(await http.get("/health/ready"), "The database pool is not open.")


async def test_readiness_is_503_until_migrations_are_applied(
    probed_by: ServeWith, database_server: str
) -> None:
    name = f"pixtest_unmigrated_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        unmigrated = Database()
        await unmigrated.open(with_database(database_server, name), min_size=0)
        pool = unmigrated.pool
        try:
            async with probed_by(ReadinessProbe(unmigrated)) as http:
                assert_not_ready(await http.get("/health/ready"), "The database has no migrations applied.")
                async with pool.acquire() as conn:
                    await conn.execute("CREATE TABLE migration (name text, app_name text)")
                    await conn.execute(
                        "INSERT INTO migration VALUES ('2026-11-21T23:40:00:000000', 'pixweb')"
                    )
                response = await http.get("/health/ready")
            assert response.status_code == 503
            assert re.fullmatch(r"Migrations are not all applied \(1 of \d+\)\.", response.json()["message"])
        finally:
            await unmigrated.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_operations_routes_are_documented_and_public(api: Api) -> None:
    document = (await api.client.get("/schema/openapi.json")).json()
    expected = {
        "/health/live": "getLiveness",
        "/health/ready": "getReadiness",
        "/metrics": "getMetrics",
    }
    for path, operation_id in expected.items():
        operation = document["paths"][path]["get"]
        assert operation["operationId"] == operation_id
        assert operation["security"] == []  # public: no token (OpenAPI 3.1)
    assert "503" in document["paths"]["/health/ready"]["get"]["responses"]
    assert "text/plain" in next(iter(document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]))
