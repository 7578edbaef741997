"""Sending PIX: create a transfer (reserve its funds), then settle or fail it.

Each step is one unit of work: the balance change, its ledger entries, the
transaction record and (on the outcome) the outbox event commit together or
not at all.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pixcore import ledger
from pixcore.accounts.rules import Counterpart
from pixcore.clock import Clock
from pixcore.errors import (
    AccountNotFound,
    CreditorDocumentMismatch,
    IdempotencyKeyReused,
    IspbDenied,
    KeyNotInDirectory,
    OwnAccountTransfer,
    RuleViolation,
)
from pixcore.events import Holder, TransferEvent
from pixcore.group_commit.ports import TransferReservation
from pixcore.identifiers import new_end_to_end_id
from pixcore.problems import Problem
from pixcore.records import NewTransaction, NewTransfer, TransactionStatus, TransactionType, Transfer
from pixcore.transfers.ports import KeyDirectory
from pixcore.transfers.receipt_service import InternalPayer, credit_receipt
from pixcore.transfers.rules import (
    DirectoryEntry,
    SpiError,
    TransferField,
    TransferLifecycle,
    TransferRequest,
)
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "CreatedTransfer",
    "create_transfer",
    "finish_transfer",
    "outcome",
    "payer_of",
    "request_fingerprint",
    "reservation",
    "reserve_many",
    "settle_due",
    "settle_transfer",
    "transfer_event",
]


@dataclass(frozen=True, slots=True)
class CreatedTransfer:
    transfer: Transfer
    replayed: bool  # True when an earlier request with the same idempotency key made it


def _digest_name(name: str) -> str:
    """``pix_key`` as ``pixKey``: how the digest names a field."""
    first, *others = name.split("_")
    return first + "".join(word.capitalize() for word in others)


def request_fingerprint(request: TransferRequest) -> str:
    """A digest of what the request asks for, to tell a retry from a different request.

    Every field, each named by :func:`_digest_name`, in sorted JSON. The stored idempotency
    records hold digests made this way: another name or form of a value would refuse the retry
    of a request made before the change."""
    fields = {
        "pix_key": request.pix_key.value,
        "amount": request.amount,
        "priority": request.priority.value,
        "expiration": request.expiration,
        "creditor_document": request.creditor_document,
        "description": request.description,
        "ispb_deny": sorted(request.ispb_deny),
        "payment_flow": request.payment_flow,
    }
    canonical = {_digest_name(name): value for name, value in fields.items()}
    return hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()


class _KeyTaken(Exception):
    """The idempotency key was claimed by a concurrent request: replay it."""


async def _replay(
    tx: UnitOfWork, account_id: int, key: uuid.UUID, fingerprint: str
) -> CreatedTransfer | None:
    """The transfer an earlier request with this key made, if any."""
    record = await tx.idempotency.find(account_id, key)
    if record is None:
        return None
    if record.request_hash != fingerprint:
        raise IdempotencyKeyReused(
            Problem.of((), "This {} was used with a different request.", TransferField.IDEMPOTENCY_KEY)
        )
    transfer = await tx.transfers.get(record.transaction_id)
    if transfer is None:  # the key and its transfer are written together
        raise RuntimeError("an idempotency key points at no transfer")
    return CreatedTransfer(transfer, replayed=True)


def check_destination(
    entry: DirectoryEntry | None, request: TransferRequest, account_id: int
) -> DirectoryEntry:
    if entry is None:
        raise KeyNotInDirectory()
    if entry.ispb in request.ispb_deny:
        denied = TransferField.DENIED_INSTITUTIONS
        raise IspbDenied(Problem.of((), f"The key belongs to ISPB {entry.ispb}, which is in {{}}.", denied))
    if request.creditor_document is not None and request.creditor_document != entry.document:
        text = "{} does not match the document of the key's owner."
        raise CreditorDocumentMismatch(Problem.of((), text, TransferField.CREDITOR_DOCUMENT))
    if entry.account_id == account_id:
        raise OwnAccountTransfer()
    return entry


async def payer_of(uow: UnitOfWorkFactory, account_id: int) -> str:
    """The document (CPF or CNPJ) of the account's holder: the payer its transfers' keys are looked
    up for. ``AccountNotFound`` if there is no such account."""
    async with uow() as tx:
        account = await tx.accounts.get(account_id)
    if account is None:
        raise AccountNotFound()
    return account.document


async def create_transfer(
    uow: UnitOfWorkFactory,
    directory: KeyDirectory,
    clock: Clock,
    *,
    account_id: int,
    idempotency_key: uuid.UUID,
    request: TransferRequest,
    ispb: str,
    norm_delay: timedelta,
    payer: str | None = None,
) -> CreatedTransfer:
    """Reserve the amount (available -> blocked) and queue the transfer for settlement.

    The same key with the same request returns the first transfer and moves
    nothing (whatever the directory says now); with another request it is
    ``IdempotencyKeyReused``. The directory is asked before the unit of work
    opens, so that no request holds two connections at once, for the payer:
    ``payer``, the account holder's document when the caller has it already,
    else read from the account (:func:`payer_of`).
    """
    fingerprint = request_fingerprint(request)
    if payer is None:
        payer = await payer_of(uow, account_id)
    entry = await directory.lookup(request.pix_key, payer=payer)
    now = clock.now()
    try:
        async with uow() as tx:
            try:
                destination = check_destination(entry, request, account_id)
            except RuleViolation:
                # A retry whose first attempt succeeded is answered even if the directory changed since.
                replay = await _replay(tx, account_id, idempotency_key, fingerprint)
                if replay:
                    return replay
                raise
            # A retry of a request that succeeded finds its key taken at the claim, and replays there.
            transfer = await _reserve(
                tx,
                account_id=account_id,
                key=idempotency_key,
                fingerprint=fingerprint,
                request=request,
                entry=destination,
                ispb=ispb,
                now=now,
                norm_delay=norm_delay,
            )
            await tx.commit()
    except _KeyTaken:
        # The key is taken (by an earlier request, or a concurrent one that committed): answer what it made.
        async with uow() as tx:
            replay = await _replay(tx, account_id, idempotency_key, fingerprint)
        if replay is None:  # it rolled back after all: ours is the first that counts
            return await create_transfer(
                uow,
                directory,
                clock,
                account_id=account_id,
                idempotency_key=idempotency_key,
                request=request,
                ispb=ispb,
                norm_delay=norm_delay,
                payer=payer,
            )
        return replay
    return CreatedTransfer(transfer, replayed=False)


def new_records(
    *,
    account_id: int,
    key: uuid.UUID,
    request: TransferRequest,
    entry: DirectoryEntry,
    ispb: str,
    now: datetime,
    norm_delay: timedelta,
) -> tuple[NewTransaction, Callable[[int], NewTransfer]]:
    """The transaction record of a transfer, and how to make the transfer once the record has its id."""
    e2e = new_end_to_end_id(ispb, now)
    counterpart = Counterpart(
        entry.name, entry.document, entry.ispb, entry.bank_name, entry.branch, entry.account_number
    )
    record = NewTransaction(
        account_id=account_id,
        type=TransactionType.WITHDRAW,
        status=TransactionStatus.PENDING,
        amount=request.amount,
        created_at=now,
        external_id=str(key),
        end_to_end_id=e2e,
        pix_key=request.pix_key.value,
        description=request.description,
        counterpart=counterpart,
    )

    def transfer(transaction_id: int) -> NewTransfer:
        return NewTransfer(
            transaction_id=transaction_id,
            account_id=account_id,
            idempotency_key=key,
            priority=request.priority,
            pix_key=request.pix_key.value,
            amount=request.amount,
            end_to_end_id=e2e,
            creditor_name=entry.name,
            creditor_document=entry.document,
            creditor_ispb=entry.ispb,
            behavior=entry.behavior,
            settle_after=request.settle_after(now, norm_delay),
            deadline=request.deadline(now),
            created_at=now,
            receiver_account_id=entry.account_id,
            description=request.description,
            payment_flow=request.payment_flow,
        )

    return record, transfer


def stored(new: NewTransfer) -> Transfer:
    """The transfer as the store now holds it (PENDING)."""
    return Transfer(**{field.name: getattr(new, field.name) for field in dataclasses.fields(new)})


def reservation(
    *,
    account_id: int,
    key: uuid.UUID,
    fingerprint: str,
    request: TransferRequest,
    entry: DirectoryEntry,
    ispb: str,
    now: datetime,
    norm_delay: timedelta,
) -> TransferReservation:
    """What reserving this transfer writes (:func:`new_records` and the reserve posting), to be
    written with others of its account at once (``TransferGroupStore``, :func:`reserve_many`)."""
    record, make_transfer = new_records(
        account_id=account_id,
        key=key,
        request=request,
        entry=entry,
        ispb=ispb,
        now=now,
        norm_delay=norm_delay,
    )
    return TransferReservation(
        record, key, fingerprint, make_transfer, ledger.reserve(account_id, request.amount)
    )


async def reserve_many(
    tx: UnitOfWork, account_id: int, reservations: Sequence[TransferReservation], at: datetime
) -> list[int] | None:
    """The reservations written in ``tx`` with one statement per table: the records' ids, or None
    when a key is taken already (the unit of work must then be left without committing)."""
    ids, claimed = await tx.idempotency.add_and_claim_many(
        account_id, [r.record for r in reservations], [(r.key, r.request_hash) for r in reservations], at
    )
    if len(claimed) != len(reservations):
        return None
    await tx.transfers.add_many([r.transfer(tid) for r, tid in zip(reservations, ids, strict=True)])
    await tx.ledger.post_many([(tid, r.posting) for r, tid in zip(reservations, ids, strict=True)], at)
    return ids


async def _reserve(
    tx: UnitOfWork,
    *,
    account_id: int,
    key: uuid.UUID,
    fingerprint: str,
    request: TransferRequest,
    entry: DirectoryEntry,
    ispb: str,
    now: datetime,
    norm_delay: timedelta,
) -> Transfer:
    made = reservation(
        account_id=account_id,
        key=key,
        fingerprint=fingerprint,
        request=request,
        entry=entry,
        ispb=ispb,
        now=now,
        norm_delay=norm_delay,
    )
    transaction_id = await tx.transactions.add(made.record)
    # Claimed before any money moves: a concurrent duplicate waits here, then replays.
    if not await tx.idempotency.claim(account_id, key, fingerprint, transaction_id, now):
        raise _KeyTaken()
    new = made.transfer(transaction_id)
    await tx.transfers.add(new)
    # Last: the guarded update takes the balance row's lock, held until COMMIT.
    await tx.ledger.post(transaction_id, made.posting, now)
    return stored(new)


async def settle_due(uow: UnitOfWorkFactory, clock: Clock, *, limit: int = 100) -> int:
    """Settle or fail every transfer whose time has come; returns how many were finished.

    Each transfer is finished in its own unit of work, locked with SKIP LOCKED:
    any number of workers may run this at once, none finishes one twice.
    """
    async with uow() as tx:
        ids = await tx.transfers.due(clock.now(), limit)
    finished = 0
    for transaction_id in ids:
        finished += await settle_transfer(uow, clock, transaction_id)
    return finished


async def settle_transfer(uow: UnitOfWorkFactory, clock: Clock, transaction_id: int) -> int:
    """Finish one transfer if it is still pending and nobody else holds it. Returns 1 if finished."""
    now = clock.now()
    async with uow() as tx:
        transfer = await tx.transfers.lock_pending(transaction_id)
        if transfer is None:
            return 0
        if now < transfer.settle_after and now < transfer.deadline:
            return 0
        await finish_transfer(tx, transfer, outcome(transfer, now), now)
        await tx.commit()
    return 1


async def finish_transfer(tx: UnitOfWork, transfer: Transfer, error: SpiError | None, now: datetime) -> None:
    """Inside a unit of work: a locked PENDING transfer settled (``error`` None) or failed with
    ``error`` (its reserve released), its record's status and its TRANSFER event: what settlement
    writes, whoever decided the outcome (this service's settlement, or the network's SPI)."""
    lifecycle = TransferLifecycle(transfer.state)
    if error is None:
        await _complete(tx, transfer, lifecycle, now)
    else:
        await _fail(tx, transfer, lifecycle, error, now)


def outcome(transfer: Transfer, now: datetime) -> SpiError | None:
    """How a due transfer ends at ``now``: settled (None), or failed with this SPI error."""
    if now >= transfer.deadline:
        return SpiError.TIMEOUT
    if transfer.behavior == "reject":
        return SpiError.BLOCKED_ACCOUNT
    return None


async def _complete(tx: UnitOfWork, transfer: Transfer, lifecycle: TransferLifecycle, now: datetime) -> None:
    state = lifecycle.settle()
    amount, sender = transfer.amount, transfer.account_id
    if transfer.receiver_account_id is None:
        await tx.ledger.post(
            transfer.transaction_id, ledger.settle_out(sender, amount, transfer.creditor_ispb), now
        )
    else:
        await _credit_receiver(tx, transfer, now)
    await tx.transactions.set_status(transfer.transaction_id, TransactionStatus.CONFIRMED, now)
    await tx.transfers.finish(transfer.transaction_id, state, None, now)
    await tx.outbox.add(sender, transfer_event(transfer), now)


async def _credit_receiver(tx: UnitOfWork, transfer: Transfer, now: datetime) -> None:
    """The receiver of an internal transfer is paid as any receipt is, from the sender's reserve."""
    receiver_id = transfer.receiver_account_id
    if receiver_id is None:
        raise ValueError("not an internal transfer")
    sender = await tx.accounts.get(transfer.account_id)
    if sender is None:
        raise AccountNotFound()
    await credit_receipt(
        tx,
        account_id=receiver_id,
        amount=transfer.amount,
        payer=Counterpart(sender.name, sender.document, sender.ispb, "", sender.branch, sender.number),
        end_to_end_id=transfer.end_to_end_id,
        at=now,
        pix_key=transfer.pix_key,
        description=transfer.description,
        internal=InternalPayer(transfer.account_id, transfer.transaction_id),
    )


async def _fail(
    tx: UnitOfWork, transfer: Transfer, lifecycle: TransferLifecycle, code: SpiError, now: datetime
) -> None:
    state = lifecycle.reject()
    await tx.ledger.post(transfer.transaction_id, ledger.release(transfer.account_id, transfer.amount), now)
    await tx.transactions.set_status(transfer.transaction_id, TransactionStatus.ERROR, now)
    await tx.transfers.finish(transfer.transaction_id, state, code.value, now)
    await tx.outbox.add(transfer.account_id, transfer_event(transfer, code), now)


def transfer_event(transfer: Transfer, error: SpiError | None = None) -> TransferEvent:
    """The TRANSFER event of a transfer that settled (no ``error``) or failed with ``error``."""
    return TransferEvent(
        transaction_id=transfer.transaction_id,
        pix_key=transfer.pix_key,
        amount=transfer.amount,
        end_to_end_id=transfer.end_to_end_id,
        idempotency_key=transfer.idempotency_key,
        creditor=Holder(transfer.creditor_name, transfer.creditor_document),
        creditor_ispb=transfer.creditor_ispb,
        description=transfer.description,
        error=error,
    )
