"""Delivery rules (pixcore.webhooks.delivery) and one attempt to a fake receiver (pixnotify.sender,
pixnotify.testing).

Signatures are checked with the reference verifier, the ``standardwebhooks`` package, on the
exact bytes and headers of the request that left the client.
"""

from __future__ import annotations

import asyncio
import base64
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from standardwebhooks import Webhook, WebhookVerificationError

from pixcore.webhooks.delivery import (
    JITTER,
    MAX_ATTEMPTS,
    MAX_RETRY_AFTER,
    MIN_RETRY_AFTER,
    encode_body,
    judge,
    message_id,
    parse_retry_after,
    retry_delay,
    secret_key,
    sign,
)
from pixcore.webhooks.rules import RETRY_SCHEDULE, DeliveryStatus
from pixnotify.client import ConnectFailed, TimedOut
from pixnotify.sender import CONNECT_TRIES, build_headers, post
from pixnotify.testing import FakeReceiver, Handler, Reply, Request
from pixnotify.transport import AddressRefused, GuardedBackend

SECRET = "whsec_" + base64.b64encode(b"k" * 24).decode()
OLD_SECRET = "whsec_" + base64.b64encode(b"o" * 32).decode()
EVENT = {
    "data": {"id": 7, "txId": None, "status": "LIQUIDATED", "payment": {"amount": "1.50", "currency": "BRL"}},
    "type": "TRANSFER",
}
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def seeded(seed: int) -> random.Random:
    return random.Random(seed)  # noqa: S311 - jitter, not secrets


def recorder(status: int, headers: dict[str, str] | None = None) -> tuple[list[Request], Handler]:
    """A receiver answering ``status`` (with ``headers``), keeping the requests."""
    seen: list[Request] = []

    def handle(request: Request) -> Reply:
        seen.append(request)
        return Reply(status, b"ok", headers or {})

    return seen, handle


async def send(
    transport: Handler,
    *,
    secrets: tuple[str, ...] = (SECRET,),
    custom: dict[str, str] | None = None,
    deadline: float = 5.0,
    timestamp: int | None = None,
) -> tuple[bytes, list[tuple[str, str]], object]:
    body = encode_body(EVENT)
    headers = build_headers(
        msg_id=message_id(12, 3),
        timestamp=timestamp if timestamp is not None else int(datetime.now(UTC).timestamp()),
        body=body,
        secrets=secrets,
        custom=custom or {},
    )
    async with FakeReceiver(transport) as client:
        outcome = await post(client, "https://hooks.example/pix", body, headers, deadline=deadline)
    return body, headers, outcome


# ------------------------------------------------------------------------------------ signing


async def test_the_reference_verifier_accepts_what_was_sent() -> None:
    seen, transport = recorder(204)
    body, _, outcome = await send(transport)
    assert outcome.status_code == 204  # type: ignore[attr-defined]
    (request,) = seen
    assert request.content == body
    assert request.headers["webhook-id"] == "msg_12_3"
    assert request.headers["content-type"] == "application/json"
    assert Webhook(SECRET).verify(request.content, dict(request.headers)) == EVENT
    with pytest.raises(WebhookVerificationError):
        Webhook(OLD_SECRET).verify(request.content, dict(request.headers))


async def test_during_a_rotation_both_signatures_are_sent_and_each_verifies() -> None:
    seen, transport = recorder(200)
    await send(transport, secrets=(SECRET, OLD_SECRET))
    (request,) = seen
    signatures = request.headers["webhook-signature"].split(" ")
    assert len(signatures) == 2
    assert all(s.startswith("v1,") for s in signatures)
    Webhook(SECRET).verify(request.content, dict(request.headers))
    Webhook(OLD_SECRET).verify(request.content, dict(request.headers))
    unknown = "whsec_" + base64.b64encode(b"x" * 24).decode()
    with pytest.raises(WebhookVerificationError):
        Webhook(unknown).verify(request.content, dict(request.headers))


async def test_a_changed_byte_fails_verification() -> None:
    seen, transport = recorder(200)
    await send(transport)
    (request,) = seen
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(request.content.replace(b"1.50", b"1.51"), dict(request.headers))


def test_signature_is_standard_webhooks_sign() -> None:
    body = encode_body(EVENT)
    reference = Webhook(SECRET).sign("msg_1_2", datetime.fromtimestamp(1_700_000_000, UTC), body.decode())
    assert sign(SECRET, "msg_1_2", 1_700_000_000, body) == reference


def test_the_body_is_compact_json_type_first_and_the_same_every_time() -> None:
    body = encode_body(EVENT)
    assert body.startswith(b'{"type":"TRANSFER","data":{')
    assert b" " not in body
    assert encode_body(dict(reversed(EVENT.items()))) == body


