"""The registrations ``pixnotify listen --account N`` holds while it runs: its own URL for every
event type of the account, made when it starts listening and deactivated when it stops, as
``stripe listen`` does. They are ordinary registrations (``GET /api/webhooks`` lists them), made
and removed through the same use cases as the API's; a listener killed without a chance to clean
up (SIGKILL) leaves them active, and they are deactivated like any other
(``DELETE /api/webhooks/{id}``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import REGISTRABLE, EventType, Registration
from pixcore.webhooks.webhook_service import deactivate_webhook, get_webhook_secret, register_webhook
from pixinfra.dns import SystemResolver
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.clock import ClockKeeper
from pixinfra.runtime import database_ready
from pixinfra.settings import Settings

__all__ = ["account_secret", "register_everything", "unregister"]

T = TypeVar("T")


async def _on_database(
    settings: Settings, work: Callable[[UnitOfWorkFactory, ClockKeeper], Awaitable[T]]
) -> T:
    async with database_ready(settings, pool_size=1) as database:
        keeper = ClockKeeper(SystemClock(), shared=settings.sandbox, database=database)
        await keeper.refresh()  # the service's clock, which the sandbox may have moved
        return await work(lambda: PostgresUnitOfWork(database), keeper)


async def account_secret(settings: Settings, account_id: int) -> str:
    """The account's signing secret (made now if it has none yet), which signs what it is sent."""

    async def read(uow: UnitOfWorkFactory, keeper: ClockKeeper) -> str:
        return (await get_webhook_secret(uow, keeper.clock, account_id=account_id)).secret

    return await _on_database(settings, read)


async def register_everything(
    settings: Settings, account_id: int, url: str, event_types: Sequence[EventType] = REGISTRABLE
) -> list[int]:
    """``url`` registered for each of ``event_types`` (every one by default) of the account; the
    ids of the registrations made here (a type that had ``url`` active already keeps it, and it
    is not among them). A private address is allowed: the listener is on the operator's own
    machine."""

    async def register(uow: UnitOfWorkFactory, keeper: ClockKeeper) -> list[int]:
        made = []
        for event_type in event_types:
            registration = Registration.parse(url=url, event_type=event_type.value, allow_http=True)
            registered = await register_webhook(
                uow,
                keeper.clock,
                SystemResolver(),
                account_id=account_id,
                registration=registration,
                allow_private=True,
            )
            if registered.created:
                made.append(registered.webhook.id)
        return made

    return await _on_database(settings, register)


async def unregister(settings: Settings, account_id: int, webhook_ids: list[int]) -> None:
    """Deactivate the registrations ``register_everything`` made."""

    async def deactivate(uow: UnitOfWorkFactory, keeper: ClockKeeper) -> None:
        for webhook_id in webhook_ids:
            await deactivate_webhook(uow, keeper.clock, account_id=account_id, webhook_id=webhook_id)

    await _on_database(settings, deactivate)
