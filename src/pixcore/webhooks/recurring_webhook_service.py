"""The standard's webhooks of Pix Automático: ``PUT``, ``GET`` and ``DELETE /webhookrec`` and
``/webhookcobr``.

Each is a registration of the account of type ``rec`` or ``cobr`` (``EventType.REC``,
``EventType.COBR``), at most one active of each per account; a new ``PUT`` replaces it. Every
change of status of the account's recurrences (REC) or recurring charges (COBR) is POSTed to
``{webhookUrl}/rec`` or ``{webhookUrl}/cobr`` (the document's callbacks) as ``{"recs": [...]}`` or
``{"cobsr": [...]}``, by the same outbox, notifier, signature and retries as every webhook.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pixcore.clock import Clock
from pixcore.errors import AccountNotFound, InvalidWebhook, WebhookNotFound
from pixcore.problems import Field, Problem
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.key_webhook_service import REPLACED
from pixcore.webhooks.ports import HostResolver
from pixcore.webhooks.rules import (
    EventType,
    NewWebhook,
    Webhook,
    WebhookUrl,
    new_webhook_secret,
    parse_webhook_url,
    standard_target,
)
from pixcore.webhooks.webhook_service import DEACTIVATED_BY_CLIENT, check_host

__all__ = [
    "CALLBACK_SUFFIX",
    "RecurringWebhookField",
    "RecurringWebhookRequest",
    "delete_recurring_webhook",
    "parse_recurring_webhook",
    "read_recurring_webhook",
    "set_recurring_webhook",
]

CALLBACK_SUFFIX = {EventType.REC: "/rec", EventType.COBR: "/cobr"}
"""What each callback adds to the ``webhookUrl`` (``{webhookUrl}/rec``, ``{webhookUrl}/cobr``)."""


class RecurringWebhookField(Field):
    """The field of ``PUT /webhookrec`` and ``PUT /webhookcobr``."""

    URL = enum.auto()


@dataclass(frozen=True, slots=True)
class RecurringWebhookRequest:
    """A valid ``PUT /webhookrec`` or ``/webhookcobr``: which, the URL given and where to POST."""

    kind: EventType
    url: WebhookUrl
    target: WebhookUrl


def _kind(kind: EventType) -> EventType:
    if kind not in CALLBACK_SUFFIX:
        raise ValueError(f"{kind} is not a webhook of Pix Automático")
    return kind


def parse_recurring_webhook(
    kind: EventType, *, webhook_url: str, allow_http: bool = False
) -> RecurringWebhookRequest:
    """The 400 rule of the body (the URL, ``InvalidWebhook`` naming it)."""
    try:
        url = parse_webhook_url(webhook_url, allow_http=allow_http)
        target = standard_target(url, CALLBACK_SUFFIX[_kind(kind)])
    except InvalidWebhook as refused:
        problem = Problem.of(RecurringWebhookField.URL, refused.message)
        raise InvalidWebhook(problems=[problem], summary="Invalid webhook: {}") from None
    return RecurringWebhookRequest(kind, url, target)


async def set_recurring_webhook(
    uow: UnitOfWorkFactory,
    clock: Clock,
    resolver: HostResolver,
    *,
    account_id: int,
    request: RecurringWebhookRequest,
    allow_private: bool,
) -> Webhook:
    """Give the account its webhook of ``request.kind``, replacing the one it had (the same URL
    again changes nothing)."""
    await check_host(resolver, request.target, allow_private=allow_private)
    now = clock.now()
    async with uow() as tx:
        if not await tx.webhooks.lock_account(account_id):  # serialises the account's PUTs
            raise AccountNotFound()
        current = next(iter(await tx.webhooks.active(account_id, request.kind)), None)
        if current is not None and current.webhook_url == request.url.url:
            return current
        if current is not None:
            await tx.webhooks.deactivate(current.id, REPLACED, now)
        webhook = await tx.webhooks.add(
            NewWebhook(
                account_id,
                request.kind,
                request.target.url,
                {},
                now,
                webhook_url=request.url.url,
            )
        )
        await tx.webhooks.add_secret(account_id, new_webhook_secret(), now)
        await tx.commit()
    return webhook


def _not_set(kind: EventType) -> WebhookNotFound:
    return WebhookNotFound(f"The account has no webhook of {kind.value}.")


async def read_recurring_webhook(uow: UnitOfWorkFactory, *, account_id: int, kind: EventType) -> Webhook:
    """The account's active webhook of ``kind``; ``WebhookNotFound`` if it has none."""
    async with uow() as tx:
        webhook = next(iter(await tx.webhooks.active(account_id, _kind(kind))), None)
    if webhook is None:
        raise _not_set(kind)
    return webhook


async def delete_recurring_webhook(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, kind: EventType
) -> None:
    """Deactivate the account's webhook of ``kind``: nothing more is sent to it."""
    async with uow() as tx:
        if not await tx.webhooks.lock_account(account_id):
            raise AccountNotFound()
        webhook = next(iter(await tx.webhooks.active(account_id, _kind(kind))), None)
        if webhook is None:
            raise _not_set(kind)
        await tx.webhooks.deactivate(webhook.id, DEACTIVATED_BY_CLIENT, clock.now())
        await tx.commit()
