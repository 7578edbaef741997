"""Money arriving from outside the service: a payer at another bank pays one of our keys."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pixcore import ledger
from pixcore.accounts.rules import Counterpart
from pixcore.amount_parts import DueAmount
from pixcore.clock import Clock
from pixcore.errors import KeyNotInDirectory
from pixcore.events import Holder, KeyPixEvent, ReceiveEvent
from pixcore.identifiers import new_end_to_end_id
from pixcore.keys import PixKey
from pixcore.money import require_positive
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = ["InternalPayer", "Receipt", "credit_receipt", "key_owner", "receive_payment"]


@dataclass(frozen=True, slots=True)
class Receipt:
    transaction_id: int
    account_id: int
    end_to_end_id: str


@dataclass(frozen=True, slots=True)
class InternalPayer:
    """A payer that is an account of this service: its transfer reserved the money.

    The money then moves from the payer's blocked funds (``settle_in``, posted under the
    transfer's record ``transaction_id``) instead of arriving from an outside institution.
    """

    account_id: int
    transaction_id: int


async def receive_payment(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    key: PixKey,
    amount: int,
    payer: Counterpart,
    tx_id: str | None = None,
    only_for: int | None = None,
) -> Receipt:
    """Credit a settled receipt to the owner of ``key``: PAYMENT record, ledger, RECEIVE event.

    ``only_for``: the key must belong to this account (the sandbox lets an account be paid,
    not pay others on their behalf).
    """
    require_positive(amount)
    now = clock.now()
    e2e = new_end_to_end_id(payer.ispb, now)
    async with uow() as tx:
        account_id = await key_owner(tx, key, only_for)
        transaction_id = await credit_receipt(
            tx,
            account_id=account_id,
            amount=amount,
            payer=payer,
            end_to_end_id=e2e,
            at=now,
            pix_key=key.value,
            tx_id=tx_id,
        )
        await tx.commit()
    return Receipt(transaction_id, account_id, e2e)


async def key_owner(tx: UnitOfWork, key: PixKey, only_for: int | None) -> int:
    """The account ``key`` pays; ``KeyNotInDirectory`` if none, or if it is not ``only_for``."""
    account_id = await tx.keys.owner_of(key)
    if account_id is None or (only_for is not None and account_id != only_for):
        raise KeyNotInDirectory("The key is not a key of your account." if only_for else None)
    return account_id


def payment_record(
    *,
    account_id: int,
    amount: int,
    payer: Counterpart,
    end_to_end_id: str,
    at: datetime,
    pix_key: str,
    description: str | None = None,
) -> NewTransaction:
    """The CONFIRMED PAYMENT record of a receipt."""
    return NewTransaction(
        account_id=account_id,
        type=TransactionType.PAYMENT,
        status=TransactionStatus.CONFIRMED,
        amount=amount,
        created_at=at,
        end_to_end_id=end_to_end_id,
        pix_key=pix_key,
        description=description,
        counterpart=payer,
        processed_at=at,
    )


def receive_event(
    transaction_id: int, *, amount: int, payer: Counterpart, end_to_end_id: str, tx_id: str | None = None
) -> ReceiveEvent:
    return ReceiveEvent(
        transaction_id=transaction_id,
        tx_id=tx_id,
        amount=amount,
        end_to_end_id=end_to_end_id,
        debtor=Holder(payer.name, payer.document),
    )


async def credit_receipt(
    tx: UnitOfWork,
    *,
    account_id: int,
    amount: int,
    payer: Counterpart,
    end_to_end_id: str,
    at: datetime,
    pix_key: str,
    tx_id: str | None = None,
    description: str | None = None,
    pending_record: int | None = None,
    internal: InternalPayer | None = None,
    amount_parts: DueAmount | None = None,
) -> int:
    """Inside a unit of work: the CONFIRMED PAYMENT record (a new one, or ``pending_record``
    confirmed), the posting and the RECEIVE event; and, when ``pix_key`` has a webhook of the
    standard (``PUT /webhook/{chave}``), the PIX event it is sent. Returns the record's id.

    The posting is ``receive`` from the payer's institution, or, for an ``internal`` payer
    (a transfer between two accounts of this service), ``settle_in`` from its reserve.
    ``amount_parts``: what a payment of a ``cobv`` is made of (the PIX event carries them).
    """
    transaction_id = pending_record
    if transaction_id is None:
        transaction_id = await tx.transactions.add(
            payment_record(
                account_id=account_id,
                amount=amount,
                payer=payer,
                end_to_end_id=end_to_end_id,
                at=at,
                pix_key=pix_key,
                description=description,
            )
        )
    else:
        await tx.transactions.confirm(transaction_id, end_to_end_id, payer, at)
    if internal is None:
        await tx.ledger.post(transaction_id, ledger.receive(account_id, amount, payer.ispb), at)
    else:
        posting = ledger.settle_in(internal.account_id, account_id, amount)
        await tx.ledger.post(internal.transaction_id, posting, at)
    event = receive_event(
        transaction_id, amount=amount, payer=payer, end_to_end_id=end_to_end_id, tx_id=tx_id
    )
    await tx.outbox.add(account_id, event, at)
    if await tx.webhooks.of_key(account_id, pix_key) is not None:
        pix = KeyPixEvent(pix_key, end_to_end_id, amount, at, tx_id, amount_parts=amount_parts)
        await tx.outbox.add(account_id, pix, at)
    return transaction_id
