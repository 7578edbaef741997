"""Webhooks seen from the account: registrations, the signing secret, and the deliveries' state.
Sending the notifications is the notifier's business (``pixnotify``).

Registration takes a per-account lock before it counts the active URLs of the
event type, so the 3-URL limit holds whatever the number of concurrent requests.
The URL's host is resolved before the unit of work opens: no request holds a
database connection while it waits for DNS.
"""

from __future__ import annotations

import secrets as token
from dataclasses import dataclass

from pixcore.clock import Clock
from pixcore.errors import (
    AccountNotFound,
    DeliveryNotFound,
    ValidationError,
    WebhookHostRefused,
    WebhookInactive,
    WebhookLimitReached,
    WebhookNotFound,
)
from pixcore.identifiers import validate_e2eid_path
from pixcore.problems import Problem
from pixcore.queries.rules import parse_date_bounds
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory
from pixcore.webhooks.ports import HostResolver, Ping, ProbeResult, WebhookProbe
from pixcore.webhooks.rules import (
    ALLOW_PRIVATE_VARIABLE,
    MAX_ACTIVE_URLS,
    SECRET_GRACE,
    Delivery,
    DeliveryDetail,
    DeliveryField,
    DeliveryFilter,
    DeliveryStatus,
    EventType,
    NewWebhook,
    Registration,
    Webhook,
    WebhookField,
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
    "delivery_filter",
    "get_delivery_detail",
    "get_webhook_secret",
    "list_deliveries",
    "list_webhooks",
    "register_webhook",
    "replay_delivery",
    "rotate_webhook_secret",
    "send_test_event",
]

DEACTIVATED_BY_CLIENT = "deleted_by_client"
DEFAULT_DELIVERY_LIMIT = 20
MAX_DELIVERY_LIMIT = 100
_MAX_ID = 2**63 - 1  # ids are bigint: a larger one names nothing
_NOT_PUBLIC = Problem.of(WebhookField.URL, "the host must resolve, and only to public addresses")
_PLAIN_PUBLIC = Problem.of(WebhookField.URL, "http:// is only for loopback and private hosts")


@dataclass(frozen=True, slots=True)
class Registered:
    webhook: Webhook
    created: bool  # False when an active registration of the same URL was updated


def _refused(why: str, told: Problem) -> WebhookHostRefused:
    """The refusal of a webhook's host: ``why`` for the log and the message, ``told`` the detail
    (the same for every private host, so that it tells nobody which internal names exist)."""
    return WebhookHostRefused(Problem.of(WebhookField.URL, why), problems=[told])


