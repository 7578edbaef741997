"""Refunds we send of a receipt (``devolucao``), and MED cases: opened, accepted, rejected."""

from __future__ import annotations

from tests.money_model.books import Books
from tests.money_model.records import (
    CONFIRMED,
    ERROR,
    PENDING,
    REFUND_IN,
    REFUND_OUT,
    REFUND_WINDOW,
    Case,
    Receipt,
    Refund,
)

__all__ = ["Refunds"]


class Refunds(Books):
    """Refunds and MED cases."""

    def refundable(self, receipt: Receipt) -> int:
        taken = sum(r.amount for r in receipt.refunds if r.status != "NAO_REALIZADO")
        disputed = receipt.open_case.amount if receipt.open_case else 0
        return receipt.amount - taken - disputed

    def refund(self, receipt: Receipt, refund_id: str, amount: int) -> Refund | int:
        """PUT /pix/{e2e}/devolucao/{id}: 422 past the window, 400 above the refundable remainder;
        else EM_PROCESSAMENTO, reserved if ``available`` covers it, with a PENDING REFUND_IN record."""
        if self.now > receipt.received_at + REFUND_WINDOW:
            return 422
        if amount > self.refundable(receipt):
            return 400
        reserved = self.accounts[receipt.account].available >= amount
        if reserved:
            self._reserve(receipt.account, amount)
        self._record(receipt.account, REFUND_IN, PENDING)
        created = Refund(receipt, refund_id, amount, reserved, self.now + self.norm_delay)
        receipt.refunds.append(created)
        return created

    def _finish_refund(self, refund: Refund) -> None:
        receipt = refund.receipt
        if not refund.reserved:
            refund.status = "NAO_REALIZADO"
            self._record(receipt.account, REFUND_IN, ERROR, was=PENDING)
            return
        refund.status = "DEVOLVIDO"
        self._record(receipt.account, REFUND_IN, CONFIRMED, was=PENDING)
        self._notify(receipt.account, "REFUND", "DEBIT")
        # Section 13: a payer of this service gets the money back (REFUND_OUT, a REFUND
        # notification with CREDIT); nothing leaves the service.
        self._pay_blocked(receipt.account, refund.amount, receipt.payer)
        if receipt.payer is not None:
            self._record(receipt.payer, REFUND_OUT, CONFIRMED)
            self._notify(receipt.payer, "REFUND", "CREDIT")

    def open_case(self, receipt: Receipt) -> Case | int:
        """POST /sandbox/med: 409 while a case is open, 400 when nothing remains to dispute; else the
        remainder is disputed and as much of it as ``available`` holds is blocked."""
        if receipt.open_case is not None:
            return 409
        disputed = self.refundable(receipt)
        if disputed <= 0:
            return 400
        blocked = min(disputed, self.accounts[receipt.account].available)
        self._reserve(receipt.account, blocked)
        case = Case(receipt, disputed, blocked)
        self._notify(receipt.account, "MED", "CREATED")
        receipt.open_case = case
        self.cases.append(case)
        return case

    def accept(self, case: Case) -> Refund | int:
        """The blocked amount goes back to the payer as refund MED{id}, DEVOLVIDO at once
        (NAO_REALIZADO when nothing could be blocked). A decided case is 422."""
        if case.status != "CREATED":
            return 422
        case.status, case.receipt.open_case = "ACCEPTED", None
        refund = Refund(
            case.receipt, f"MED{case.id}", case.blocked or case.amount, case.blocked > 0, self.now
        )
        self._record(case.receipt.account, REFUND_IN, PENDING)
        case.receipt.refunds.append(refund)
        self._finish_refund(refund)
        self._notify(case.receipt.account, "MED", "ACCEPTED")
        return refund

    def reject(self, case: Case) -> int:
        if case.status != "CREATED":
            return 422
        case.status, case.receipt.open_case = "REJECTED", None
        self._release(case.receipt.account, case.blocked)
        self._notify(case.receipt.account, "MED", "REJECTED")
        return 200
