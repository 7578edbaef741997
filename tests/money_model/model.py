"""The model whole: every operation's kind (:mod:`.transfers`, :mod:`.charges`,
:mod:`.recurring`, :mod:`.refunds`) on one set of books, with time and the workers' round."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.money_model.charges import Charges
from tests.money_model.records import ERROR, PAYMENT, PENDING, Balance
from tests.money_model.recurring import Recurring
from tests.money_model.refunds import Refunds
from tests.money_model.transfers import Transfers

__all__ = ["Model"]


class Model(Transfers, Charges, Recurring, Refunds):
    """The reference model: its operations (each answering the status the service must), the
    model's time, and what a round of the workers does."""

    @classmethod
    def start(cls, now: datetime, accounts: int, norm_delay: timedelta) -> Model:
        return cls(now=now, accounts=[Balance() for _ in range(accounts)], norm_delay=norm_delay)

    def advance(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)

    def run_workers(self) -> None:
        """What a round of the settlement loop does: settle due transfers, finish due refunds,
        persist the expiry of charges (an expired cash-in's record becomes ERROR), run the
        payer's bank's step of Pix Automático."""
        for transfer in self.transfers:
            if transfer.state == "PENDING" and (
                self.now >= transfer.settle_after or self.now >= transfer.deadline
            ):
                self._settle(transfer)
        for receipt in self.receipts:
            for refund in receipt.refunds:
                if refund.status == "EM_PROCESSAMENTO" and refund.process_after <= self.now:
                    self._finish_refund(refund)
        for charge in self.charges:
            if charge.status == "ATIVA" and self.now >= charge.expires_at:
                charge.status = "REMOVIDA_PELO_PSP"
                if charge.cash_in:
                    self._record(charge.account, PAYMENT, ERROR, was=PENDING)
        self._run_payers_bank()
