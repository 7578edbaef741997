"""``PostgresLedger``'s own guarded UPDATE refuses an overdraft, alone and under a race.

Every posting here goes through the adapter (``uow.ledger.post`` / ``try_post``), never through a
copy of its SQL: deleting the guard ``AND available + $2 >= 0`` (or ``AND blocked + $3 >= 0``)
from the adapter makes these tests fail, because the CHECK constraint behind it answers with
``CheckViolationError`` where the adapter promises ``InsufficientFunds``. The postings are real
(balanced entries), so the books stay sound for the other tests.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg
import pytest

from pixcore import ledger
from pixcore.accounts.accounts_service import get_balance, open_account
from pixcore.accounts.rules import Balance, Counterpart
from pixcore.clock import ManualClock
from pixcore.errors import InsufficientFunds
from pixcore.keys import PixKey, PixKeyType
from pixcore.ledger import Posting
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import PlainHasher
from pixcore.transfers.receipt_service import receive_payment
from pixinfra.persistence.uow import PostgresUnitOfWork
from tests.support import PostgresUnits, random_cpf

pytestmark = pytest.mark.usefixtures("migrated_database")

CLOCK = ManualClock(datetime.now(UTC))
PAYER = Counterpart(name="Outside Payer", document=random_cpf(), ispb="12345678")


async def _funded(pg_uow: PostgresUnits, amount: int) -> int:
    """A new account that received ``amount`` centavos from outside."""
    key = f"{uuid.uuid4().hex}@example.com"
    opened = await open_account(
        pg_uow,
        PlainHasher(),
        ispb="99999999",
        name="Guarded",
        document=random_cpf(),
        city="RECIFE",
        keys=(key,),
    )
    await receive_payment(pg_uow, CLOCK, key=PixKey(PixKeyType.EMAIL, key), amount=amount, payer=PAYER)
    return opened.account.id


async def _record(uow: PostgresUnitOfWork, account_id: int, amount: int) -> int:
    return await uow.transactions.add(
        NewTransaction(
            account_id=account_id,
            type=TransactionType.WITHDRAW,
            status=TransactionStatus.PENDING,
            amount=amount,
            created_at=CLOCK.now(),
        )
    )


async def _post(pg_uow: PostgresUnits, account_id: int, posting: Posting, amount: int) -> None:
    """One unit of work that books ``posting`` and commits, or raises what the adapter raised."""
    async with pg_uow() as uow:
        await uow.ledger.post(await _record(uow, account_id, amount), posting, CLOCK.now())
        await uow.commit()


async def test_post_refuses_a_reservation_above_the_available_balance(pg_uow: PostgresUnits) -> None:
    account_id = await _funded(pg_uow, 100)

    with pytest.raises(InsufficientFunds):
        await _post(pg_uow, account_id, ledger.reserve(account_id, 101), 101)
    assert await get_balance(pg_uow, account_id) == Balance(available=100, blocked=0)

    await _post(pg_uow, account_id, ledger.reserve(account_id, 100), 100)  # the whole balance is allowed
    with pytest.raises(InsufficientFunds):
        await _post(pg_uow, account_id, ledger.reserve(account_id, 1), 1)
    assert await get_balance(pg_uow, account_id) == Balance(available=0, blocked=100)


async def test_post_refuses_taking_more_from_blocked_than_it_holds(pg_uow: PostgresUnits) -> None:
    account_id = await _funded(pg_uow, 100)
    await _post(pg_uow, account_id, ledger.reserve(account_id, 40), 40)

    with pytest.raises(InsufficientFunds):
        await _post(pg_uow, account_id, ledger.release(account_id, 41), 41)

    assert await get_balance(pg_uow, account_id) == Balance(available=60, blocked=40)


async def test_try_post_answers_false_and_leaves_no_entry_and_the_work_goes_on(
    pg_uow: PostgresUnits,
    conn: asyncpg.Connection,
) -> None:
    account_id = await _funded(pg_uow, 100)

    async with pg_uow() as uow:
        refused = await _record(uow, account_id, 101)
        assert await uow.ledger.try_post(refused, ledger.reserve(account_id, 101), CLOCK.now()) is False
        accepted = await _record(uow, account_id, 60)
        assert await uow.ledger.try_post(accepted, ledger.reserve(account_id, 60), CLOCK.now()) is True
        await uow.commit()

    entries = "SELECT count(*) FROM ledger_entries WHERE transaction_id = $1"
    assert await conn.fetchval(entries, refused) == 0
    assert await conn.fetchval(entries, accepted) == 2
    assert await get_balance(pg_uow, account_id) == Balance(available=40, blocked=60)


async def _until_waiting_on_a_lock(conn: asyncpg.Connection, pids: list[int]) -> None:
    """Return once every backend in ``pids`` waits on a lock (polled on the server, no sleeping)."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND wait_event_type = 'Lock'"
    while await conn.fetchval(query, pids) < len(pids):
        pass


async def test_racing_reservations_never_overdraw(pg_uow: PostgresUnits, conn: asyncpg.Connection) -> None:
    """The holder reserves first and keeps the balance row locked until nine racers queue behind
    it; each racer's guarded UPDATE then re-reads the row and sees the money already gone."""
    account_id = await _funded(pg_uow, 100)
    holding, release, queued = asyncio.Event(), asyncio.Event(), asyncio.Event()
    pids: list[int] = []

    async def holder() -> None:
        async with pg_uow() as uow:
            await uow.ledger.post(
                await _record(uow, account_id, 30), ledger.reserve(account_id, 30), CLOCK.now()
            )
            holding.set()
            await release.wait()
            await uow.commit()

    async def racer() -> None:
        async with pg_uow() as uow:
            transaction_id = await _record(uow, account_id, 30)
            pids.append(uow.connection.get_server_pid())
            if len(pids) == 9:
                queued.set()
            await uow.ledger.post(transaction_id, ledger.reserve(account_id, 30), CLOCK.now())
            await uow.commit()

    async with asyncio.timeout(30):
        # Tasks of their own, so that no racer starts inside the holder's unit of work.
        held = asyncio.create_task(holder())
        await holding.wait()
        racers = [asyncio.create_task(racer()) for _ in range(9)]
        await queued.wait()
        await _until_waiting_on_a_lock(conn, pids)
        release.set()
        await held
        outcomes = await asyncio.gather(*racers, return_exceptions=True)

    refused = [outcome for outcome in outcomes if isinstance(outcome, InsufficientFunds)]
    assert (outcomes.count(None), len(refused)) == (2, 7), outcomes
    assert await get_balance(pg_uow, account_id) == Balance(available=10, blocked=90)
