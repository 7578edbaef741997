"""Transfers from our accounts (``POST /dict/pix``), their settlement, and outside receivers' refunds."""

from __future__ import annotations

from datetime import timedelta

from tests.money_model.books import Books
from tests.money_model.records import (
    CONFIRMED,
    ERROR,
    PAYMENT,
    PENDING,
    REFUND_OUT,
    WITHDRAW,
    Receipt,
    Transfer,
)

__all__ = ["Transfers"]


class Transfers(Books):
    """Transfers: reserved when made, settled or failed by the workers."""

    def transfer(
        self, sender: int, receiver: int | None, behavior: str, amount: int, *, high: bool, expiration: int
    ) -> Transfer | int:
        """POST /dict/pix: a Transfer reserved and PENDING, or 422 and nothing created."""
        if receiver == sender or amount > self.accounts[sender].available:
            return 422
        self._reserve(sender, amount)
        self._record(sender, WITHDRAW, PENDING)
        settle_after = self.now if high else self.now + self.norm_delay
        created = Transfer(
            sender, receiver, behavior, amount, settle_after, self.now + timedelta(seconds=expiration)
        )
        self.transfers.append(created)
        return created

    def _settle(self, transfer: Transfer) -> None:
        if self.now >= transfer.deadline or (transfer.receiver is None and transfer.behavior == "reject"):
            transfer.state = "ERROR"
            self._release(transfer.sender, transfer.amount)
            self._record(transfer.sender, WITHDRAW, ERROR, was=PENDING)
            self._notify(transfer.sender, "TRANSFER", "ERROR")
            return
        transfer.state = "COMPLETED"
        self._pay_blocked(transfer.sender, transfer.amount, transfer.receiver)
        self._record(transfer.sender, WITHDRAW, CONFIRMED, was=PENDING)
        self._notify(transfer.sender, "TRANSFER", "LIQUIDATED")
        if transfer.receiver is not None:
            self._record(transfer.receiver, PAYMENT, CONFIRMED)
            self._notify(transfer.receiver, "RECEIVE")
            self.receipts.append(
                Receipt(transfer.receiver, transfer.amount, transfer.sender, self.now, e2e=transfer.e2e)
            )

    def outside_refund(self, transfer: Transfer, amount: int) -> int:
        """POST /sandbox/refunds: the receiver of a settled transfer of ours returns ``amount``.

        Only an outside receiver does so: for a receiver of this service it is 422
        (section 13), for a transfer not settled 404, beyond what remains 400.
        """
        if transfer.state != "COMPLETED":
            return 404
        if transfer.receiver is not None:
            return 422
        if amount > transfer.amount - transfer.returned:
            return 400
        transfer.returned += amount
        self._credit_from_outside(transfer.sender, amount)
        self._record(transfer.sender, REFUND_OUT, CONFIRMED)
        self._notify(transfer.sender, "REFUND", "CREDIT")
        return 201
