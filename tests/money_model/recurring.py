"""Pix Automático: recurring charges the sandbox payer's bank debits on their day."""

from __future__ import annotations

from datetime import date

from tests.money_model.books import Books
from tests.money_model.records import CONFIRMED, PAYMENT, Receipt, RecurringCharge, payer_day

__all__ = ["Recurring"]


class Recurring(Books):
    """Recurring charges, and the payer's bank (outside) that pays them."""

    def recurring_charge(self, account: int, amount: int, due: date) -> RecurringCharge:
        """POST /cobr of a new recurrence of ``amount`` the payer approved: CRIADA; nothing moves."""
        created = RecurringCharge(account, amount, due)
        self.recurring.append(created)
        return created

    def fund_payer(self, amount: int) -> None:
        """PUT /sandbox/payers/{ispb}/{document}: the payer's balance is set; the service's
        money does not change (the payer's bank is outside)."""
        self.payer_balance = amount

    def _debit_payer(self, charge: RecurringCharge) -> None:
        """The charge's day has come: the payer's bank debits it, or it fails for insufficient
        funds and, without retries, EXPIRADA (nothing moves)."""
        if self.payer_balance < charge.amount:
            charge.status = "EXPIRADA"
            return
        self.payer_balance -= charge.amount
        charge.status = "CONCLUIDA"
        self._credit_from_outside(charge.account, charge.amount)
        self._record(charge.account, PAYMENT, CONFIRMED)
        self._notify(charge.account, "RECEIVE")
        charge.receipt = Receipt(charge.account, charge.amount, None, self.now)
        self.receipts.append(charge.receipt)

    def _run_payers_bank(self) -> None:
        """The payer's bank's step: every open charge is scheduled (ATIVA); those due on the payer's
        day or before are debited, earliest due date first, then in the order they were made."""
        today = payer_day(self.now)
        for charge in sorted(self.recurring, key=lambda c: c.due):
            if charge.status not in {"CRIADA", "ATIVA"}:
                continue
            charge.status = "ATIVA"
            if charge.due <= today:
                self._debit_payer(charge)
