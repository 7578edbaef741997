"""Money arriving from outside the service: a payer at another bank pays one of our keys."""

from __future__ import annotations

from dataclasses import dataclass

from pixcore import ledger
from pixcore.accounts import Counterpart
from pixcore.clock import Clock
from pixcore.errors import KeyNotInDirectory
from pixcore.events import receive_event
from pixcore.identifiers import new_end_to_end_id
from pixcore.keys import PixKey
from pixcore.money import require_positive
from pixcore.ports import UnitOfWorkFactory
from pixcore.records import NewTransaction, TransactionStatus, TransactionType

__all__ = ["Receipt", "receive_payment"]


@dataclass(frozen=True, slots=True)
class Receipt:
    transaction_id: int
    account_id: int
    end_to_end_id: str


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
        account_id = await tx.keys.owner_of(key)
        if account_id is None or (only_for is not None and account_id != only_for):
            raise KeyNotInDirectory("The key is not a key of your account." if only_for else None)
        transaction_id = await tx.transactions.add(
            NewTransaction(
                account_id=account_id,
                type=TransactionType.PAYMENT,
                status=TransactionStatus.CONFIRMED,
                amount=amount,
                created_at=now,
                end_to_end_id=e2e,
                pix_key=key.value,
                counterpart=payer,
                processed_at=now,
            )
        )
        await tx.ledger.post(transaction_id, ledger.receive(account_id, amount), now)
        event = receive_event(
            transaction_id=transaction_id,
            tx_id=tx_id,
            amount=amount,
            end_to_end_id=e2e,
            debtor_name=payer.name,
            debtor_document=payer.document,
        )
        await tx.outbox.add(account_id, event, now)
        await tx.commit()
    return Receipt(transaction_id, account_id, e2e)
