"""The ``DeliveryStore`` contract, run against ``InMemoryDeliveryStore`` and PostgreSQL alike.

Every test runs twice (ids ``memory`` and ``postgres``): what the notifier's unit tests learn
from the fake is what the PostgreSQL adapter does. Moments are fixed, not the clock's.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pixcore.webhooks.delivery import (
    GONE_REASON,
    INACTIVE_REASON,
    MAX_REASON,
    MAX_RESPONSE_BODY,
    Attempted,
    Claim,
    Verdict,
    message_id,
)
from pixcore.webhooks.ports import DeliveryStore
from pixcore.webhooks.rules import DeliveryAttempt, DeliveryStatus, EventType
from tests.contract.delivery_rows import Rows

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=30)
SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
PREVIOUS = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtcHJldmlvdXMtb25l"

DELIVERED = Verdict(DeliveryStatus.DELIVERED, None)
GONE = Verdict(DeliveryStatus.FAILED, None, deactivate=True, reason="HTTP 410: the receiver is gone")


def retry(at: datetime, reason: str = "HTTP 500") -> Verdict:
    return Verdict(DeliveryStatus.PENDING, at, reason=reason)


def transfer(n: int) -> dict[str, Any]:
    return {"type": "TRANSFER", "data": {"id": n, "status": "LIQUIDATED", "remittanceInformation": "açaí"}}


def receive(n: int) -> dict[str, Any]:
    return {"type": "RECEIVE", "data": {"id": n, "status": "LIQUIDATED"}}


async def one_pending(rows: Rows, store: DeliveryStore, **webhook: Any) -> tuple[int, int, int]:
    """An account with a secret, one registration and one event, fanned out: (account, webhook, event)."""
    account = await rows.account()
    await rows.secret(account, SECRET)
    hook = await rows.webhook(account, "https://hooks.example/one", **webhook)
    event = await rows.emit(account, transfer(1), EventType.CASH_OUT)
    assert await store.dispatch(NOW, 10) == [event]
    return account, hook, event


async def claim_one(store: DeliveryStore, now: datetime = NOW) -> Claim:
    (claim,) = await store.claim_due(now, 10, now + LEASE)
    return claim


# ------------------------------------------------------------------------------------ fan-out


async def test_dispatch_fans_each_event_out_to_the_active_registrations_of_its_type(
    store: DeliveryStore, rows: Rows
) -> None:
    account, other = await rows.account(), await rows.account()
    hooks = [await rows.webhook(account, f"https://hooks.example/{n}") for n in range(3)]
    await rows.webhook(account, "https://hooks.example/cash-in", EventType.CASH_IN)
    await rows.webhook(account, "https://hooks.example/inactive", active=False)
    await rows.webhook(other, "https://hooks.example/other-account")
    event = await rows.emit(account, transfer(1), EventType.CASH_OUT)

    assert await store.dispatch(NOW, 10) == [event]

    deliveries = await rows.deliveries_of(event)
    assert [d.webhook_id for d in deliveries] == hooks
    for delivery in deliveries:
        assert delivery.message_id == message_id(event, delivery.webhook_id)
        assert (delivery.status, delivery.attempts, delivery.account_id) == (
            DeliveryStatus.PENDING,
            0,
            account,
        )
        assert delivery.next_attempt_at == delivery.created_at == NOW
        assert delivery.last_attempt_at is delivery.finished_at is delivery.last_error is None
    assert await rows.dispatched_at(event) == NOW
    assert await store.dispatch(NOW, 10) == []  # consumed once


async def test_a_pix_event_goes_to_the_webhook_of_its_key_only(store: DeliveryStore, rows: Rows) -> None:
    account, other = await rows.account(), await rows.account()
    mine = await rows.webhook(account, "https://hooks.example/pix", EventType.PIX, pix_key="a@example.org")
    await rows.webhook(account, "https://hooks.example/pix", EventType.PIX, pix_key="b@example.org")
    await rows.webhook(other, "https://hooks.example/pix", EventType.PIX, pix_key="c@example.org")
    cash_in = await rows.webhook(account, "https://hooks.example/in", EventType.CASH_IN)
    pix = {"type": "PIX", "data": {"pix": [{"endToEndId": "E1", "chave": "a@example.org"}]}}
    event = await rows.emit(account, pix, EventType.PIX, pix_key="a@example.org")
    received = await rows.emit(account, receive(1), EventType.CASH_IN)
    nobody = await rows.emit(account, pix, EventType.PIX, pix_key="d@example.org")  # a key without one

    assert await store.dispatch(NOW, 10) == [event, received, nobody]
    assert [d.webhook_id for d in await rows.deliveries_of(event)] == [mine]
    assert [d.webhook_id for d in await rows.deliveries_of(received)] == [cash_in]
    assert await rows.deliveries_of(nobody) == []
    (claim,) = [c for c in await store.claim_due(NOW, 10, NOW + LEASE) if c.webhook_id == mine]
    assert claim.event == pix


async def test_dispatch_takes_the_oldest_events_first_up_to_its_limit(
    store: DeliveryStore, rows: Rows
) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/in", EventType.CASH_IN)
    events = [await rows.emit(account, receive(n), EventType.CASH_IN) for n in range(5)]
    later = NOW + timedelta(seconds=1)

    assert await store.dispatch(NOW, 2) == events[:2]
    assert await store.dispatch(later, 10) == events[2:]
    assert [await rows.dispatched_at(e) for e in events] == [NOW, NOW, later, later, later]
    assert [len(await rows.deliveries_of(e)) for e in events] == [1] * 5


async def test_an_event_without_registrations_or_type_is_consumed_without_deliveries(
    store: DeliveryStore, rows: Rows
) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/out")
    nobody = await rows.emit(account, receive(1), EventType.CASH_IN)  # nobody registered
    no_type = await rows.emit(account, {"type": "MED", "data": {"status": "UNKNOWN"}}, None)

    assert await store.dispatch(NOW, 10) == [nobody, no_type]
    assert await rows.deliveries_of(nobody) == []
    assert await rows.deliveries_of(no_type) == []
    assert await rows.dispatched_at(no_type) == NOW


async def test_an_event_goes_where_its_stored_type_says_whatever_its_payload_says(
    store: DeliveryStore, rows: Rows
) -> None:
    account = await rows.account()
    out = await rows.webhook(account, "https://hooks.example/out", EventType.CASH_OUT)
    refund_in = await rows.webhook(account, "https://hooks.example/refund-in", EventType.REFUND_IN)
    refund_out = await rows.webhook(account, "https://hooks.example/refund-out", EventType.REFUND_OUT)
    # A TRANSFER's payload (cash_out, were it read) stored to go to refund_out; a payload that
    # would go nowhere, stored to go to refund_in.
    misnamed = await rows.emit(account, transfer(1), EventType.REFUND_OUT)
    unnamed = await rows.emit(account, {"type": "MED", "data": {"status": "UNKNOWN"}}, EventType.REFUND_IN)

    assert await store.dispatch(NOW, 10) == [misnamed, unnamed]
    assert [d.webhook_id for d in await rows.deliveries_of(misnamed)] == [refund_out]
    assert [d.webhook_id for d in await rows.deliveries_of(unnamed)] == [refund_in]
    assert {(await rows.registration(hook)).is_active for hook in (out, refund_in, refund_out)} == {True}


async def test_racing_dispatchers_fan_each_event_out_once(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    hooks = [await rows.webhook(account, f"https://race-{n}.example/hook") for n in range(2)]
    events = [await rows.emit(account, transfer(n), EventType.CASH_OUT) for n in range(120)]
    consumed: list[list[int]] = [[] for _ in range(4)]

    async def dispatcher(n: int) -> None:
        while batch := await store.dispatch(NOW, 7):
            consumed[n].extend(batch)

    await asyncio.gather(*(dispatcher(n) for n in range(4)))

    everything = [outbox_id for batch in consumed for outbox_id in batch]
    assert sorted(everything) == events  # each consumed once, none skipped
    for event in events:
        assert [d.webhook_id for d in await rows.deliveries_of(event)] == hooks


# ------------------------------------------------------------------------------------ claims


async def test_a_claim_carries_what_it_takes_to_send(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    await rows.secret(account, SECRET, PREVIOUS, NOW + timedelta(hours=1))
    hook = await rows.webhook(account, "https://hooks.example/c", headers={"X-Tenant": "t1"})
    event = await rows.emit(account, transfer(7), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)

    claim = await claim_one(store)

    (delivery,) = await rows.deliveries_of(event)
    assert claim == Claim(
        id=delivery.id,
        message_id=message_id(event, hook),
        webhook_id=hook,
        account_id=account,
        attempts=0,
        lease_until=NOW + LEASE,
        event=transfer(7),
        url="https://hooks.example/c",
        headers={"X-Tenant": "t1"},
        active=True,
        secrets=(SECRET, PREVIOUS),  # the rotation's grace: both sign
    )
    assert delivery.next_attempt_at == NOW + LEASE  # the lease is the delivery's due time


async def test_a_claim_signs_with_the_current_secret_alone_once_the_rotation_ends_or_none(
    store: DeliveryStore, rows: Rows
) -> None:
    rotated, without = await rows.account(), await rows.account()
    await rows.secret(rotated, SECRET, PREVIOUS, NOW)  # the previous one's grace ends now
    for account in (rotated, without):
        await rows.webhook(account, f"https://hooks.example/{account}")
        await rows.emit(account, transfer(account), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)

    claims = await store.claim_due(NOW, 10, NOW + LEASE)

    assert {c.account_id: c.secrets for c in claims} == {rotated: (SECRET,), without: ()}


async def test_claims_take_the_oldest_due_first_and_nothing_not_yet_due(
    store: DeliveryStore, rows: Rows
) -> None:
    account = await rows.account()
    hook = await rows.webhook(account, "https://hooks.example/order")
    first, second, third = [await rows.emit(account, transfer(n), EventType.CASH_OUT) for n in range(3)]
    await store.dispatch(NOW, 1)  # first: due at NOW
    await store.dispatch(NOW + timedelta(seconds=2), 1)  # second: due 2 s later
    await store.dispatch(NOW + timedelta(seconds=1), 1)  # third: due 1 s later

    at = NOW + timedelta(seconds=1)
    claimed = await store.claim_due(at, 10, at + LEASE)
    assert {c.message_id for c in claimed} == {message_id(first, hook), message_id(third, hook)}
    await store.release(claimed, NOW)

    at = NOW + timedelta(seconds=2)
    two = await store.claim_due(at, 2, at + LEASE)  # all three due: the two due longest
    assert {c.message_id for c in two} == {message_id(first, hook), message_id(third, hook)}
    (last,) = await store.claim_due(at, 2, at + LEASE)
    assert last.message_id == message_id(second, hook)


async def test_a_claim_takes_at_most_its_limit(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/limit")
    for n in range(5):
        await rows.emit(account, transfer(n), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)
    assert len(await store.claim_due(NOW, 3, NOW + LEASE)) == 3
    assert len(await store.claim_due(NOW, 3, NOW + LEASE)) == 2
    assert await store.claim_due(NOW, 3, NOW + LEASE) == []


async def test_a_leased_delivery_is_claimable_again_only_when_its_lease_ends(
    store: DeliveryStore, rows: Rows
) -> None:
    await one_pending(rows, store)
    claim = await claim_one(store)

    assert await store.claim_due(NOW + LEASE - timedelta(microseconds=1), 10, NOW + 2 * LEASE) == []
    again = await claim_one(store, NOW + LEASE)
    assert (again.id, again.attempts, again.lease_until) == (claim.id, 0, NOW + 2 * LEASE)


async def test_notifiers_claiming_at_once_never_share_a_delivery(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/race")
    for n in range(40):
        await rows.emit(account, transfer(n), EventType.CASH_OUT)
    await store.dispatch(NOW, 100)

    async def claimer() -> list[int]:
        got: list[int] = []
        while claims := await store.claim_due(NOW, 3, NOW + LEASE):
            got += [c.id for c in claims]
        return got

    everyone = [d for got in await asyncio.gather(*(claimer() for _ in range(4))) for d in got]
    assert len(everyone) == len(set(everyone)) == 40


# ------------------------------------------------------------------------------------ outcomes


async def test_a_retry_is_stored_with_its_next_attempt(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    claim = await claim_one(store)
    attempted = NOW + timedelta(seconds=1)

    assert await store.record(
        claim, retry(NOW + timedelta(seconds=6)), attempted_at=attempted, status_code=500
    )

    (delivery,) = await rows.deliveries_of(event)
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (DeliveryStatus.PENDING, 1, 500)
    assert (delivery.next_attempt_at, delivery.last_attempt_at) == (NOW + timedelta(seconds=6), attempted)
    assert (delivery.last_error, delivery.finished_at) == ("HTTP 500", None)
    assert await store.claim_due(NOW + timedelta(seconds=5), 10, NOW + LEASE) == []
    assert (await claim_one(store, NOW + timedelta(seconds=6))).attempts == 1


async def test_a_delivery_is_stored_finished(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    claim = await claim_one(store)
    assert await store.record(claim, DELIVERED, attempted_at=NOW, status_code=204)
    (delivery,) = await rows.deliveries_of(event)
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        DeliveryStatus.DELIVERED,
        1,
        204,
    )
    assert (delivery.next_attempt_at, delivery.finished_at, delivery.last_error) == (None, NOW, None)
    assert await store.claim_due(NOW + timedelta(days=1), 10, NOW + LEASE) == []


async def test_a_long_reason_is_cut_to_its_column(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    claim = await claim_one(store)
    long = "x" * (MAX_REASON + 50)
    assert await store.record(claim, retry(NOW + LEASE, long), attempted_at=NOW, status_code=None)
    (delivery,) = await rows.deliveries_of(event)
    assert delivery.last_error == long[:MAX_REASON]
    assert delivery.last_status_code is None


async def test_an_outcome_after_the_lease_was_lost_is_not_stored(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    stale = await claim_one(store)
    fresh = await claim_one(store, NOW + LEASE)  # the lease ended: another notifier has it

    assert not await store.record(stale, DELIVERED, attempted_at=NOW, status_code=200)
    assert await store.record_many([Attempted(stale, DELIVERED, NOW, 200)]) == set()
    assert not await store.finish_inactive(stale, NOW)
    assert await store.release([stale], NOW) == 0
    (delivery,) = await rows.deliveries_of(event)
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == (
        DeliveryStatus.PENDING,
        0,
        fresh.lease_until,
    )

    assert await store.record(fresh, DELIVERED, attempted_at=NOW + LEASE, status_code=200)
    assert not await store.record(fresh, DELIVERED, attempted_at=NOW + LEASE, status_code=200)  # once
    (delivery,) = await rows.deliveries_of(event)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 1)


async def test_many_outcomes_are_stored_at_once_but_only_where_the_lease_held(
    store: DeliveryStore, rows: Rows
) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/many")
    events = [await rows.emit(account, transfer(n), EventType.CASH_OUT) for n in range(3)]
    await store.dispatch(NOW, 10)
    kept, retried, lost = sorted(await store.claim_due(NOW, 10, NOW + LEASE), key=lambda c: c.id)
    await store.release([lost], NOW)  # given back: its lease is no longer the delivery's

    stored = await store.record_many(
        [
            Attempted(kept, DELIVERED, NOW, 200),
            Attempted(retried, retry(NOW + timedelta(minutes=5), "HTTP 503"), NOW, 503),
            Attempted(lost, DELIVERED, NOW, 200),
        ]
    )

    assert stored == {kept.id, retried.id}
    statuses = [
        (d.status, d.attempts, d.last_status_code) for e in events for d in await rows.deliveries_of(e)
    ]
    assert statuses == [
        (DeliveryStatus.DELIVERED, 1, 200),
        (DeliveryStatus.PENDING, 1, 503),
        (DeliveryStatus.PENDING, 0, None),
    ]


async def test_many_outcomes_refuse_a_deactivation(store: DeliveryStore, rows: Rows) -> None:
    _, hook, event = await one_pending(rows, store)
    claim = await claim_one(store)
    with pytest.raises(ValueError, match="410"):
        await store.record_many([Attempted(claim, GONE, NOW, 410)])
    (delivery,) = await rows.deliveries_of(event)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.PENDING, 0)
    assert (await rows.registration(hook)).is_active


# ------------------------------------------------------------------------------------ 410 and inactive


async def test_a_410_fails_the_delivery_and_deactivates_its_registration(
    store: DeliveryStore, rows: Rows
) -> None:
    account, hook, event = await one_pending(rows, store)
    kept = await rows.webhook(account, "https://hooks.example/kept")
    later = await rows.emit(account, transfer(2), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)  # `later` goes to both registrations
    first, *_ = await store.claim_due(NOW, 1, NOW + LEASE)
    attempted = NOW + timedelta(seconds=1)

    assert await store.record(first, GONE, attempted_at=attempted, status_code=410)

    (delivery,) = await rows.deliveries_of(event)
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (DeliveryStatus.FAILED, 1, 410)
    assert (delivery.next_attempt_at, delivery.finished_at) == (None, attempted)
    registration = await rows.registration(hook)
    assert not registration.is_active
    assert (registration.deactivation_reason, registration.deactivated_at) == (GONE_REASON, attempted)
    assert registration.updated_at == attempted
    assert (await rows.registration(kept)).is_active

    # The registration's other pending delivery is not failed here: its next claim says inactive.
    claims = {c.webhook_id: c for c in await store.claim_due(NOW, 10, NOW + LEASE)}
    assert (claims[hook].active, claims[kept].active) == (False, True)
    assert await store.finish_inactive(claims[hook], attempted)
    gone_later = next(d for d in await rows.deliveries_of(later) if d.webhook_id == hook)
    assert (gone_later.status, gone_later.attempts, gone_later.last_error) == (
        DeliveryStatus.FAILED,
        0,
        INACTIVE_REASON,
    )
    assert (gone_later.next_attempt_at, gone_later.finished_at) == (None, attempted)


async def test_a_410_after_the_lease_was_lost_deactivates_nothing(store: DeliveryStore, rows: Rows) -> None:
    _, hook, _ = await one_pending(rows, store)
    stale = await claim_one(store)
    await claim_one(store, NOW + LEASE)
    assert not await store.record(stale, GONE, attempted_at=NOW, status_code=410)
    assert (await rows.registration(hook)).is_active


async def test_a_deactivation_keeps_the_first_reason_and_moment(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    hook = await rows.webhook(account, "https://hooks.example/twice")
    await rows.deactivate(hook, "deleted by the owner", NOW)
    await rows.deactivate(hook, "again", NOW + LEASE)
    registration = await rows.registration(hook)
    assert (registration.is_active, registration.deactivation_reason) == (False, "deleted by the owner")
    assert registration.deactivated_at == NOW


async def test_no_delivery_is_made_for_a_registration_deactivated_before_the_fan_out(
    store: DeliveryStore, rows: Rows
) -> None:
    account = await rows.account()
    hook = await rows.webhook(account, "https://hooks.example/deleted")
    await rows.deactivate(hook, "deleted by the owner", NOW)
    event = await rows.emit(account, transfer(1), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)
    assert await rows.deliveries_of(event) == []


async def test_a_registration_receives_only_the_events_after_it_was_made(
    store: DeliveryStore, rows: Rows
) -> None:
    # Found as: under load, the notifier fanned out an event written before a webhook was
    # registered (the README tour's listener got the charge payment made before it, not the next).
    account = await rows.account()
    earlier = await rows.emit(account, receive(1), EventType.CASH_IN)
    hook = await rows.webhook(account, "https://hooks.example/new", EventType.CASH_IN)
    later = await rows.emit(account, receive(2), EventType.CASH_IN)
    assert await store.dispatch(NOW, 10) == [earlier, later]
    assert await rows.deliveries_of(earlier) == []
    assert [d.webhook_id for d in await rows.deliveries_of(later)] == [hook]


# ------------------------------------------------------------------------------------ give-back


async def test_released_deliveries_are_due_again_at_once(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/release")
    for n in range(3):
        await rows.emit(account, transfer(n), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)
    claims = await store.claim_due(NOW, 10, NOW + LEASE)
    assert await store.claim_due(NOW + timedelta(seconds=1), 10, NOW + LEASE) == []

    back = NOW + timedelta(seconds=1)
    assert await store.release(claims[:2], back) == 2
    assert await store.release([], back) == 0

    again = await store.claim_due(back, 10, back + LEASE)
    assert sorted(c.id for c in again) == sorted(c.id for c in claims[:2])
    assert all(c.attempts == 0 for c in again)


# ------------------------------------------------------------------------------------ the attempt log


async def test_each_stored_attempt_gets_its_line_in_order(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    first = await claim_one(store)
    later = NOW + timedelta(minutes=5)
    assert await store.record(
        first,
        retry(later, "timed out after 15 s"),
        attempted_at=NOW,
        status_code=None,
        duration_ms=15_003,
        error="timed out after 15 s",
        response_body=None,
    )
    second = await claim_one(store, later)
    assert await store.record_many(
        [Attempted(second, DELIVERED, later, 200, duration_ms=42, error=None, response_body='{"ok": true}')]
    ) == {second.id}
    (delivery,) = await rows.deliveries_of(event)
    assert await rows.attempt_log(delivery.id) == [
        DeliveryAttempt(NOW, None, 15_003, "timed out after 15 s", None),
        DeliveryAttempt(later, 200, 42, None, '{"ok": true}'),
    ]


async def test_an_attempt_line_keeps_no_error_on_an_answer_and_a_bounded_body(
    store: DeliveryStore, rows: Rows
) -> None:
    _, _, event = await one_pending(rows, store)
    claim = await claim_one(store)
    body = "é\x00" + "x" * (MAX_RESPONSE_BODY + 100)  # NUL: PostgreSQL text cannot hold it
    assert await store.record(
        claim,
        retry(NOW + LEASE, "HTTP 500"),
        attempted_at=NOW,
        status_code=500,
        duration_ms=7,
        error="words an answer never needs",
        response_body=body,
    )
    (delivery,) = await rows.deliveries_of(event)
    (line,) = await rows.attempt_log(delivery.id)
    assert (line.status_code, line.error, line.duration_ms) == (500, None, 7)
    assert line.response_body == ("é\ufffd" + "x" * MAX_RESPONSE_BODY)[:MAX_RESPONSE_BODY]


async def test_an_outcome_whose_lease_was_lost_gets_no_line(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    stale = await claim_one(store)
    await claim_one(store, NOW + LEASE)  # another notifier has it now
    assert not await store.record(stale, DELIVERED, attempted_at=NOW, status_code=200, duration_ms=3)
    assert await store.record_many([Attempted(stale, DELIVERED, NOW, 200, duration_ms=3)]) == set()
    (delivery,) = await rows.deliveries_of(event)
    assert await rows.attempt_log(delivery.id) == []


async def test_a_410_gets_its_line_with_the_deactivation(store: DeliveryStore, rows: Rows) -> None:
    _, _, event = await one_pending(rows, store)
    claim = await claim_one(store)
    assert await store.record(
        claim, GONE, attempted_at=NOW, status_code=410, duration_ms=9, response_body="gone"
    )
    (delivery,) = await rows.deliveries_of(event)
    assert await rows.attempt_log(delivery.id) == [DeliveryAttempt(NOW, 410, 9, None, "gone")]


async def test_pruning_deletes_the_oldest_lines_in_bounded_batches(store: DeliveryStore, rows: Rows) -> None:
    account = await rows.account()
    await rows.webhook(account, "https://hooks.example/prune")
    for n in range(5):
        await rows.emit(account, transfer(n), EventType.CASH_OUT)
    await store.dispatch(NOW, 10)
    claims = sorted(await store.claim_due(NOW, 10, NOW + LEASE), key=lambda c: c.id)
    moments = [NOW + timedelta(days=n) for n in range(5)]  # one attempt a day
    await store.record_many(
        [
            Attempted(c, retry(NOW + timedelta(days=30)), at, 500)
            for c, at in zip(claims, moments, strict=True)
        ]
    )
    assert await rows.attempt_count() == 5
    cutoff = moments[3]  # lines of days 0, 1, 2 are older
    assert await store.prune_attempts(cutoff, 2) == 2
    assert await store.prune_attempts(cutoff, 2) == 1
    assert await store.prune_attempts(cutoff, 2) == 0
    assert await rows.attempt_count() == 2
    kept = [line for c in claims for line in await rows.attempt_log(c.id)]
    assert [line.attempted_at for line in kept] == moments[3:]