@pytest.mark.parametrize("secret", ["sk_abc", "whsec_***", "whsec_"])
def test_malformed_secrets_are_refused(secret: str) -> None:
    with pytest.raises(ValueError, match="secret"):
        secret_key(secret)


async def test_custom_headers_come_after_ours_and_cannot_replace_them() -> None:
    seen, transport = recorder(200)
    _, headers, _ = await send(transport, custom={"X-Tenant": "acme", "Webhook-Id": "forged"})
    assert [name for name, _ in headers] == [
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "content-type",
        "X-Tenant",
    ]
    (request,) = seen
    assert request.values("webhook-id") == ["msg_12_3"]
    assert request.headers["x-tenant"] == "acme"


# ------------------------------------------------------------------------------------ one attempt


async def test_a_redirect_is_not_followed_and_counts_as_a_failure() -> None:
    seen, transport = recorder(302, {"location": "https://elsewhere.example/"})
    _, _, outcome = await send(transport)
    assert len(seen) == 1
    assert outcome.status_code == 302  # type: ignore[attr-defined]
    verdict = judge(attempts=1, status_code=302, now=NOW, rng=seeded(1))
    assert verdict.status is DeliveryStatus.PENDING
    assert verdict.reason == "HTTP 302"


async def test_connection_errors_are_retried_briefly_inside_one_attempt() -> None:
    calls = []

    def refuse(request: Request) -> Reply:
        calls.append(request)
        raise ConnectFailed("connection refused")

    _, _, outcome = await send(refuse)
    assert len(calls) == CONNECT_TRIES
    assert outcome.status_code is None  # type: ignore[attr-defined]
    assert "ConnectError" in outcome.error  # type: ignore[attr-defined]


async def test_a_connection_error_then_success_is_one_successful_attempt() -> None:
    calls = []

    def flaky(request: Request) -> Reply:
        calls.append(request)
        if len(calls) == 1:
            raise ConnectFailed("connection refused")
        return Reply(200, b"")

    _, _, outcome = await send(flaky)
    assert len(calls) == 2
    assert outcome.status_code == 200  # type: ignore[attr-defined]


async def test_a_read_timeout_is_not_retried_inside_the_attempt() -> None:
    calls = []

    def slow(request: Request) -> Reply:
        calls.append(request)
        raise TimedOut("read", "read timed out")

    _, _, outcome = await send(slow)
    assert len(calls) == 1
    assert outcome.error == "timed out after 5 s waiting for the answer of hooks.example:443"  # type: ignore[attr-defined]


async def test_the_attempt_deadline_covers_everything() -> None:
    release = asyncio.Event()

    async def hang(request: Request) -> Reply:
        await release.wait()
        return Reply(200)

    _, _, outcome = await send(hang, deadline=0.05)
    assert outcome.status_code is None  # type: ignore[attr-defined]
    assert outcome.error == "timed out after 0.05 s"  # type: ignore[attr-defined]


async def test_retry_after_is_passed_on() -> None:
    _, transport = recorder(429, {"retry-after": "30"})
    _, _, outcome = await send(transport)
    assert outcome.retry_after == "30"  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------ schedule


@given(attempts=st.integers(min_value=1, max_value=MAX_ATTEMPTS - 1), seed=st.integers())
def test_the_delay_is_the_schedule_step_within_the_jitter(attempts: int, seed: int) -> None:
    delay = retry_delay(attempts, seeded(seed))
    step = RETRY_SCHEDULE[attempts]
    assert delay is not None
    assert step * (1 - JITTER) <= delay <= step * (1 + JITTER)


def test_the_jitter_spreads_retries() -> None:
    rng = seeded(7)
    delays = {retry_delay(2, rng) for _ in range(20)}
    assert len(delays) > 1


