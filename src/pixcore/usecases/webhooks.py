"""Webhooks seen from the account: registrations, the signing secret, and the deliveries' state
(decisions §9). Sending the notifications is the notifier's business (``pixnotify``).

Registration takes a per-account lock before it counts the active URLs of the
event type, so the 3-URL limit holds whatever the number of concurrent requests.
The URL's host is resolved before the unit of work opens: no request holds a
database connection while it waits for DNS.
"""

from __future__ import annotations

from dataclasses import dataclass

from pixcore.clock import Clock
from pixcore.errors import (
    AccountNotFound,
    DeliveryNotFound,
    DeliveryPending,
    ValidationError,
    WebhookHostRefused,
    WebhookInactive,
    WebhookLimitReached,
    WebhookNotFound,
)
from pixcore.ports import HostResolver, UnitOfWork, UnitOfWorkFactory
from pixcore.webhooks import (
    MAX_ACTIVE_URLS,
    SECRET_GRACE,
    Delivery,
    DeliveryStatus,
    NewWebhook,
    Registration,
    Webhook,
    WebhookSecret,
    WebhookUrl,
    new_webhook_secret,
    refused_addresses,
)

__all__ = [
    "DEACTIVATED_BY_CLIENT",
    "DEFAULT_DELIVERY_LIMIT",
    "MAX_DELIVERY_LIMIT",
    "Registered",
    "check_host",
    "deactivate_webhook",
    "get_webhook_secret",
    "list_deliveries",
    "list_webhooks",
    "register_webhook",
    "replay_delivery",
    "rotate_webhook_secret",
]

DEACTIVATED_BY_CLIENT = "deleted_by_client"
DEFAULT_DELIVERY_LIMIT = 20
MAX_DELIVERY_LIMIT = 100
_MAX_ID = 2**63 - 1  # ids are bigint: a larger one names nothing
_NOT_PUBLIC = "url: the host must resolve, and only to public addresses"


@dataclass(frozen=True, slots=True)
class Registered:
    webhook: Webhook
    created: bool  # False when an active registration of the same URL was updated


async def check_host(resolver: HostResolver, url: WebhookUrl, *, allow_private: bool) -> None:
    """Refuse a host that is, or resolves to, a non-public address (unless ``allow_private``),
    and a host that does not resolve at all.

    Whether a name did not resolve or resolved to a private address gets the same
    answer, so that the API tells nobody which internal names exist.
    """
    if url.address is not None:
        if not allow_private and refused_addresses([str(url.address)]):
            raise WebhookHostRefused(f"url: {url.address} is not a public address", details=[_NOT_PUBLIC])
        return
    if url.is_local_name and not allow_private:
        raise WebhookHostRefused(f"url: {url.host} is not a public host", details=[_NOT_PUBLIC])
    addresses = await resolver.resolve(url.host, url.port)
    if not addresses or (not allow_private and refused_addresses(addresses)):
        raise WebhookHostRefused(
            f"url: {url.host} does not resolve to public addresses only", details=[_NOT_PUBLIC]
        )


async def _require_account(tx: UnitOfWork, account_id: int) -> None:
    if await tx.accounts.get(account_id) is None:
        raise AccountNotFound()


async def register_webhook(
    uow: UnitOfWorkFactory,
    clock: Clock,
    resolver: HostResolver,
    *,
    account_id: int,
    registration: Registration,
    allow_private: bool,
) -> Registered:
    """Register a URL for an event type, or, if it is registered and active for that type,
    replace its headers and bump its version (touching no other URL).

    A new URL beyond the third active one of its type is ``WebhookLimitReached``. The
    account's signing secret is created with its first registration.
    """
    await check_host(resolver, registration.url, allow_private=allow_private)
    now = clock.now()
    url, event_type = registration.url.url, registration.event_type
    async with uow() as tx:
        if not await tx.webhooks.lock_account(account_id):
            raise AccountNotFound()
        active = await tx.webhooks.active(account_id, event_type)
        same = next((webhook for webhook in active if webhook.url == url), None)
        if same is not None:
            webhook = await tx.webhooks.update_headers(same.id, registration.headers, now)
        elif len(active) >= MAX_ACTIVE_URLS:
            raise WebhookLimitReached(
                f"{event_type} has {len(active)} active URLs already, the most allowed: "
                "deactivate one (DELETE /api/webhooks/{id}) first"
            )
        else:
            webhook = await tx.webhooks.add(
                NewWebhook(account_id, event_type, url, registration.headers, now)
            )
        await tx.webhooks.add_secret(account_id, new_webhook_secret(), now)
        await tx.commit()
    return Registered(webhook, created=same is None)


