"""A reference model of the money in the service: plain Python, integer centavos, no I/O.

It says what the service should do (the specification and its product decisions), not what
the code does: ``tests/e2e/money_model/test_money_model.py`` drives the real service and this
model side by side and compares them after every step.

The model knows our accounts (by index), each one's ``available`` and ``blocked``,
the records and notifications each should have (counted per type and status),
every transfer, receipt, refund, charge and MED case with its status, the model's
time, and
``outside``: the outside world's balance (money that went out to other
institutions minus money that came in from them). Money is conserved when the sum
of our balances plus ``outside`` is zero.

Each operation returns the HTTP status the service must answer and changes the
model only when that status is a success.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone

from pixcore.business_days import next_business_day

__all__ = [
    "REFUND_WINDOW",
    "Balance",
    "Case",
    "Charge",
    "DueTerms",
    "Model",
    "Receipt",
    "Refund",
    "Transfer",
]

BRASILIA = timezone(timedelta(hours=-3))  # the payer's days (UTC-3 all year since 2019)
REFUND_WINDOW = timedelta(days=89)  # allowed while now <= receipt + 89 days

PAYMENT, WITHDRAW, REFUND_IN, REFUND_OUT = "PAYMENT", "WITHDRAW", "REFUND_IN", "REFUND_OUT"
PENDING, CONFIRMED, ERROR = "PENDING", "CONFIRMED", "ERROR"


@dataclass
class Balance:
    available: int = 0
    blocked: int = 0


@dataclass(eq=False)
class Receipt:
    """A CONFIRMED PAYMENT of one of our accounts; ``payer`` is our paying account, or None (outside)."""

    account: int
    amount: int
    payer: int | None
    received_at: datetime
    e2e: str = ""
    refunds: list[Refund] = field(default_factory=list)
    open_case: Case | None = None


@dataclass(eq=False)
class Refund:
    """A refund we send of a receipt (``devolucao``, or an accepted MED case's)."""

    receipt: Receipt
    refund_id: str
    amount: int
    reserved: bool
    process_after: datetime
    status: str = "EM_PROCESSAMENTO"
    description: str | None = None


@dataclass(eq=False)
class Transfer:
    """``POST /dict/pix``; ``receiver`` is our receiving account, or None for a key of another bank."""

    sender: int
    receiver: int | None
    behavior: str  # of the outside key: "settle" or "reject"
    amount: int
    settle_after: datetime
    deadline: datetime
    state: str = "PENDING"
    returned: int = 0  # refunded by the outside receiver (POST /sandbox/refunds)
    id: int = 0
    e2e: str = ""
    request: tuple[str, dict[str, object]] = ("", {})  # idempotency key and body, to replay


@dataclass(frozen=True)
class DueTerms:
    """A ``cobv``'s terms as the model draws them: ``original`` due on ``due_date`` (moved to the
    next business day when it is not one), a fixed ``fine`` and ``interest`` centavos per calendar
    day once late, payable ``days_after`` days after it (the last day moved in turn)."""

    original: int
    due_date: date
    days_after: int
    fine: int
    interest: int

    def last_day(self) -> date:
        return next_business_day(next_business_day(self.due_date) + timedelta(days=self.days_after))

    def due_on(self, day: date) -> int | None:
        """The amount due when paid on ``day``; None after the last day."""
        if day > self.last_day():
            return None
        effective = next_business_day(self.due_date)
        if day <= effective:
            return self.original
        return self.original + self.fine + self.interest * (day - effective).days

    def ends_at(self) -> datetime:
        """When the last day ends for the payer: the charge's expiry."""
        return datetime.combine(self.last_day() + timedelta(days=1), time(), tzinfo=BRASILIA)


def payer_day(moment: datetime) -> date:
    return moment.astimezone(BRASILIA).date()


@dataclass(eq=False)
class Charge:
    """A ``cob``, a ``cobv`` (``due``) or a cash-in; ``status`` is the stored one (the sweep
    persists an expiry)."""

    account: int
    amount: int
    expires_at: datetime
    cash_in: bool
    status: str = "ATIVA"
    location_id: str = ""
    code: str = ""
    due: DueTerms | None = None


@dataclass(eq=False)
class Case:
    receipt: Receipt
    amount: int
    blocked: int
    status: str = "CREATED"
    id: int = 0


@dataclass
class Model:
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

    @classmethod
    def start(cls, now: datetime, accounts: int, norm_delay: timedelta) -> Model:
        return cls(now=now, accounts=[Balance() for _ in range(accounts)], norm_delay=norm_delay)

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

    # --- receipts from outside ---------------------------------------------------------------

    def receive(self, account: int, amount: int) -> Receipt:
        """An outside payer pays a key of ``account`` (POST /sandbox/payments {pixKey, amount})."""
        self._credit_from_outside(account, amount)
        self._record(account, PAYMENT, CONFIRMED)
        self._notify(account, "RECEIVE")
        receipt = Receipt(account, amount, None, self.now)
        self.receipts.append(receipt)
        return receipt

    # --- transfers ---------------------------------------------------------------------------

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

    # --- refunds and MED ---------------------------------------------------------------------

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

    # --- time and the workers ----------------------------------------------------------------

    def advance(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)

    def run_workers(self) -> None:
        """What a round of the settlement loop does: settle due transfers, finish due refunds,
        persist the expiry of charges (an expired cash-in's record becomes ERROR)."""
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

    # --- views for the comparison ------------------------------------------------------------

    def record_counts(self) -> dict[tuple[int, str, str], int]:
        return {key: count for key, count in self.records.items() if count}

    def event_counts(self) -> dict[tuple[int, str, str], int]:
        return {key: count for key, count in self.events.items() if count}

    def refunds(self) -> list[Refund]:
        return [refund for receipt in self.receipts for refund in receipt.refunds]