def test_after_the_last_attempt_there_is_no_delay() -> None:
    assert MAX_ATTEMPTS == 8
    assert retry_delay(MAX_ATTEMPTS, seeded(1)) is None
    with pytest.raises(ValueError, match="first attempt"):
        retry_delay(0, seeded(1))


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("120", timedelta(seconds=120)),
        (" 5 ", timedelta(seconds=5)),
        ("0", MIN_RETRY_AFTER),
        ("99999999999", MAX_RETRY_AFTER),
        (format_datetime(NOW + timedelta(minutes=3), usegmt=True), timedelta(minutes=3)),
        ("Sun, 22 Nov 2026 12:00:30 GMT", timedelta(seconds=30)),
        (format_datetime(NOW - timedelta(hours=1), usegmt=True), MIN_RETRY_AFTER),
        (format_datetime(NOW + timedelta(days=9), usegmt=True), MAX_RETRY_AFTER),
        ("soon", None),
        ("-5", None),
        ("1.5", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after(header: str | None, expected: timedelta | None) -> None:
    assert parse_retry_after(header, NOW) == expected


# ------------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize("code", [200, 201, 202, 204, 299])
def test_any_2xx_is_delivered(code: int) -> None:
    verdict = judge(attempts=3, status_code=code, now=NOW, rng=seeded(1))
    assert verdict.status is DeliveryStatus.DELIVERED
    assert verdict.next_attempt_at is None
    assert not verdict.deactivate


@pytest.mark.parametrize("code", [100, 199, 300, 301, 302, 304, 307, 308, 400, 404, 409, 500, 502, 504])
def test_other_codes_retry_on_the_schedule(code: int) -> None:
    verdict = judge(attempts=1, status_code=code, now=NOW, rng=seeded(1))
    assert verdict.status is DeliveryStatus.PENDING
    assert verdict.next_attempt_at is not None
    assert NOW + timedelta(seconds=4.5) <= verdict.next_attempt_at <= NOW + timedelta(seconds=5.5)
    assert not verdict.deactivate


def test_gone_fails_at_once_and_deactivates() -> None:
    verdict = judge(attempts=1, status_code=410, now=NOW, rng=seeded(1))
    assert verdict.status is DeliveryStatus.FAILED
    assert verdict.next_attempt_at is None
    assert verdict.deactivate


@pytest.mark.parametrize("code", [429, 503])
def test_429_and_503_retry_when_retry_after_says(code: int) -> None:
    verdict = judge(attempts=1, status_code=code, now=NOW, rng=seeded(1), retry_after="42")
    assert verdict.status is DeliveryStatus.PENDING
    assert verdict.next_attempt_at == NOW + timedelta(seconds=42)


@pytest.mark.parametrize(("code", "header"), [(429, None), (503, "whenever"), (500, "42")])
def test_without_a_usable_retry_after_the_schedule_rules(code: int, header: str | None) -> None:
    verdict = judge(attempts=2, status_code=code, now=NOW, rng=seeded(1), retry_after=header)
    assert verdict.next_attempt_at is not None
    assert NOW + timedelta(minutes=4.5) <= verdict.next_attempt_at <= NOW + timedelta(minutes=5.5)


def test_no_response_retries_with_the_error_as_reason() -> None:
    verdict = judge(attempts=1, status_code=None, now=NOW, rng=seeded(1), error="timed out after 15 s")
    assert verdict.status is DeliveryStatus.PENDING
    assert verdict.reason == "timed out after 15 s"


@pytest.mark.parametrize("code", [None, 500, 429, 302])
def test_the_last_attempt_fails_for_good(code: int | None) -> None:
    verdict = judge(attempts=MAX_ATTEMPTS, status_code=code, now=NOW, rng=seeded(1), retry_after="5")
    assert verdict.status is DeliveryStatus.FAILED
    assert verdict.next_attempt_at is None
    assert not verdict.deactivate


# ------------------------------------------------------------------------------------ addresses


def resolving(*addresses: str) -> GuardedBackend:
    async def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return GuardedBackend(resolve, allow_private=False)


async def test_public_addresses_pass_the_check() -> None:
    assert await resolving("93.184.216.34", "2606:2800:220:1::1").addresses("hooks.example", 443) == [
        "93.184.216.34",
        "2606:2800:220:1::1",
    ]


@pytest.mark.parametrize(
    "addresses",
    [("127.0.0.1",), ("93.184.216.34", "10.0.0.7"), ("169.254.169.254",), ("::1",), ("::ffff:127.0.0.1",)],
)
async def test_any_non_public_address_refuses_the_host(addresses: tuple[str, ...]) -> None:
    refusal = r"hooks\.example resolves to \S+, which is [a-z-]+ \(PIX_WEBHOOK_ALLOW_PRIVATE is off\)"
    with pytest.raises(AddressRefused, match=refusal):
        await resolving(*addresses).addresses("hooks.example", 443)


async def test_an_ip_literal_is_checked_without_resolving() -> None:
    with pytest.raises(AddressRefused):
        await resolving("93.184.216.34").addresses("192.168.1.1", 443)


async def test_private_addresses_pass_when_allowed() -> None:
    backend = resolving("127.0.0.1")
    backend.allow_private = True
    assert await backend.addresses("hooks.example", 443) == ["127.0.0.1"]


async def test_a_name_without_addresses_is_a_connection_error() -> None:
    with pytest.raises(ConnectFailed, match=r"hooks\.example resolves to no address"):
        await resolving().addresses("hooks.example", 443)


async def test_a_resolver_out_of_time_cannot_resolve() -> None:
    async def silent(host: str, port: int) -> list[str]:
        await asyncio.sleep(30)
        return ["93.184.216.34"]

    with pytest.raises(ConnectFailed, match=r"^cannot resolve hooks\.example: $"):
        await GuardedBackend(silent, allow_private=False).addresses("hooks.example", 443, 0.05)