async def list_webhooks(uow: UnitOfWorkFactory, *, account_id: int) -> list[Webhook]:
    """Every registration of the account, deactivated ones included, oldest first."""
    async with uow() as tx:
        await _require_account(tx, account_id)
        return await tx.webhooks.list_for(account_id)


async def deactivate_webhook(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, webhook_id: int
) -> bool:
    """Deactivate one of the account's registrations. True if it was active; False if it was
    deactivated already (nothing changes). Another account's id is ``WebhookNotFound``."""
    if not 1 <= webhook_id <= _MAX_ID:
        raise WebhookNotFound()
    async with uow() as tx:
        if not await tx.webhooks.lock_account(account_id):
            raise AccountNotFound()
        webhook = await tx.webhooks.get(account_id, webhook_id)
        if webhook is None:
            raise WebhookNotFound()
        if not webhook.is_active:
            return False
        await tx.webhooks.deactivate(webhook_id, DEACTIVATED_BY_CLIENT, clock.now())
        await tx.commit()
    return True


async def get_webhook_secret(uow: UnitOfWorkFactory, clock: Clock, *, account_id: int) -> WebhookSecret:
    """The account's signing secret, created on first use."""
    async with uow() as tx:
        secret = await tx.webhooks.secret(account_id)
        if secret is not None:
            return secret
        await _require_account(tx, account_id)
        secret = await tx.webhooks.add_secret(account_id, new_webhook_secret(), clock.now())
        await tx.commit()
    return secret


async def rotate_webhook_secret(uow: UnitOfWorkFactory, clock: Clock, *, account_id: int) -> WebhookSecret:
    """A new signing secret; the old one keeps signing too for ``SECRET_GRACE`` (24 h). A second
    rotation within that time drops the oldest secret: at most two sign at once."""
    now = clock.now()
    async with uow() as tx:
        await _require_account(tx, account_id)
        secret = await tx.webhooks.rotate_secret(account_id, new_webhook_secret(), now, now + SECRET_GRACE)
        await tx.commit()
    return secret


async def list_deliveries(
    uow: UnitOfWorkFactory,
    *,
    account_id: int,
    limit: int = DEFAULT_DELIVERY_LIMIT,
    status: DeliveryStatus | None = None,
) -> list[Delivery]:
    """The account's most recent deliveries, newest first (at most ``limit``, 1 to 100)."""
    if not 1 <= limit <= MAX_DELIVERY_LIMIT:
        raise ValidationError(f"limit: must be 1 to {MAX_DELIVERY_LIMIT}")
    async with uow() as tx:
        await _require_account(tx, account_id)
        return await tx.webhooks.deliveries(account_id, limit=limit, status=status)


async def replay_delivery(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, delivery_id: int
) -> Delivery:
    """Send a finished (delivered or failed) delivery again: pending, due now, attempts reset,
    the same message id (receivers deduplicate on it).

    A pending one is ``DeliveryPending``; one whose registration is deactivated is
    ``WebhookInactive``; another account's is ``DeliveryNotFound``.
    """
    if not 1 <= delivery_id <= _MAX_ID:
        raise DeliveryNotFound()
    async with uow() as tx:
        delivery = await tx.webhooks.get_delivery(account_id, delivery_id)
        if delivery is None:
            raise DeliveryNotFound()
        webhook = await tx.webhooks.get(account_id, delivery.webhook_id)
        if webhook is None or not webhook.is_active:
            raise WebhookInactive()
        requeued = await tx.webhooks.requeue_delivery(account_id, delivery_id, clock.now())
        if requeued is None:
            raise DeliveryPending()
        await tx.commit()
    return requeued
