"""The contract of ``WebhookRepository``: registrations, the account's signing secret, and the
deliveries' state as the API shows and changes it."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from datetime import timedelta

import pytest

from pixcore.unit_of_work import UnitOfWork
from pixcore.webhooks.rules import (
    Delivery,
    DeliveryStatus,
    EventType,
    NewWebhook,
    Webhook,
    new_webhook_secret,
)
from tests.contract.conftest import Backend
from tests.contract.rows import FAR, T0, add_account


def _new(account_id: int, event_type: EventType = EventType.CASH_IN, *, url: str | None = None) -> NewWebhook:
    return NewWebhook(
        account_id=account_id,
        event_type=event_type,
        url=url or f"https://hooks.example.com/{uuid.uuid4().hex}",
        headers={"X-Api-Key": "k1", "X-Tenant": "t"},
        created_at=T0,
    )


async def _registered(backend: Backend) -> tuple[int, Webhook]:
    async with backend.uow() as tx:
        account = await add_account(tx)
        webhook = await tx.webhooks.add(_new(account.id))
        await tx.commit()
    return account.id, webhook


# -- registrations -------------------------------------------------------------------


async def test_a_registration_reads_back_active_at_version_1(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        new = _new(account.id)
        webhook = await tx.webhooks.add(new)
        assert webhook == Webhook(
            id=webhook.id,
            account_id=account.id,
            event_type=new.event_type,
            url=new.url,
            headers=dict(new.headers),
            version=1,
            is_active=True,
            created_at=T0,
            updated_at=T0,
        )
        await tx.commit()

    async with backend.uow() as tx:
        other = await add_account(tx)
        assert await tx.webhooks.get(account.id, webhook.id) == webhook
        assert await tx.webhooks.get(other.id, webhook.id) is None  # another account's
        assert await tx.webhooks.get(account.id, -1) is None


async def test_active_and_list_for_are_oldest_first_and_only_list_for_shows_the_inactive(
    backend: Backend,
) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        first = await tx.webhooks.add(_new(account.id))
        refunds = await tx.webhooks.add(_new(account.id, EventType.REFUND_IN))
        second = await tx.webhooks.add(_new(account.id))
        gone = await tx.webhooks.add(_new(account.id))
        await tx.webhooks.deactivate(gone.id, "removed by the client", T0 + timedelta(minutes=1))
        other = await add_account(tx)
        await tx.webhooks.add(_new(other.id))

        assert [w.id for w in await tx.webhooks.active(account.id, EventType.CASH_IN)] == [
            first.id,
            second.id,
        ]
        assert [w.id for w in await tx.webhooks.active(account.id, EventType.REFUND_IN)] == [refunds.id]
        assert await tx.webhooks.active(account.id, EventType.MED_CREATED) == []
        listed = await tx.webhooks.list_for(account.id)
        assert [w.id for w in listed] == [first.id, refunds.id, second.id, gone.id]
        assert listed[0] == first


async def test_an_active_url_is_registered_once_per_account_and_event(backend: Backend) -> None:
    account, webhook = await _registered(backend)
    async with backend.uow() as tx:
        # Another event type, or another account, may use the URL.
        assert (await tx.webhooks.add(_new(account, EventType.CASH_OUT, url=webhook.url))).url == webhook.url
        other = await add_account(tx)
        assert (await tx.webhooks.add(_new(other.id, url=webhook.url))).account_id == other.id
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.webhooks.add(_new(account, url=webhook.url))

    async with backend.uow() as tx:
        await tx.webhooks.deactivate(webhook.id, "removed", T0)
        again = await tx.webhooks.add(_new(account, url=webhook.url))  # free once the first is inactive
        assert again.id > webhook.id
        assert [w.id for w in await tx.webhooks.active(account, EventType.CASH_IN)] == [again.id]


async def test_a_registration_of_a_missing_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.webhooks.add(_new(-1))


async def test_new_headers_bump_the_version(backend: Backend) -> None:
    account, webhook = await _registered(backend)
    at = T0 + timedelta(hours=1)
    async with backend.uow() as tx:
        updated = await tx.webhooks.update_headers(webhook.id, {"X-Other": "v"}, at)
        assert updated == dataclasses.replace(webhook, headers={"X-Other": "v"}, version=2, updated_at=at)
        assert await tx.webhooks.get(account, webhook.id) == updated
        again = await tx.webhooks.update_headers(webhook.id, {}, at)
        assert (again.version, again.headers) == (3, {})
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.webhooks.get(account, webhook.id) == again


async def test_a_deactivated_registration_keeps_its_first_deactivation_and_takes_no_headers(
    backend: Backend,
) -> None:
    account, webhook = await _registered(backend)
    at = T0 + timedelta(hours=2)
    async with backend.uow() as tx:
        await tx.webhooks.deactivate(webhook.id, "removed by the client", at)
        await tx.webhooks.deactivate(webhook.id, "again", at + timedelta(hours=1))  # no change
        await tx.webhooks.deactivate(-1, "nothing", at)  # no such registration: nothing happens
        expected = dataclasses.replace(
            webhook,
            is_active=False,
            updated_at=at,
            deactivated_at=at,
            deactivation_reason="removed by the client",
        )
        assert await tx.webhooks.get(account, webhook.id) == expected
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.webhooks.get(account, webhook.id) == expected
        with pytest.raises(RuntimeError):
            await tx.webhooks.update_headers(webhook.id, {"X-Late": "v"}, at)
    async with backend.uow() as tx:
        with pytest.raises(RuntimeError):
            await tx.webhooks.update_headers(-1, {}, at)


async def test_registrations_of_an_account_are_serialised_by_its_lock(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.commit()

    async with backend.uow() as first:
        assert await first.webhooks.lock_account(account.id) is True
        assert await first.webhooks.lock_account(account.id) is True  # its holder may ask again

        async def second_registration() -> None:
            async with backend.uow() as second:
                assert await second.webhooks.lock_account(account.id) is True
                assert [w.url for w in await second.webhooks.list_for(account.id)] == [first_url]

        first_url = (await first.webhooks.add(_new(account.id))).url
        waiting = asyncio.create_task(second_registration())
        await asyncio.sleep(0.3)
        assert not waiting.done()  # it waits for the first unit ...
        await first.commit()
    await asyncio.wait_for(waiting, timeout=10)  # ... and sees its registration once it commits


async def test_locking_a_missing_account_is_false(backend: Backend) -> None:
    async with backend.uow() as tx:
        assert await tx.webhooks.lock_account(-1) is False


# -- the signing secret --------------------------------------------------------------


async def test_the_first_secret_is_kept_and_a_rotation_keeps_the_previous_one_for_a_while(
    backend: Backend,
) -> None:
    first, second, third = new_webhook_secret(), new_webhook_secret(), new_webhook_secret()
    async with backend.uow() as tx:
        account = await add_account(tx)
        assert await tx.webhooks.secret(account.id) is None
        stored = await tx.webhooks.add_secret(account.id, first, T0)
        assert (stored.account_id, stored.secret, stored.created_at) == (account.id, first, T0)
        assert (stored.previous_secret, stored.previous_until, stored.rotated_at) == (None, None, None)
        assert await tx.webhooks.add_secret(account.id, second, T0 + timedelta(hours=1)) == stored
        await tx.commit()

    rotated_at, until = T0 + timedelta(days=1), T0 + timedelta(days=2)
    async with backend.uow() as tx:
        assert await tx.webhooks.secret(account.id) == stored
        rotated = await tx.webhooks.rotate_secret(account.id, third, rotated_at, until)
        assert rotated == dataclasses.replace(
            stored, secret=third, previous_secret=first, previous_until=until, rotated_at=rotated_at
        )
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.webhooks.secret(account.id) == rotated
        assert await tx.webhooks.add_secret(account.id, second, T0) == rotated


async def test_rotating_without_a_secret_stores_a_first_one(backend: Backend) -> None:
    secret = new_webhook_secret()
    async with backend.uow() as tx:
        account = await add_account(tx)
        stored = await tx.webhooks.rotate_secret(account.id, secret, T0, T0 + timedelta(days=1))
        assert (stored.secret, stored.created_at, stored.previous_secret, stored.rotated_at) == (
            secret,
            T0,
            None,
            None,
        )
        assert await tx.webhooks.secret(account.id) == stored


async def test_a_secret_of_a_missing_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.webhooks.add_secret(-1, new_webhook_secret(), T0)


# -- deliveries ----------------------------------------------------------------------


def _delivery(webhook: Webhook, status: DeliveryStatus, created_s: int) -> Delivery:
    created_at = T0 + timedelta(seconds=created_s)
    pending = status is DeliveryStatus.PENDING
    return Delivery(
        id=0,
        message_id="msg_" + uuid.uuid4().hex,
        webhook_id=webhook.id,
        account_id=webhook.account_id,
        event_type=webhook.event_type,
        url=webhook.url,
        status=status,
        attempts=0 if pending else 3,
        created_at=created_at,
        next_attempt_at=FAR if pending else None,  # never due for the run's notifiers
        last_attempt_at=None if pending else created_at + timedelta(seconds=1),
        last_status_code=None if pending else 500,
        last_error=None if pending else "HTTP 500",
        finished_at=None if pending else created_at + timedelta(seconds=2),
    )


async def _seed(backend: Backend, *deliveries: Delivery) -> list[Delivery]:
    return [dataclasses.replace(d, id=await backend.seed_delivery(d)) for d in deliveries]


async def _deliveries_of(tx: UnitOfWork, account_id: int, **kwargs: object) -> list[int]:
    return [d.id for d in await tx.webhooks.deliveries(account_id, **kwargs)]  # type: ignore[arg-type]


async def test_deliveries_read_back_newest_first_filtered_by_status(backend: Backend) -> None:
    account, webhook = await _registered(backend)
    old, failed, newer, pending = await _seed(
        backend,
        _delivery(webhook, DeliveryStatus.DELIVERED, 10),
        _delivery(webhook, DeliveryStatus.FAILED, 20),
        _delivery(webhook, DeliveryStatus.DELIVERED, 30),
        _delivery(webhook, DeliveryStatus.PENDING, 40),
    )
    async with backend.uow() as tx:
        other = await add_account(tx)
        assert await tx.webhooks.get_delivery(account, failed.id) == failed
        assert await tx.webhooks.get_delivery(account, pending.id) == pending
        assert await tx.webhooks.get_delivery(other.id, failed.id) is None
        assert await tx.webhooks.get_delivery(account, -1) is None

        assert await tx.webhooks.deliveries(account, limit=10) == [pending, newer, failed, old]
        assert await _deliveries_of(tx, account, limit=2) == [pending.id, newer.id]
        delivered = await _deliveries_of(tx, account, limit=10, status=DeliveryStatus.DELIVERED)
        assert delivered == [newer.id, old.id]
        assert await tx.webhooks.deliveries(other.id, limit=10) == []


async def test_a_finished_delivery_is_requeued_and_a_pending_one_is_due_at_once(backend: Backend) -> None:
    account, webhook = await _registered(backend)
    failed, pending = await _seed(
        backend, _delivery(webhook, DeliveryStatus.FAILED, 10), _delivery(webhook, DeliveryStatus.PENDING, 20)
    )
    async with backend.uow() as tx:
        other = await add_account(tx)
        requeued = await tx.webhooks.requeue_delivery(account, failed.id, FAR)
        assert requeued == dataclasses.replace(
            failed, status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=FAR, finished_at=None
        )
        assert await tx.webhooks.get_delivery(account, failed.id) == requeued
        # A pending one waiting for its retry (due at FAR) becomes due at the moment given, its
        # attempts kept; a moment later than the one it waits for changes nothing.
        sooner = FAR - timedelta(days=1)
        assert await tx.webhooks.requeue_delivery(account, pending.id, FAR + timedelta(days=1)) == pending
        due = await tx.webhooks.requeue_delivery(account, pending.id, sooner)
        assert due == dataclasses.replace(pending, next_attempt_at=sooner)
        assert await tx.webhooks.requeue_delivery(other.id, failed.id, FAR) is None
        assert await tx.webhooks.requeue_delivery(other.id, pending.id, FAR) is None
        assert await tx.webhooks.requeue_delivery(account, -1, FAR) is None
        assert await tx.webhooks.get_delivery(account, pending.id) == due
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.webhooks.get_delivery(account, failed.id) == requeued
        assert await tx.webhooks.get_delivery(account, pending.id) == due
