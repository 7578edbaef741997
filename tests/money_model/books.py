"""The model's books: what it knows (balances, records and notifications counted, every
operation's values, the time, the outside world's balance) and the postings that move money."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tests.money_model.records import Balance, Case, Charge, Receipt, RecurringCharge, Refund, Transfer

__all__ = ["Books"]


@dataclass
class Books:
    """What the model knows, and the postings every operation is made of."""

    now: datetime
    accounts: list[Balance]
    norm_delay: timedelta
    outside: int = 0
    records: Counter[tuple[int, str, str]] = field(default_factory=Counter)
    events: Counter[tuple[int, str, str]] = field(default_factory=Counter)
    """Notifications (the outbox) per account, type and status (REFUND: credit or debit)."""
    receipts: list[Receipt] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)
    charges: list[Charge] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    recurring: list[RecurringCharge] = field(default_factory=list)
    payer_balance: int = 0
    """The sandbox payer's money at their own bank (outside the service; none until funded)."""

    # --- money moves (the ledger's postings) -------------------------------------------------

    def _record(self, account: int, kind: str, status: str, was: str | None = None) -> None:
        if was is not None:
            self.records[account, kind, was] -= 1
        self.records[account, kind, status] += 1

    def _notify(self, account: int, kind: str, detail: str = "") -> None:
        self.events[account, kind, detail] += 1

    def _reserve(self, account: int, amount: int) -> None:
        self.accounts[account].available -= amount
        self.accounts[account].blocked += amount

    def _release(self, account: int, amount: int) -> None:
        self.accounts[account].blocked -= amount
        self.accounts[account].available += amount

    def _credit_from_outside(self, account: int, amount: int) -> None:
        self.accounts[account].available += amount
        self.outside -= amount

    def _pay_blocked(self, account: int, amount: int, to: int | None) -> None:
        """``amount`` leaves ``account``'s blocked funds, to our account ``to`` or outside."""
        self.accounts[account].blocked -= amount
        if to is None:
            self.outside += amount
        else:
            self.accounts[to].available += amount

    def total(self) -> int:
        """Our balances plus the outside world's: zero while money is conserved."""
        return sum(b.available + b.blocked for b in self.accounts) + self.outside

    # --- views for the comparison ------------------------------------------------------------

    def record_counts(self) -> dict[tuple[int, str, str], int]:
        return {key: count for key, count in self.records.items() if count}

    def event_counts(self) -> dict[tuple[int, str, str], int]:
        return {key: count for key, count in self.events.items() if count}

    def refunds(self) -> list[Refund]:
        return [refund for receipt in self.receipts for refund in receipt.refunds]
