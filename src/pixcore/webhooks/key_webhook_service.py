"""Webhooks per key, the standard's ``/webhook`` (docs/decisions/key-webhooks.md).

A key's webhook is a registration of the account of type PIX (``EventType.PIX``) for one of its
keys: at most one active per key, a new ``PUT`` replaces it. Each PIX received on the key after
the registration (``pixcore.transfers.receipt_service.credit_receipt`` writes the PIX event) is POSTed to
``{webhookUrl}/pix`` as ``{"pix": [<Pix>]}``, by the same outbox, notifier, signature, retries,
attempt log and replay as the registrations of ``/api/webhooks`` (which never list these).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pixcore.clock import Clock
from pixcore.errors import AccountNotFound, InvalidPixKey, InvalidWebhook, WebhookNotFound
from pixcore.keys import PixKey, parse_pix_key
from pixcore.problems import Field, Problem
from pixcore.queries.standard import WebhookQuery
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.validation import collect
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
    "REPLACED",
    "KeyWebhookField",
    "KeyWebhookListing",
    "KeyWebhookRequest",
    "delete_key_webhook",
    "list_key_webhooks",
    "parse_key_webhook",
    "read_key_webhook",
    "set_key_webhook",
]

REPLACED = "replaced"
"""Why a key's webhook went inactive when a ``PUT`` gave the key another URL."""


class KeyWebhookField(Field):
    """The fields of ``PUT /webhook/{chave}``, as :func:`parse_key_webhook` names them."""

    KEY = enum.auto()
    URL = enum.auto()


_NOT_YOURS = Problem.of(KeyWebhookField.KEY, "not a key of this account")


@dataclass(frozen=True, slots=True)
class KeyWebhookRequest:
    """A valid ``PUT /webhook/{chave}``: the key, the URL as given (normalised) and where to POST."""

    key: PixKey
    url: WebhookUrl
    target: WebhookUrl


def _webhook_url(raw: str, allow_http: bool) -> tuple[WebhookUrl, WebhookUrl]:
    url = parse_webhook_url(raw, allow_http=allow_http)
    return url, standard_target(url)


def parse_key_webhook(*, key: str, webhook_url: str, allow_http: bool = False) -> KeyWebhookRequest:
    """Every 400 rule of ``PUT /webhook/{chave}``'s path and body, at once (``InvalidWebhook``)."""
    problems: list[Problem] = []
    parsed = collect(problems, KeyWebhookField.KEY, lambda: parse_pix_key(key))
    urls = collect(problems, KeyWebhookField.URL, lambda: _webhook_url(webhook_url, allow_http))
    if problems or parsed is None or urls is None:
        raise InvalidWebhook(problems=problems, summary="Invalid webhook: {}")
    return KeyWebhookRequest(parsed, *urls)


async def set_key_webhook(
    uow: UnitOfWorkFactory,
    clock: Clock,
    resolver: HostResolver,
    *,
    account_id: int,
    request: KeyWebhookRequest,
    allow_private: bool,
) -> Webhook:
    """Give one of the account's keys its webhook, replacing the one it had (the same URL again
    changes nothing). A key that is not the account's is ``InvalidWebhook`` (the standard's 400)."""
    await check_host(resolver, request.target, allow_private=allow_private)
    now = clock.now()
    async with uow() as tx:
        if not await tx.webhooks.lock_account(account_id):  # serialises PUTs of the account's keys
            raise AccountNotFound()
        if await tx.keys.owner_of(request.key) != account_id:
            raise InvalidWebhook("The key is not a key of this account.", problems=[_NOT_YOURS])
        current = await tx.webhooks.of_key(account_id, request.key.value)
        if current is not None and current.webhook_url == request.url.url:
            return current
        if current is not None:
            await tx.webhooks.deactivate(current.id, REPLACED, now)
        webhook = await tx.webhooks.add(
            NewWebhook(
                account_id,
                EventType.PIX,
                request.target.url,
                {},
                now,
                pix_key=request.key.value,
                webhook_url=request.url.url,
            )
        )
        await tx.webhooks.add_secret(account_id, new_webhook_secret(), now)
        await tx.commit()
    return webhook


def _key_value(key: str) -> str:
    """The canonical form of a path's key; a text that is no key names no webhook (404)."""
    try:
        return parse_pix_key(key).value
    except InvalidPixKey:
        raise WebhookNotFound("No webhook for this key.") from None


async def read_key_webhook(uow: UnitOfWorkFactory, *, account_id: int, key: str) -> Webhook:
    """The active webhook of one of the account's keys; ``WebhookNotFound`` if it has none (another
    account's key never has one here)."""
    value = _key_value(key)
    async with uow() as tx:
        webhook = await tx.webhooks.of_key(account_id, value)
    if webhook is None:
        raise WebhookNotFound("No webhook for this key.")
    return webhook


async def delete_key_webhook(uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, key: str) -> None:
    """Deactivate the webhook of one of the account's keys: nothing more is sent to it (its pending
    deliveries fail without an attempt). ``WebhookNotFound`` if the key has none."""
    value = _key_value(key)
    async with uow() as tx:
        if not await tx.webhooks.lock_account(account_id):
            raise AccountNotFound()
        webhook = await tx.webhooks.of_key(account_id, value)
        if webhook is None:
            raise WebhookNotFound("No webhook for this key.")
        await tx.webhooks.deactivate(webhook.id, DEACTIVATED_BY_CLIENT, clock.now())
        await tx.commit()


@dataclass(frozen=True, slots=True)
class KeyWebhookListing:
    """A page of ``GET /webhook``: ``total`` matches in all."""

    total: int
    webhooks: tuple[Webhook, ...]


async def list_key_webhooks(
    uow: UnitOfWorkFactory, *, account_id: int, query: WebhookQuery
) -> KeyWebhookListing:
    """``GET /webhook``: the account's active key webhooks created in the window, oldest first."""
    async with uow() as tx:
        total, webhooks = await tx.webhooks.of_keys(
            account_id, start=query.start, end=query.end, offset=query.page.offset, limit=query.page.size
        )
    return KeyWebhookListing(total, tuple(webhooks))
