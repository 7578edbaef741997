"""Group commit of the charge payments one account receives (docs/decisions/group-commit.md): a merchant
whose charges (``cob``, ``cobv``, cash-ins) are paid many at once.

Every payment credits the receiving account's balance row, so the concurrent payments of one hot
account queue on that row's lock. A :class:`ChargePaymentGroupCommit` gathers the payments of one
process for one receiving account (up to ``size``, waiting at most ``window`` seconds) and pays them
in ONE unit of work: each charge locked by its location (in location order, so two groups cannot
deadlock on charges) and judged by :func:`~pixcore.charges.cob_service.payment_terms`, the rules
:func:`~pixcore.charges.cob_service.pay_charge` applies; a payment they refuse is answered that error.
The accepted ones are written with one statement per table where the ports allow it (new PAYMENT
records, postings, events; a cash-in's PENDING record is confirmed, each charge updated), one
COMMIT, then every payer answered. A location repeated within a group is paid alone after the
group (it finds its charge CONCLUIDA, as a second payer does today). If the group's unit of work
fails, its payments are applied one by one on the ungrouped path, each answered exactly as it would
have been alone. ``size`` 1 is the ungrouped path itself.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from pixcore import ledger
from pixcore.accounts.rules import Counterpart
from pixcore.amount_parts import DueAmount
from pixcore.charges.cob import Charge, ChargeKind, ChargeStatus
from pixcore.charges.cob_service import ChargePayment, pay_charge, payment_terms
from pixcore.clock import Clock
from pixcore.errors import PixError
from pixcore.events import Event, KeyPixEvent
from pixcore.group_commit.gatherer import GroupCommit, Waiting
from pixcore.identifiers import new_end_to_end_id
from pixcore.transfers.receipt_service import payment_record, receive_event
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = ["ChargePaymentGroupCommit"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Payment:
    location_id: str
    payer: Counterpart
    amount: int | None
    only_for: int | None
    kinds: frozenset[ChargeKind] | None


@dataclass(frozen=True, slots=True)
class _Accepted:
    index: int
    """The payment's place in the group."""
    charge: Charge
    status: ChargeStatus
    credited: int
    end_to_end_id: str
    parts: DueAmount | None
    """What a ``cobv``'s payment is made of (``Charge.paid_parts``)."""


