"""The model's values: balances, receipts, refunds, transfers, charges (``cob``, ``cobv`` with
its :class:`DueTerms`, cash-in), recurring charges and MED cases, in integer centavos."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone

from pixcore.business_days import next_business_day

__all__ = [
    "BRASILIA",
    "CONFIRMED",
    "ERROR",
    "PAYMENT",
    "PENDING",
    "REFUND_IN",
    "REFUND_OUT",
    "REFUND_WINDOW",
    "WITHDRAW",
    "Balance",
    "Case",
    "Charge",
    "DueTerms",
    "Receipt",
    "RecurringCharge",
    "Refund",
    "Transfer",
    "payer_day",
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
class RecurringCharge:
    """A ``cobr`` of a recurrence the sandbox payer approved (no retries): CRIADA, ATIVA once the
    payer's bank scheduled it, then CONCLUIDA when the payer's balance covers it on its ``due``
    day, else EXPIRADA. ``receipt``: the money received, once paid."""

    account: int
    amount: int
    due: date
    status: str = "CRIADA"
    txid: str = ""
    receipt: Receipt | None = None


@dataclass(eq=False)
class Case:
    receipt: Receipt
    amount: int
    blocked: int
    status: str = "CREATED"
    id: int = 0
