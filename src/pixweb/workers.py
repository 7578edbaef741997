"""Background loops of the API process: settlement (and, later, delivery).

A loop runs until its stop event is set; an error in one round is logged and
the next round goes on. Any number of processes may run these loops against
one database: the use cases lock what they finish (SKIP LOCKED).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from pixcore.accounts.sessions import LIFETIME
from pixcore.charges.cob_service import sweep_expired_charges
from pixcore.group_commit.settlement import settle_in_groups
from pixcore.refunds.refund_service import process_due_refunds
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.availability import FailureStreak
from pixinfra.postgres.pool import Database
from pixweb.services import Services

__all__ = [
    "IDEMPOTENCY_KEEP",
    "SESSIONS_KEEP",
    "purge_console_sessions",
    "purge_idempotency_keys",
    "settlement_loop",
]

log = logging.getLogger("pixweb.workers")

IDEMPOTENCY_KEEP = timedelta(hours=25)  # the promise is 24 hours; an hour's margin
SESSIONS_KEEP = LIFETIME + timedelta(days=30)
"""A console session's row is kept 30 days after it can last be used (for ``session list``)."""
PURGE_EVERY = 600  # rounds
SWEEP_EVERY = 10  # rounds: expired charges are persisted within about a second
MAX_BACKOFF = 2.0  # seconds between rounds at most while rounds fail


async def purge_idempotency_keys(database: Database) -> int:
    """Forget idempotency keys stored more than ``IDEMPOTENCY_KEEP`` ago; returns how many.

    Age is real time, by the database's clock (``stored_at``), not the service clock: a move of the
    sandbox clock must not forget a key its client may still retry with, or the retry would send
    the money a second time. (The sandbox clock only moves forward, so by it a key is always at
    least as old as by real time.)
    """
    async with database.acquire() as conn:
        status = await conn.execute(
            "DELETE FROM idempotency_keys WHERE stored_at < now() - $1::interval", IDEMPOTENCY_KEEP
        )
    return int(status.split()[-1])


async def purge_console_sessions(database: Database) -> int:
    """Delete the rows of console sessions signed in more than ``SESSIONS_KEEP`` ago (over for 30
    days at least, whatever ended them); returns how many. By the database's clock: sessions are
    timed by the wall clock, never the sandbox's."""
    async with database.acquire() as conn:
        status = await conn.execute(
            "DELETE FROM console_sessions WHERE created_at < now() - $1::interval", SESSIONS_KEEP
        )
    return int(status.split()[-1])


async def settlement_loop(
    services: Services,
    stop: asyncio.Event,
    *,
    interval: float = 0.1,
    settle_with: UnitOfWorkFactory | None = None,
) -> None:
    """Settle, process refunds, sweep charges and purge keys until ``stop`` is set.

    ``settle_with`` is the unit of work transfers are settled in (default ``services.uow``); the
    app passes one that counts the transfers it finishes (``pixweb.observability.settlement``).
    Due transfers are settled up to ``PIX_TRANSFER_BATCH_SIZE`` in one transaction
    (``pixcore.group_commit.settlement``).

    A failed round is logged and retried; while the database is unreachable the wait between
    rounds doubles up to ``MAX_BACKOFF`` seconds (one warning per outage, not one per round),
    and the pool reconnects by itself once the server is back.
    """
    rounds = 0
    failures = FailureStreak(log, "settlement", most=MAX_BACKOFF)
    while not stop.is_set():
        finished = 0
        try:
            await services.keeper.refresh()
            finished = await settle_in_groups(
                settle_with or services.uow, services.clock, size=services.settings.transfer_batch_size
            )
            finished += await process_due_refunds(services.uow, services.clock)
            if rounds % SWEEP_EVERY == 0:
                await sweep_expired_charges(services.uow, services.clock)
            if rounds % PURGE_EVERY == 0:
                await purge_idempotency_keys(services.database)
                await purge_console_sessions(services.database)
        except Exception as exc:  # noqa: BLE001 - logged by the streak, with its traceback if unexpected
            failures.failed(exc)
        else:
            failures.succeeded()
        rounds += 1
        if finished == 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=failures.pause(interval))
