"""Settlement in groups (docs/decisions/settlement-groups.md): the due transfers of a round posted a
group at a time.

Settling one transfer is one unit of work (:func:`~pixcore.transfers.transfer_service.settle_transfer`);
a hot account's transfers then queue for its balance row one COMMIT at a time, as its requests
did before group commit. :func:`settle_in_groups` takes the round's due transfers in groups of up to
``size`` and finishes each group in ONE unit of work:

1. the group's transfers are locked with one statement (``FOR UPDATE SKIP LOCKED``, as one by one:
   a transfer another worker holds, or finished meanwhile, is left out and never finished twice);
2. each is decided as alone (:func:`~pixcore.transfers.transfer_service.outcome`: its deadline passed,
   the receiving side refuses, or it settles), its state moved by its own lifecycle;
3. the receivers' PAYMENT records (internal transfers), every ledger posting (one guarded UPDATE
   per account for the sum, in account order), the records' statuses, the transfers' states and
   the TRANSFER and RECEIVE events are written with one statement each, one COMMIT.

If the group's unit of work fails for any reason (a guard refusing a sum, a deadlock, a lost
connection), it rolls back whole and its transfers are settled one by one on the ungrouped path,
each in its own unit of work: none is lost, none is finished twice. ``size`` 1 is the ungrouped
path itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from pixcore import ledger
from pixcore.accounts.rules import Account, Counterpart
from pixcore.clock import Clock
from pixcore.errors import AccountNotFound
from pixcore.events import Event
from pixcore.ledger import Posting
from pixcore.records import NewTransaction, TransactionStatus, Transfer
from pixcore.transfers.receipt_service import payment_record, receive_event
from pixcore.transfers.rules import TransferLifecycle, TransferState
from pixcore.transfers.transfer_service import outcome, settle_due, settle_transfer, transfer_event
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = ["settle_in_groups"]

log = logging.getLogger(__name__)


async def settle_in_groups(uow: UnitOfWorkFactory, clock: Clock, *, size: int, limit: int = 100) -> int:
    """Settle or fail every transfer whose time has come, up to ``size`` in one unit of work;
    returns how many were finished. Any number of workers may run this at once."""
    if size < 1:
        raise ValueError("a group holds at least one transfer")
    if size == 1:
        return await settle_due(uow, clock, limit=limit)
    async with uow() as tx:
        ids = await tx.transfers.due(clock.now(), limit)
    finished = 0
    for start in range(0, len(ids), size):
        finished += await _settle_group(uow, clock, ids[start : start + size])
    return finished


async def _settle_group(uow: UnitOfWorkFactory, clock: Clock, ids: Sequence[int]) -> int:
    try:
        return await _commit(uow, clock, ids)
    except Exception:  # any failure of the group: each transfer gets its own chance
        log.warning("a batch of %d due transfers failed; settling them one by one", len(ids), exc_info=True)
    finished = 0
    for transaction_id in ids:
        finished += await settle_transfer(uow, clock, transaction_id)
    return finished


async def _commit(uow: UnitOfWorkFactory, clock: Clock, ids: Sequence[int]) -> int:
    now = clock.now()
    async with uow() as tx:
        locked = await tx.transfers.lock_pending_many(ids)
        due = [t for t in locked if now >= t.settle_after or now >= t.deadline]
        if not due:
            return 0
        await _finish_all(tx, due, now)
        await tx.commit()
    return len(due)


async def _finish_all(tx: UnitOfWork, transfers: Sequence[Transfer], now: datetime) -> None:
    """The writes of ``settle_transfer`` for every transfer of the group, one statement each."""
    postings: list[tuple[int, Posting]] = []
    statuses: list[tuple[int, TransactionStatus]] = []
    finished: list[tuple[int, TransferState, str | None]] = []
    events: list[tuple[int, Event]] = []
    internal: list[tuple[Transfer, Counterpart]] = []
    senders: dict[int, Account] = {}
    for transfer in transfers:
        lifecycle = TransferLifecycle(transfer.state)
        tid, sender, amount = transfer.transaction_id, transfer.account_id, transfer.amount
        error = outcome(transfer, now)
        if error is not None:
            postings.append((tid, ledger.release(sender, amount)))
            statuses.append((tid, TransactionStatus.ERROR))
            finished.append((tid, lifecycle.reject(), error.value))
            events.append((sender, transfer_event(transfer, error)))
            continue
        if transfer.receiver_account_id is None:
            postings.append((tid, ledger.settle_out(sender, amount, transfer.creditor_ispb)))
        else:
            postings.append((tid, ledger.settle_in(sender, transfer.receiver_account_id, amount)))
            internal.append((transfer, await _payer(tx, senders, sender)))
        statuses.append((tid, TransactionStatus.CONFIRMED))
        finished.append((tid, lifecycle.settle(), None))
        events.append((sender, transfer_event(transfer)))
    if internal:
        records = [_receiver_record(transfer, payer, now) for transfer, payer in internal]
        payment_ids = await tx.transactions.add_many(records)
        for (transfer, payer), payment_id, record in zip(internal, payment_ids, records, strict=True):
            event = receive_event(
                payment_id, amount=transfer.amount, payer=payer, end_to_end_id=transfer.end_to_end_id
            )
            events.append((record.account_id, event))
    await tx.ledger.post_many(postings, now)
    await tx.transactions.set_status_many(statuses, now)
    await tx.transfers.finish_many(finished, now)
    await tx.outbox.add_each(events, now)


async def _payer(tx: UnitOfWork, senders: dict[int, Account], account_id: int) -> Counterpart:
    """The sender of an internal transfer as its receiver's record names it (looked up once a group)."""
    sender = senders.get(account_id)
    if sender is None:
        sender = await tx.accounts.get(account_id)
        if sender is None:
            raise AccountNotFound()
        senders[account_id] = sender
    return Counterpart(sender.name, sender.document, sender.ispb, "", sender.branch, sender.number)


def _receiver_record(transfer: Transfer, payer: Counterpart, now: datetime) -> NewTransaction:
    """The receiver's PAYMENT record of an internal transfer, as ``credit_receipt`` writes it."""
    if transfer.receiver_account_id is None:
        raise ValueError("not an internal transfer")
    return payment_record(
        account_id=transfer.receiver_account_id,
        amount=transfer.amount,
        payer=payer,
        end_to_end_id=transfer.end_to_end_id,
        at=now,
        pix_key=transfer.pix_key,
        description=transfer.description,
    )
