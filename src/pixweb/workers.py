"""Background loops of the API process: settlement (and, later, delivery).

A loop runs until its stop event is set; an error in one round is logged and
the next round goes on. Any number of processes may run these loops against
one database: the use cases lock what they finish (SKIP LOCKED).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

from pixcore.accounts.sessions import LIFETIME
from pixcore.charges.cob_service import sweep_expired_charges
from pixcore.clock import Clock
from pixcore.group_commit.settlement import settle_in_groups
from pixcore.network.participant_service import send_due_payments, send_due_refunds
from pixcore.recurrences import run_recurring_charges
from pixcore.refunds.refund_service import process_due_refunds
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.availability import FailureStreak
from pixinfra.postgres.partitions import ensure_partitions
from pixinfra.postgres.pool import Database
from pixinfra.postgres.retention import release_key_days, run_retention
from pixinfra.settings import Settings
from pixweb.services import Services

__all__ = [
    "SESSIONS_KEEP",
    "history_now",
    "keep_partitions",
    "purge_console_sessions",
    "purge_idempotency_keys",
    "retain",
    "settlement_loop",
]

log = logging.getLogger("pixweb.workers")

SESSIONS_KEEP = LIFETIME + timedelta(days=30)
"""A console session's row is kept 30 days after it can last be used (for ``session list``)."""
PURGE_EVERY = 600  # rounds
RETENTION_EVERY = 86_400.0  # seconds between two retention passes (when a PIX_RETENTION_* is set)
SWEEP_EVERY = 10  # rounds: expired charges are persisted within about a second
MAX_BACKOFF = 2.0  # seconds between rounds at most while rounds fail


async def purge_idempotency_keys(database: Database, settings: Settings | None = None) -> list[str]:
    """Let go the days of idempotency keys whose every key was stored more than
    ``PIX_RETENTION_IDEMPOTENCY_KEYS`` hours ago (default and least: 25; ``settings`` None: the
    default): each day's partition detached, then dropped or kept aside by ``PIX_RETENTION_ACTION``.
    Returns the partitions let go. A key older than ``IDEMPOTENCY_WINDOW`` is no longer honoured
    anyway, whatever is kept (``pixinfra.persistence.idempotency``).

    Age is real time, by the database's clock (``stored_at``), not the service clock: a move of the
    sandbox clock must not forget a key its client may still retry with, or the retry would send
    the money a second time.
    """
    async with database.acquire() as conn:
        released = await _release_keys(conn, settings or Settings())
    return [each["partition"] for each in released]


async def _release_keys(conn: Any, settings: Settings, *, dry_run: bool = False) -> list[dict[str, Any]]:
    """:func:`release_key_days` on the settings, by the database's clock."""
    kept = timedelta(hours=settings.retention_idempotency_hours)
    database_now: datetime = await conn.fetchval("SELECT now()")
    return await release_key_days(conn, kept, settings.retention_action, database_now, dry_run=dry_run)


async def history_now(conn: Any, clock: Clock) -> datetime:
    """The later of the database's clock and the service clock: the moment the history's passes
    (months ahead, retention) go by, since a row's time comes from the service clock, which the
    sandbox may move forward."""
    database_now: datetime = await conn.fetchval("SELECT now()")
    return max(database_now, clock.now())


async def keep_partitions(database: Database, clock: Clock) -> list[str]:
    """The history tables' months up to two past :func:`history_now`
    (``pixinfra.postgres.partitions``); returns the partitions made."""
    async with database.acquire() as conn:
        made = await ensure_partitions(conn, await history_now(conn, clock))
    if made:
        log.info("history partitions created: %s", ", ".join(made))
    return made


async def retain(
    database: Database, clock: Clock, settings: Settings, *, dry_run: bool = False
) -> dict[str, Any]:
    """One retention pass on the settings (``PIX_RETENTION_*``) at :func:`history_now`, and the
    idempotency keys' days by the database's clock (:func:`purge_idempotency_keys`)."""
    async with database.acquire() as conn:
        now = await history_now(conn, clock)
        report = await run_retention(
            conn, dict(settings.retention_months), settings.retention_action, now, dry_run=dry_run
        )
        report["released"] += await _release_keys(conn, settings, dry_run=dry_run)
        return report


async def retention_pass(services: Services) -> dict[str, Any]:
    """The settlement loop's retention pass (:func:`retain`); its report is logged."""
    report = await retain(services.database, services.clock, services.settings)
    log.info("retention pass", extra={"released": report["released"], "refused": report["refused"]})
    return report


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
    """Settle, process refunds, sweep charges, run the sandbox payer's bank's recurring debits
    (``pixcore.recurrences.run_recurring_charges``), make the history's months ahead
    (:func:`keep_partitions`), let old months go (:func:`retention_pass`, daily, when a
    ``PIX_RETENTION_*`` is set) and purge keys until ``stop`` is set.

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
    loop = asyncio.get_running_loop()
    retention_due = loop.time() if services.settings.retention_months else float("inf")
    while not stop.is_set():
        finished = 0
        try:
            await services.keeper.refresh()
            finished = await settle_in_groups(
                settle_with or services.uow, services.clock, size=services.settings.transfer_batch_size
            )
            if services.network is not None:
                finished += await send_due_payments(
                    settle_with or services.uow, services.clock, services.network.spi
                )
            if services.network is None:
                finished += await process_due_refunds(services.uow, services.clock)
            else:  # refunds of payments received through the network go back through its SPI
                finished += await send_due_refunds(services.uow, services.clock, services.network.spi)
            if rounds % SWEEP_EVERY == 0:
                await sweep_expired_charges(services.uow, services.clock)
                await run_recurring_charges(services.uow, services.clock)
            if rounds % PURGE_EVERY == 0:
                await keep_partitions(services.database, services.clock)
            if loop.time() >= retention_due:
                retention_due = loop.time() + RETENTION_EVERY
                await retention_pass(services)
            if rounds % PURGE_EVERY == 0:
                await purge_idempotency_keys(services.database, services.settings)
                await purge_console_sessions(services.database)
        except Exception as exc:  # noqa: BLE001 - logged by the streak, with its traceback if unexpected
            failures.failed(exc)
        else:
            failures.succeeded()
        rounds += 1
        if finished == 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=failures.pause(interval))