class ChargePaymentGroupCommit(GroupCommit[int | None, _Payment, ChargePayment]):
    """Pays charges as :func:`~pixcore.charges.cob_service.pay_charge` does, grouping the concurrent
    payments received by each account into one unit of work. One per process; one event loop."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, *, size: int, window: timedelta) -> None:
        super().__init__(size=size, window=window)
        self._uow, self._clock = uow, clock

    async def pay(
        self,
        *,
        location_id: str,
        payer: Counterpart,
        amount: int | None = None,
        only_for: int | None = None,
        kinds: frozenset[ChargeKind] | None = None,
    ) -> ChargePayment:
        """The charge at ``location_id`` paid: the answer of ``pay_charge``. Only the payments
        bound to their receiving account (``only_for``, the sandbox's caller) are grouped."""
        payment = _Payment(location_id, payer, amount, only_for, kinds)
        if only_for is None:
            return await self._alone(None, payment)
        return await self._submit(only_for, payment)

    async def _alone(self, _: int | None, asked: _Payment) -> ChargePayment:
        return await pay_charge(
            self._uow,
            self._clock,
            location_id=asked.location_id,
            payer=asked.payer,
            amount=asked.amount,
            only_for=asked.only_for,
            kinds=asked.kinds,
        )

    async def _apply(self, key: int | None, group: list[Waiting[_Payment, ChargePayment]]) -> None:
        first: list[Waiting[_Payment, ChargePayment]] = []
        repeats: list[Waiting[_Payment, ChargePayment]] = []
        seen: set[str] = set()
        for waiting in group:
            location = waiting.item.location_id
            (repeats if location in seen else first).append(waiting)
            seen.add(location)
        try:
            outcomes = await self._commit([waiting.item for waiting in first])
        except Exception:  # a failed group: each payment gets its own answer
            log.info("a batch of %d charge payments is applied one by one", len(first), exc_info=True)
            await self._one_by_one(key, first)
        else:
            for waiting, outcome in zip(first, outcomes, strict=True):
                waiting.give(outcome)
        await self._one_by_one(key, repeats)  # after the COMMIT: each finds its charge paid

    async def _commit(self, payments: list[_Payment]) -> list[ChargePayment | PixError]:
        now = self._clock.now()
        outcomes: list[ChargePayment | PixError | None] = [None] * len(payments)
        async with self._uow() as tx:
            accepted: list[_Accepted] = []
            for index in sorted(range(len(payments)), key=lambda i: payments[i].location_id):
                payment = payments[index]
                locked = await tx.charges.lock_by_location(payment.location_id)
                try:
                    charge, status, credited, parts = payment_terms(
                        locked, payment.amount, now, only_for=payment.only_for, kinds=payment.kinds
                    )
                except PixError as refused:  # that payment's own answer, as alone
                    outcomes[index] = refused
                    continue
                e2e = new_end_to_end_id(payment.payer.ispb, now)
                accepted.append(_Accepted(index, charge, status, credited, e2e, parts))
            accepted.sort(key=lambda a: a.index)
            ids = await self._credit(tx, [payments[a.index].payer for a in accepted], accepted, now)
            for paid, transaction_id in zip(accepted, ids, strict=True):
                await tx.charges.update(
                    paid.charge.id,
                    status=paid.status,
                    revision=paid.charge.revision,
                    at=now,
                    transaction_id=transaction_id,
                    paid_end_to_end_id=paid.end_to_end_id,
                    paid_parts=paid.parts,
                )
                charge = dataclasses.replace(
                    paid.charge,
                    status=paid.status,
                    transaction_id=transaction_id,
                    paid_end_to_end_id=paid.end_to_end_id,
                    paid_at=now,
                    paid_parts=paid.parts,
                )
                outcomes[paid.index] = ChargePayment(
                    charge, transaction_id, paid.end_to_end_id, paid.credited
                )
            await tx.commit()
        return [outcome for outcome in outcomes if outcome is not None]

    @staticmethod
    async def _credit(
        tx: UnitOfWork, payers: list[Counterpart], accepted: list[_Accepted], now: datetime
    ) -> list[int]:
        """What :func:`~pixcore.transfers.receipt_service.credit_receipt` writes for each accepted payment,
        with one statement per table: their record ids, in the order of ``accepted``."""
        if not accepted:
            return []
        new = [
            (paid, payer)
            for paid, payer in zip(accepted, payers, strict=True)
            if paid.charge.transaction_id is None
        ]
        new_ids = iter(
            await tx.transactions.add_many(
                [
                    payment_record(
                        account_id=paid.charge.account_id,
                        amount=paid.credited,
                        payer=payer,
                        end_to_end_id=paid.end_to_end_id,
                        at=now,
                        pix_key=paid.charge.pix_key,
                        description=paid.charge.payer_request,
                    )
                    for paid, payer in new
                ]
            )
            if new
            else []
        )
        ids: list[int] = []
        for paid, payer in zip(accepted, payers, strict=True):
            pending = paid.charge.transaction_id  # a cash-in's PENDING record
            if pending is None:
                ids.append(next(new_ids))
            else:
                await tx.transactions.confirm(pending, paid.end_to_end_id, payer, now)
                ids.append(pending)
        together = list(zip(accepted, payers, ids, strict=True))
        await tx.ledger.post_many(
            [
                (tid, ledger.receive(paid.charge.account_id, paid.credited, payer.ispb))
                for paid, payer, tid in together
            ],
            now,
        )
        account_id = accepted[0].charge.account_id  # the group's: payment_terms checked only_for
        hooked: dict[str, bool] = {}
        events: list[Event] = []
        for paid, payer, tid in together:
            charge = paid.charge
            events.append(
                receive_event(
                    tid,
                    amount=paid.credited,
                    payer=payer,
                    end_to_end_id=paid.end_to_end_id,
                    tx_id=charge.txid,
                )
            )
            if charge.pix_key not in hooked:
                hooked[charge.pix_key] = await tx.webhooks.of_key(account_id, charge.pix_key) is not None
            if hooked[charge.pix_key]:
                events.append(
                    KeyPixEvent(
                        charge.pix_key,
                        paid.end_to_end_id,
                        paid.credited,
                        now,
                        charge.txid,
                        amount_parts=paid.parts,
                    )
                )
        await tx.outbox.add_many(account_id, events, now)
        return ids
