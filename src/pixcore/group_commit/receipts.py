"""Group commit of the receipts one key is paid (docs/decisions/group-commit.md): a merchant receiving many
PIX at once.

Every receipt credits its account's balance row, which its UPDATE locks until COMMIT, so the
concurrent receipts of one hot account queue on that lock. A :class:`ReceiptGroupCommit` gathers the
receipts of one process for one key (up to ``size``, waiting at most ``window`` seconds) and
credits them in ONE unit of work: the key's owner looked up once, the PAYMENT records, ledger
entries and RECEIVE events written with one statement each, the balance updated once, one
COMMIT, then every payer answered. A receipt cannot be refused for its amount, so a group either
commits whole or (a key that is not the caller's, a failed statement) its receipts are applied one
by one on the ungrouped path (:func:`~pixcore.transfers.receipt_service.receive_payment`), each answered
exactly as it would have been alone. ``size`` 1 is the ungrouped path itself.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeAlias

from pixcore import ledger
from pixcore.accounts.rules import Counterpart
from pixcore.clock import Clock
from pixcore.events import Event, KeyPixEvent
from pixcore.group_commit.gatherer import GroupCommit, Waiting
from pixcore.identifiers import new_end_to_end_id
from pixcore.keys import PixKey
from pixcore.money import require_positive
from pixcore.transfers.receipt_service import (
    Receipt,
    key_owner,
    payment_record,
    receive_event,
    receive_payment,
)
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["ReceiptGroupCommit"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Payment:
    key: PixKey
    amount: int
    payer: Counterpart
    only_for: int | None


_Key: TypeAlias = tuple[str, int | None]  # the key's value, and the account it must be the caller's


class ReceiptGroupCommit(GroupCommit[_Key, _Payment, Receipt]):
    """Credits receipts as :func:`~pixcore.transfers.receipt_service.receive_payment` does, grouping the
    concurrent ones paid to each key into one unit of work. One per process; one event loop."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, *, size: int, window: timedelta) -> None:
        super().__init__(size=size, window=window)
        self._uow, self._clock = uow, clock

    async def receive(
        self, *, key: PixKey, amount: int, payer: Counterpart, only_for: int | None = None
    ) -> Receipt:
        """The receipt credited to the owner of ``key``: the answer of ``receive_payment``."""
        require_positive(amount)
        return await self._submit((key.value, only_for), _Payment(key, amount, payer, only_for))

    async def _alone(self, _: _Key, receipt: _Payment) -> Receipt:
        return await receive_payment(
            self._uow,
            self._clock,
            key=receipt.key,
            amount=receipt.amount,
            payer=receipt.payer,
            only_for=receipt.only_for,
        )

    async def _apply(self, key: _Key, group: list[Waiting[_Payment, Receipt]]) -> None:
        try:
            receipts = await self._commit([waiting.item for waiting in group])
        except Exception:  # a refused key or a failed group: each receipt gets its own answer
            log.info("a batch of %d receipts is applied one by one", len(group), exc_info=True)
            await self._one_by_one(key, group)
            return
        for waiting, receipt in zip(group, receipts, strict=True):
            waiting.give(receipt)

    async def _commit(self, payments: list[_Payment]) -> list[Receipt]:
        now = self._clock.now()
        first = payments[0]
        e2es = [new_end_to_end_id(p.payer.ispb, now) for p in payments]
        async with self._uow() as tx:
            account_id = await key_owner(tx, first.key, first.only_for)
            records = [
                payment_record(
                    account_id=account_id,
                    amount=p.amount,
                    payer=p.payer,
                    end_to_end_id=e2e,
                    at=now,
                    pix_key=p.key.value,
                )
                for p, e2e in zip(payments, e2es, strict=True)
            ]
            ids = await tx.transactions.add_many(records)
            together = list(zip(payments, e2es, ids, strict=True))
            await tx.ledger.post_many(
                [(tid, ledger.receive(account_id, p.amount, p.payer.ispb)) for p, _, tid in together], now
            )
            events: list[Event] = [
                receive_event(tid, amount=p.amount, payer=p.payer, end_to_end_id=e2e)
                for p, e2e, tid in together
            ]
            if await tx.webhooks.of_key(account_id, first.key.value) is not None:  # one key per group
                events += [KeyPixEvent(first.key.value, e2e, p.amount, now) for p, e2e, _ in together]
            await tx.outbox.add_many(account_id, events, now)
            await tx.commit()
        return [Receipt(tid, account_id, e2e) for _, e2e, tid in together]
