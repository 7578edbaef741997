"""Webhook registration, secrets and deliveries on the fakes."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta

import pytest

from pixcore.clock import ManualClock, format_timestamp
from pixcore.errors import (
    AccountNotFound,
    DeliveryNotFound,
    ValidationError,
    WebhookHostRefused,
    WebhookInactive,
    WebhookLimitReached,
    WebhookNotFound,
)
from pixcore.testing import InMemoryStore, InMemoryWebhooks, IntegrityError, PlainHasher, StaticResolver
from pixcore.webhooks.ports import Ping, ProbeResult
from pixcore.webhooks.rules import (
    Delivery,
    DeliveryAttempt,
    DeliveryDetail,
    DeliveryStatus,
    EventType,
    NewWebhook,
    Registration,
    Webhook,
    is_secret,
)
from pixcore.webhooks.webhook_service import (
    DEACTIVATED_BY_CLIENT,
    Registered,
    deactivate_webhook,
    delivery_filter,
    get_delivery_detail,
    get_webhook_secret,
    list_deliveries,
    list_webhooks,
    register_webhook,
    replay_delivery,
    rotate_webhook_secret,
    send_test_event,
)
from pixinfra.event_payloads import ping_payload
from tests.unit.usecase_helpers import OTHER_CPF, open_test_account
from tests.unit.wire_rendering import wire_details, wire_raises

PUBLIC = StaticResolver(
    {
        "hooks.example.com": ["203.0.114.10"],
        "other.example.com": ["2606:4700::1111", "8.8.4.4"],
        "sneaky.example.com": ["127.0.0.1"],
        "mixed.example.com": ["8.8.8.8", "10.0.0.7"],
        "lan.example.com": ["192.168.1.20"],
    }
)


def body(url: str, event_type: str = "cash_in", headers: dict[str, str] | None = None) -> Registration:
    return Registration.parse(url=url, event_type=event_type, headers=list((headers or {}).items()))


async def register(
    store: InMemoryStore,
    clock: ManualClock,
    account_id: int,
    url: str,
    *,
    event_type: str = "cash_in",
    headers: dict[str, str] | None = None,
    allow_private: bool = False,
    resolver: StaticResolver = PUBLIC,
) -> Registered:
    return await register_webhook(
        store.unit_of_work,
        clock,
        resolver,
        account_id=account_id,
        registration=body(url, event_type, headers),
        allow_private=allow_private,
    )


@pytest.fixture
async def account_id(store: InMemoryStore, hasher: PlainHasher) -> int:
    return (await open_test_account(store, hasher)).account.id


@pytest.fixture
async def other_id(store: InMemoryStore, hasher: PlainHasher) -> int:
    return (await open_test_account(store, hasher, document=OTHER_CPF)).account.id


# -- registration ------------------------------------------------------------------------


async def test_register_stores_an_active_registration_and_creates_the_secret(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    registered = await register(
        store, clock, account_id, "https://hooks.example.com/pix", headers={"X-A": "1"}
    )
    assert registered.created
    webhook = registered.webhook
    assert (webhook.account_id, webhook.event_type, webhook.url) == (
        account_id,
        EventType.CASH_IN,
        "https://hooks.example.com/pix",
    )
    assert (webhook.version, webhook.is_active, dict(webhook.headers)) == (1, True, {"X-A": "1"})
    assert webhook.created_at == webhook.updated_at == clock.now()
    assert await list_webhooks(store.unit_of_work, account_id=account_id) == [webhook]
    assert is_secret(store.webhooks.secrets[account_id].secret)


async def test_the_secret_of_the_first_registration_is_kept(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    await register(store, clock, account_id, "https://hooks.example.com/a")
    first = store.webhooks.secrets[account_id]
    await register(store, clock, account_id, "https://hooks.example.com/b", event_type="cash_out")
    assert store.webhooks.secrets[account_id] == first
    assert await get_webhook_secret(store.unit_of_work, clock, account_id=account_id) == first


async def test_re_registering_updates_headers_and_version_only_of_that_url(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    a = (
        await register(store, clock, account_id, "https://hooks.example.com/a", headers={"X-A": "1"})
    ).webhook
    b = (
        await register(store, clock, account_id, "https://hooks.example.com/b", headers={"X-B": "1"})
    ).webhook
    same_url_other_type = (
        await register(store, clock, account_id, "https://hooks.example.com/a", event_type="cash_out")
    ).webhook
    clock.advance(60)
    again = await register(
        store, clock, account_id, "HTTPS://HOOKS.example.com:443/a", headers={"X-New": "2"}
    )
    assert not again.created
    assert again.webhook.id == a.id
    assert (again.webhook.version, dict(again.webhook.headers)) == (2, {"X-New": "2"})
    assert again.webhook.updated_at == clock.now() != again.webhook.created_at
    third = await register(store, clock, account_id, "https://hooks.example.com/a")
    assert (third.webhook.version, dict(third.webhook.headers)) == (3, {})
    listed = {w.id: w for w in await list_webhooks(store.unit_of_work, account_id=account_id)}
    assert listed[b.id] == b  # untouched
    assert listed[same_url_other_type.id] == same_url_other_type
    assert len(listed) == 3


async def test_at_most_three_active_urls_per_event_type(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    ids = [
        (await register(store, clock, account_id, f"https://hooks.example.com/{i}")).webhook.id
        for i in range(3)
    ]
    with pytest.raises(WebhookLimitReached, match="cash_in has 3 active URLs already"):
        await register(store, clock, account_id, "https://hooks.example.com/3")
    # Re-registering one of the three is no new URL; another event type has its own three.
    assert (await register(store, clock, account_id, "https://hooks.example.com/1")).webhook.version == 2
    await register(store, clock, account_id, "https://hooks.example.com/3", event_type="cash_out")
    # Deactivating one makes room.
    assert await deactivate_webhook(store.unit_of_work, clock, account_id=account_id, webhook_id=ids[0])
    assert (await register(store, clock, account_id, "https://hooks.example.com/3")).created
    active = [
        w for w in store.webhooks.webhooks.values() if w.is_active and w.event_type is EventType.CASH_IN
    ]
    assert len(active) == 3


async def test_another_accounts_urls_do_not_count(
    store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int
) -> None:
    for i in range(3):
        await register(store, clock, other_id, f"https://hooks.example.com/{i}")
    for i in range(3):
        assert (await register(store, clock, account_id, f"https://hooks.example.com/{i}")).created
    assert len(await list_webhooks(store.unit_of_work, account_id=account_id)) == 3


async def test_a_deactivated_url_registered_again_is_a_new_registration(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    first = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    await deactivate_webhook(store.unit_of_work, clock, account_id=account_id, webhook_id=first.id)
    second = await register(store, clock, account_id, "https://hooks.example.com/a")
    assert second.created
    assert second.webhook.id != first.id
    assert second.webhook.version == 1
    listed = await list_webhooks(store.unit_of_work, account_id=account_id)
    assert [(w.id, w.is_active) for w in listed] == [(first.id, False), (second.webhook.id, True)]


async def test_registration_of_an_unknown_account(store: InMemoryStore, clock: ManualClock) -> None:
    with pytest.raises(AccountNotFound):
        await register(store, clock, 404, "https://hooks.example.com/a")
    with pytest.raises(AccountNotFound):
        await list_webhooks(store.unit_of_work, account_id=404)
    assert store.webhooks.webhooks == {}


# -- addresses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/h",
        "https://10.1.2.3/h",
        "https://172.20.0.1/h",
        "https://192.168.0.10/h",
        "https://169.254.169.254/latest",
        "https://[::1]/h",
        "https://[fe80::1]/h",
        "https://[::ffff:127.0.0.1]/h",
        "https://0.0.0.0/h",
        "https://localhost/h",
        "https://api.localhost/h",
        "https://sneaky.example.com/h",  # a name resolving to 127.0.0.1
        "https://mixed.example.com/h",  # one of its addresses is private
        "https://lan.example.com/h",
        "https://nowhere.example.com/h",  # does not resolve
    ],
)
async def test_non_public_hosts_are_refused(
    store: InMemoryStore, clock: ManualClock, account_id: int, url: str
) -> None:
    with pytest.raises(WebhookHostRefused) as caught:
        await register(store, clock, account_id, url)
    assert wire_details(caught.value) == ["url: the host must resolve, and only to public addresses"]
    assert store.webhooks.webhooks == {}
    assert store.webhooks.secrets == {}


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1:8443/h",
        "https://10.1.2.3/h",
        "https://[::1]/h",
        "https://localhost/h",
        "https://sneaky.example.com/h",
        "https://lan.example.com/h",
    ],
)
async def test_the_operator_may_allow_private_hosts(
    store: InMemoryStore, clock: ManualClock, account_id: int, url: str
) -> None:
    resolver = StaticResolver({**PUBLIC.hosts, "localhost": ["127.0.0.1", "::1"]})
    registered = await register(store, clock, account_id, url, allow_private=True, resolver=resolver)
    assert registered.created


async def test_a_name_that_does_not_resolve_is_refused_even_when_private_hosts_are_allowed(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    with pytest.raises(WebhookHostRefused):
        await register(store, clock, account_id, "https://nowhere.example.com/h", allow_private=True)


async def test_names_are_resolved_with_their_port_and_ip_literals_are_not_resolved(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    resolver = StaticResolver(PUBLIC.hosts)
    await register(store, clock, account_id, "https://hooks.example.com:8443/a", resolver=resolver)
    await register(store, clock, account_id, "https://203.0.114.10/a", resolver=resolver)
    await register(store, clock, account_id, "https://[2606:4700::1111]/a", resolver=resolver)
    assert resolver.calls == [("hooks.example.com", 8443)]


# -- concurrency --------------------------------------------------------------------------------


async def test_a_registration_waits_for_another_holding_the_account(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    async with store.unit_of_work() as holder:
        assert await holder.webhooks.lock_account(account_id)
        await holder.webhooks.add(
            NewWebhook(account_id, EventType.CASH_IN, "https://hooks.example.com/held", {}, clock.now())
        )
        waiting = asyncio.create_task(register(store, clock, account_id, "https://hooks.example.com/held"))
        await asyncio.sleep(0.01)
        assert not waiting.done()  # blocked on the account's lock
        await holder.commit()
    registered = await waiting
    assert not registered.created  # it saw the committed row once the lock was free
    assert registered.webhook.version == 2


async def test_twenty_concurrent_registrations_keep_the_limit(
    store: InMemoryStore, clock: ManualClock, account_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    class YieldingResolver(StaticResolver):
        async def resolve(self, host: str, port: int) -> list[str]:
            await asyncio.sleep(0)  # let the others start
            return await super().resolve(host, port)

    resolver = YieldingResolver(PUBLIC.hosts)
    counting = InMemoryWebhooks.active

    async def active_then_yield(
        self: InMemoryWebhooks, account_id: int, event_type: EventType
    ) -> list[Webhook]:
        found = await counting(self, account_id, event_type)
        await asyncio.sleep(0)  # as a database round trip would: the others run between count and insert
        return found

    monkeypatch.setattr(InMemoryWebhooks, "active", active_then_yield)
    results = await asyncio.gather(
        *(
            register(store, clock, account_id, f"https://hooks.example.com/{i}", resolver=resolver)
            for i in range(20)
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(r, Registered) for r in results) == 3
    assert sum(isinstance(r, WebhookLimitReached) for r in results) == 17
    assert len(store.webhooks.webhooks) == 3


async def test_the_fake_refuses_two_active_rows_of_one_url_as_the_unique_index_does(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    new = NewWebhook(account_id, EventType.CASH_IN, "https://hooks.example.com/a", {}, clock.now())
    async with store.unit_of_work() as first, store.unit_of_work() as second:
        await first.webhooks.add(new)
        await second.webhooks.add(new)
        await first.commit()
        with pytest.raises(IntegrityError):
            await second.commit()
    assert len(store.webhooks.webhooks) == 1


# -- deactivation --------------------------------------------------------------------------------


async def test_deactivate(store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int) -> None:
    webhook = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    clock.advance(5)
    for stranger, webhook_id in ((other_id, webhook.id), (account_id, webhook.id + 1), (account_id, 2**63)):
        with pytest.raises(WebhookNotFound):
            await deactivate_webhook(store.unit_of_work, clock, account_id=stranger, webhook_id=webhook_id)
    assert store.webhooks.webhooks[webhook.id].is_active
    assert await deactivate_webhook(store.unit_of_work, clock, account_id=account_id, webhook_id=webhook.id)
    stored = store.webhooks.webhooks[webhook.id]
    assert (stored.is_active, stored.deactivated_at, stored.deactivation_reason) == (
        False,
        clock.now(),
        DEACTIVATED_BY_CLIENT,
    )
    clock.advance(5)
    assert not await deactivate_webhook(
        store.unit_of_work, clock, account_id=account_id, webhook_id=webhook.id
    )
    assert store.webhooks.webhooks[webhook.id] == stored  # unchanged


# -- the secret -----------------------------------------------------------------------------------


async def test_the_secret_is_created_once_and_rotated(
    store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int
) -> None:
    first = await get_webhook_secret(store.unit_of_work, clock, account_id=account_id)
    assert is_secret(first.secret)
    assert first.previous_secret is None
    assert await get_webhook_secret(store.unit_of_work, clock, account_id=account_id) == first
    assert (await get_webhook_secret(store.unit_of_work, clock, account_id=other_id)).secret != first.secret
    clock.advance(10)
    rotated = await rotate_webhook_secret(store.unit_of_work, clock, account_id=account_id)
    assert is_secret(rotated.secret)
    assert rotated.secret != first.secret
    assert rotated.previous_secret == first.secret
    assert rotated.previous_until == clock.now() + timedelta(hours=24)
    assert rotated.rotated_at == clock.now()
    assert await get_webhook_secret(store.unit_of_work, clock, account_id=account_id) == rotated
    again = await rotate_webhook_secret(store.unit_of_work, clock, account_id=account_id)
    assert again.previous_secret == rotated.secret  # at most two secrets sign at once


async def test_rotating_before_any_secret_creates_one(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    secret = await rotate_webhook_secret(store.unit_of_work, clock, account_id=account_id)
    assert (secret.previous_secret, secret.previous_until) == (None, None)
    assert store.webhooks.secrets[account_id] == secret


async def test_no_secret_for_an_unknown_account(store: InMemoryStore, clock: ManualClock) -> None:
    with pytest.raises(AccountNotFound):
        await get_webhook_secret(store.unit_of_work, clock, account_id=404)
    with pytest.raises(AccountNotFound):
        await rotate_webhook_secret(store.unit_of_work, clock, account_id=404)


# -- deliveries ------------------------------------------------------------------------------------


def seed_delivery(
    store: InMemoryStore,
    clock: ManualClock,
    delivery_id: int,
    webhook_id: int,
    status: DeliveryStatus,
    **extra: object,
) -> Delivery:
    webhook = store.webhooks.webhooks[webhook_id]
    pending = status is DeliveryStatus.PENDING
    delivery = Delivery(
        id=delivery_id,
        message_id=f"msg_{delivery_id}",
        webhook_id=webhook_id,
        account_id=webhook.account_id,
        event_type=webhook.event_type,
        url=webhook.url,
        status=status,
        attempts=0 if pending else 8,
        created_at=clock.now() + timedelta(seconds=delivery_id),
        next_attempt_at=clock.now() if pending else None,
        last_attempt_at=None if pending else clock.now(),
        last_status_code=None if pending else 500,
        last_error=None if pending else "HTTP 500",
        finished_at=None if pending else clock.now(),
    )
    delivery = dataclasses.replace(delivery, **extra)  # type: ignore[arg-type]
    store.webhooks.deliveries[delivery_id] = delivery
    return delivery


async def test_deliveries_are_listed_newest_first_with_limit_and_status(
    store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int
) -> None:
    mine = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    theirs = (await register(store, clock, other_id, "https://hooks.example.com/a")).webhook
    seed_delivery(store, clock, 1, mine.id, DeliveryStatus.DELIVERED)
    seed_delivery(store, clock, 2, theirs.id, DeliveryStatus.FAILED)
    seed_delivery(store, clock, 3, mine.id, DeliveryStatus.FAILED)
    seed_delivery(store, clock, 4, mine.id, DeliveryStatus.PENDING)
    listed = await list_deliveries(store.unit_of_work, account_id=account_id)
    assert [d.id for d in listed] == [4, 3, 1]
    assert [d.id for d in await list_deliveries(store.unit_of_work, account_id=account_id, limit=2)] == [4, 3]
    failed = await list_deliveries(store.unit_of_work, account_id=account_id, status=DeliveryStatus.FAILED)
    assert [d.id for d in failed] == [3]
    for limit in (0, -1, 101):
        with wire_raises(ValidationError, match="limit: must be 1 to 100"):
            await list_deliveries(store.unit_of_work, account_id=account_id, limit=limit)


@pytest.mark.parametrize("status", [DeliveryStatus.FAILED, DeliveryStatus.DELIVERED])
async def test_replay_puts_a_finished_delivery_back_in_the_queue(
    store: InMemoryStore, clock: ManualClock, account_id: int, status: DeliveryStatus
) -> None:
    webhook = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    finished = seed_delivery(store, clock, 7, webhook.id, status)
    clock.advance(3600)
    replayed = await replay_delivery(store.unit_of_work, clock, account_id=account_id, delivery_id=7)
    assert replayed.status is DeliveryStatus.PENDING
    assert (replayed.attempts, replayed.next_attempt_at, replayed.finished_at) == (0, clock.now(), None)
    assert replayed.message_id == finished.message_id  # receivers deduplicate on it
    assert (replayed.last_status_code, replayed.last_error) == (500, "HTTP 500")  # what happened last time
    assert store.webhooks.deliveries[7] == replayed
    clock.advance(60)  # replayed again while due already: nothing moves (it stays due since then)
    again = await replay_delivery(store.unit_of_work, clock, account_id=account_id, delivery_id=7)
    assert again == replayed


async def test_replay_of_a_delivery_waiting_for_its_retry_makes_it_due_now(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    webhook = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    waiting = seed_delivery(
        store,
        clock,
        5,
        webhook.id,
        DeliveryStatus.PENDING,
        attempts=3,
        next_attempt_at=clock.now() + timedelta(hours=2),
    )
    replayed = await replay_delivery(store.unit_of_work, clock, account_id=account_id, delivery_id=5)
    assert replayed == dataclasses.replace(waiting, next_attempt_at=clock.now())  # attempts kept: 3
    assert store.webhooks.deliveries[5] == replayed


async def test_replay_refusals(
    store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int
) -> None:
    webhook = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    failed = seed_delivery(store, clock, 1, webhook.id, DeliveryStatus.FAILED)
    for who, delivery_id in ((other_id, 1), (account_id, 2), (account_id, 0), (account_id, 2**63)):
        with pytest.raises(DeliveryNotFound):
            await replay_delivery(store.unit_of_work, clock, account_id=who, delivery_id=delivery_id)
    await deactivate_webhook(store.unit_of_work, clock, account_id=account_id, webhook_id=webhook.id)
    with pytest.raises(WebhookInactive):
        await replay_delivery(store.unit_of_work, clock, account_id=account_id, delivery_id=1)
    assert store.webhooks.deliveries[1] == failed


# -- the deliveries' detail and filters, the test event --------------------------------------------


async def test_a_delivery_detail_is_the_account_s_only(
    store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int
) -> None:
    webhook = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    delivery = seed_delivery(store, clock, 3, webhook.id, DeliveryStatus.FAILED)
    line = DeliveryAttempt(clock.now(), 500, 12, None, "no")
    store.webhooks.payloads[3] = {"type": "RECEIVE", "data": {"id": 1}}
    store.webhooks.attempt_logs[3] = [line]
    detail = await get_delivery_detail(store.unit_of_work, account_id=account_id, delivery_id=3)
    assert detail == DeliveryDetail(delivery, {"type": "RECEIVE", "data": {"id": 1}}, (line,))
    for who, delivery_id in ((other_id, 3), (account_id, 4), (account_id, 0), (account_id, 2**63)):
        with pytest.raises(DeliveryNotFound):
            await get_delivery_detail(store.unit_of_work, account_id=who, delivery_id=delivery_id)


async def test_the_deliveries_filter_by_registration_type_and_creation(
    store: InMemoryStore, clock: ManualClock, account_id: int
) -> None:
    cash_in = (await register(store, clock, account_id, "https://hooks.example.com/a")).webhook
    refund = (
        await register(store, clock, account_id, "https://hooks.example.com/r", event_type="refund_in")
    ).webhook
    seed_delivery(store, clock, 1, cash_in.id, DeliveryStatus.DELIVERED)  # created at now + 1 s
    seed_delivery(store, clock, 2, refund.id, DeliveryStatus.FAILED)  # now + 2 s
    seed_delivery(store, clock, 3, cash_in.id, DeliveryStatus.FAILED)  # now + 3 s

    async def ids(**given: object) -> list[int]:
        filters = delivery_filter(**given)  # type: ignore[arg-type]
        found = await list_deliveries(store.unit_of_work, account_id=account_id, filters=filters)
        return [d.id for d in found]

    assert await ids(webhook_id=cash_in.id) == [3, 1]
    assert await ids(event_type=EventType.REFUND_IN) == [2]
    assert await ids(status=DeliveryStatus.FAILED, webhook_id=cash_in.id) == [3]
    second = format_timestamp(clock.now() + timedelta(seconds=2))
    assert await ids(start_date=second) == [3, 2]
    assert await ids(end_date=second) == [2, 1]
    assert await ids(start_date=second, end_date=second) == [2]
    assert await ids(start_date=clock.now().date().isoformat(), end_date=clock.now().date().isoformat()) == [
        3,
        2,
        1,
    ]
    for bad in ({"webhook_id": 0}, {"webhook_id": 2**63}):
        with wire_raises(ValidationError, match="webhookId"):
            delivery_filter(**bad)  # type: ignore[arg-type]
    for dates, says in (
        ({"start_date": "soon"}, "startDate"),
        ({"end_date": "2026-02-30"}, "endDate"),
        ({"start_date": "x" * 100}, "startDate"),
        ({"start_date": "2026-11-02", "end_date": "2026-11-01"}, "endDate: must not be before startDate"),
        ({"end_date": "9999-12-31"}, "out of the supported range"),
    ):
        with wire_raises(ValidationError, match=says):
            delivery_filter(**dates)  # type: ignore[arg-type]


class FakeProbe:
    def __init__(self, result: ProbeResult) -> None:
        self.result = result
        self.sent: list[dict[str, object]] = []

    async def send(self, **given: object) -> ProbeResult:
        self.sent.append(given)
        return self.result


async def test_a_test_event_goes_signed_to_an_active_registration_with_its_headers(
    store: InMemoryStore, clock: ManualClock, account_id: int, other_id: int
) -> None:
    registered = await register(
        store, clock, account_id, "https://hooks.example.com/a", headers={"X-Key": "v"}
    )
    webhook = registered.webhook
    probe = FakeProbe(ProbeResult(success=True, status_code=204, duration_ms=9, error=None))
    result = await send_test_event(
        store.unit_of_work, clock, probe, account_id=account_id, webhook_id=webhook.id
    )
    assert result == probe.result
    (sent,) = probe.sent
    secret = store.webhooks.secrets[account_id].secret
    assert (sent["url"], sent["headers"], sent["secrets"]) == (webhook.url, {"X-Key": "v"}, [secret])
    assert isinstance(sent["event"], Ping)
    assert ping_payload(sent["event"]) == {
        "type": "PING",
        "data": {"webhookId": webhook.id, "sentAt": format_timestamp(clock.now())},
    }
    assert str(sent["msg_id"]).startswith(f"msg_test_{webhook.id}_")
    assert "." not in str(sent["msg_id"])
    # During a rotation both secrets sign, as every notification is signed.
    rotated = await rotate_webhook_secret(store.unit_of_work, clock, account_id=account_id)
    await send_test_event(store.unit_of_work, clock, probe, account_id=account_id, webhook_id=webhook.id)
    assert probe.sent[1]["secrets"] == [rotated.secret, secret]
    # Nothing else is stored: no delivery.
    assert store.webhooks.deliveries == {}

    for who, webhook_id in (
        (other_id, webhook.id),
        (account_id, webhook.id + 1),
        (account_id, 0),
        (account_id, 2**63),
    ):
        with pytest.raises(WebhookNotFound):
            await send_test_event(store.unit_of_work, clock, probe, account_id=who, webhook_id=webhook_id)
    await deactivate_webhook(store.unit_of_work, clock, account_id=account_id, webhook_id=webhook.id)
    with pytest.raises(WebhookNotFound):
        await send_test_event(store.unit_of_work, clock, probe, account_id=account_id, webhook_id=webhook.id)
    assert len(probe.sent) == 2