async def check_host(resolver: HostResolver, url: WebhookUrl, *, allow_private: bool) -> None:
    """Refuse a host that is, or resolves to, a non-public address (unless ``allow_private``),
    and a host that does not resolve at all; refuse a plain ``http://`` URL unless its host is
    loopback or private (only ever with ``allow_private``: a public host needs ``https://``).

    Whether a name did not resolve or resolved to a private address gets the same
    answer, so that the API tells nobody which internal names exist. Each refusal that
    ``PIX_WEBHOOK_ALLOW_PRIVATE`` would lift names it.
    """
    if not url.secure and not allow_private:  # parse_webhook_url refuses it first; never rely on that
        raise _refused(f"http:// needs {ALLOW_PRIVATE_VARIABLE}", _NOT_PUBLIC)
    hint = f" ({ALLOW_PRIVATE_VARIABLE} is off on this server)"
    if url.address is not None:
        found = [str(url.address)]
        if not allow_private and refused_addresses(found):
            raise _refused(f"{url.address} is not a public address{hint}", _NOT_PUBLIC)
    elif url.is_local_name:
        if not allow_private:
            raise _refused(f"{url.host} is not a public host{hint}", _NOT_PUBLIC)
        found = []  # this machine, whatever a resolver says
    else:
        found = await resolver.resolve(url.host, url.port)
        if not found or (not allow_private and refused_addresses(found)):
            raise _refused(f"{url.host} does not resolve to public addresses only{hint}", _NOT_PUBLIC)
    if not url.secure and len(refused_addresses(found)) < len(found):
        raise _refused(
            f"{url.host} is a public host: http:// is only for loopback and private hosts, use https://",
            _PLAIN_PUBLIC,
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


def delivery_filter(
    *,
    webhook_id: int | None = None,
    status: DeliveryStatus | None = None,
    event_type: EventType | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    end_to_end_id: str | None = None,
) -> DeliveryFilter:
    """The filters of the deliveries list; ``startDate``/``endDate`` as on the transaction lists
    (``InvalidQuery`` for a date that is not one, or an end before the start)."""
    if webhook_id is not None and not 1 <= webhook_id <= _MAX_ID:
        raise ValidationError(Problem.of(DeliveryField.WEBHOOK, f"must be 1 to {_MAX_ID}"))
    first, last = parse_date_bounds(start_date, end_date)
    if end_to_end_id is not None:
        validate_e2eid_path(end_to_end_id)
    return DeliveryFilter(
        webhook_id=webhook_id,
        status=status,
        event_type=event_type,
        created_from=first,
        created_to=last,
        end_to_end_id=end_to_end_id,
    )


async def list_deliveries(
    uow: UnitOfWorkFactory,
    *,
    account_id: int,
    limit: int = DEFAULT_DELIVERY_LIMIT,
    status: DeliveryStatus | None = None,
    filters: DeliveryFilter | None = None,
) -> list[Delivery]:
    """The account's most recent deliveries, newest first (at most ``limit``, 1 to 100)."""
    if not 1 <= limit <= MAX_DELIVERY_LIMIT:
        raise ValidationError(Problem.of(DeliveryField.LIMIT, f"must be 1 to {MAX_DELIVERY_LIMIT}"))
    async with uow() as tx:
        await _require_account(tx, account_id)
        return await tx.webhooks.deliveries(account_id, limit=limit, status=status, filters=filters)


async def get_delivery_detail(uow: UnitOfWorkFactory, *, account_id: int, delivery_id: int) -> DeliveryDetail:
    """One delivery of the account with the notification sent and every attempt, oldest first;
    an unknown id or another account's is ``DeliveryNotFound``."""
    if not 1 <= delivery_id <= _MAX_ID:
        raise DeliveryNotFound()
    async with uow() as tx:
        detail = await tx.webhooks.delivery_detail(account_id, delivery_id)
    if detail is None:
        raise DeliveryNotFound()
    return detail


async def replay_delivery(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, delivery_id: int
) -> Delivery:
    """Attempt a delivery now: a finished (delivered or failed) one is pending again with its
    attempts reset; a pending one waiting for its next retry is due now, its attempts kept. The
    same message id either way (receivers deduplicate on it).

    One whose registration is deactivated is ``WebhookInactive``; another account's is
    ``DeliveryNotFound``.
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
            raise DeliveryNotFound()
        await tx.commit()
    return requeued


async def send_test_event(
    uow: UnitOfWorkFactory, clock: Clock, probe: WebhookProbe, *, account_id: int, webhook_id: int
) -> ProbeResult:
    """Send, now, a signed test event (a PING) to one of the account's active registrations, with
    its headers; once, never retried, nothing stored. An unknown, inactive or another account's
    registration is ``WebhookNotFound``."""
    if not 1 <= webhook_id <= _MAX_ID:
        raise WebhookNotFound()
    now = clock.now()
    async with uow() as tx:
        webhook = await tx.webhooks.get(account_id, webhook_id)
        if webhook is None or not webhook.is_active:
            raise WebhookNotFound()
        secret = await tx.webhooks.secret(account_id)
        if secret is None:
            secret = await tx.webhooks.add_secret(account_id, new_webhook_secret(), now)
            await tx.commit()
    # The database connection is given back before the request: a slow receiver holds none.
    keys = [secret.secret]
    if secret.previous_secret and secret.previous_until and secret.previous_until > now:
        keys.append(secret.previous_secret)
    return await probe.send(
        url=webhook.url,
        headers=webhook.headers,
        secrets=keys,
        msg_id=f"msg_test_{webhook_id}_{token.token_hex(8)}",
        event=Ping(webhook_id, now),
    )
