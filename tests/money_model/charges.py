"""Money coming in: an outside payer's PIX to a key, charges (``cob``, ``cobv``) and cash-in, paid."""

from __future__ import annotations

from datetime import timedelta

from tests.money_model.books import Books
from tests.money_model.records import CONFIRMED, PAYMENT, PENDING, Charge, DueTerms, Receipt, payer_day

__all__ = ["Charges"]


class Charges(Books):
    """Receipts from outside, and the charges that ask for them."""

    # --- receipts from outside ---------------------------------------------------------------

    def receive(self, account: int, amount: int) -> Receipt:
        """An outside payer pays a key of ``account`` (POST /sandbox/payments {pixKey, amount})."""
        self._credit_from_outside(account, amount)
        self._record(account, PAYMENT, CONFIRMED)
        self._notify(account, "RECEIVE")
        receipt = Receipt(account, amount, None, self.now)
        self.receipts.append(receipt)
        return receipt

    # --- charges and cash-in -----------------------------------------------------------------

    def charge(self, account: int, amount: int, expiration: int, *, cash_in: bool) -> Charge:
        """PUT /cob/{txid} or POST /api/pix/cash-in: ATIVA; a cash-in has a PENDING PAYMENT record."""
        created = Charge(account, amount, self.now + timedelta(seconds=expiration), cash_in)
        if cash_in:
            self._record(account, PAYMENT, PENDING)
        self.charges.append(created)
        return created

    def due_charge(self, account: int, terms: DueTerms) -> Charge:
        """PUT /cobv/{txid}: ATIVA until its last payable day ends."""
        created = Charge(account, terms.original, terms.ends_at(), cash_in=False, due=terms)
        self.charges.append(created)
        return created

    def pay(self, charge: Charge) -> Receipt | int:
        """The sandbox payer pays the charge's code: only an ATIVA, unexpired charge (else 422);
        a ``cobv`` is paid its amount due on the payer's day."""
        if charge.status != "ATIVA" or self.now >= charge.expires_at:
            return 422
        amount = charge.amount if charge.due is None else charge.due.due_on(payer_day(self.now))
        if amount is None:
            return 422
        charge.status = "CONCLUIDA"
        self._credit_from_outside(charge.account, amount)
        self._record(charge.account, PAYMENT, CONFIRMED, was=PENDING if charge.cash_in else None)
        self._notify(charge.account, "RECEIVE")
        receipt = Receipt(charge.account, amount, None, self.now)
        self.receipts.append(receipt)
        return receipt
