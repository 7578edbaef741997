"""What the service and the network's SPI exchange, in the service's terms: the payment it sends
(:class:`OutgoingPayment`), the SPI's answer (:class:`Outcome`), and a payment that arrives
(:class:`IncomingPayment`), kept as a :class:`NetworkReceipt` from the moment the service accepts
it until the SPI settles or refuses it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from pixcore.accounts.rules import Counterpart
from pixcore.transfers.rules import SpiError

__all__ = [
    "IncomingPayment",
    "IncomingReturn",
    "MedLink",
    "NetworkReceipt",
    "Outcome",
    "OutgoingPayment",
    "OutgoingReturn",
    "ReceiptState",
]


@dataclass(frozen=True, slots=True)
class OutgoingPayment:
    """A transfer as the SPI is sent it."""

    transaction_id: int
    end_to_end_id: str
    amount: int
    debtor: Counterpart
    """The account holder paying (this service's institution, branch and number)."""
    creditor: Counterpart
    """Who the key's entry names."""
    key: str
    description: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class OutgoingReturn:
    """A refund of a payment received through the network, as the SPI is sent it (pacs.004)."""

    return_id: str
    end_to_end_id: str
    """The payment it returns."""
    amount: int
    description: str | None
    fraud: bool = False
    """Returned for a MED case (fraud) rather than asked by the account holder."""


@dataclass(frozen=True, slots=True)
class IncomingReturn:
    """Money of one of this service's transfers sent back through the network (pacs.004)."""

    return_id: str
    end_to_end_id: str
    """The transfer it returns."""
    amount: int
    description: str | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The SPI's answer about a payment: still waiting (``final`` False), settled (``error`` None)
    or refused with its reason."""

    final: bool
    error: SpiError | None = None

    @classmethod
    def pending(cls) -> Outcome:
        return cls(final=False)

    @classmethod
    def settled(cls) -> Outcome:
        return cls(final=True)

    @classmethod
    def refused(cls, error: SpiError) -> Outcome:
        return cls(final=True, error=error)


@dataclass(frozen=True, slots=True)
class IncomingPayment:
    """A payment another institution sends to an account of this service."""

    end_to_end_id: str
    amount: int
    payer: Counterpart
    branch: str | None
    account_number: str
    tax_id: str
    """The creditor's CPF or CNPJ, as the payer's institution found it in the directory."""
    key: str | None
    description: str | None


class ReceiptState(enum.StrEnum):
    ACCEPTED = "ACCEPTED"
    """The service said it takes the payment; the SPI's settlement is awaited."""
    CREDITED = "CREDITED"
    """The SPI settled it: the account was credited."""
    REJECTED = "REJECTED"
    """The SPI refused it (the payer's settlement account, a deadline): nothing was credited."""


@dataclass(frozen=True, slots=True)
class NetworkReceipt:
    payment: IncomingPayment
    account_id: int
    state: ReceiptState
    accepted_at: datetime
    transaction_id: int | None = None
    """The PAYMENT record it was credited with (CREDITED)."""
    finished_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class MedLink:
    """A refund request of the DICT and the MED case it opened here."""

    refund_id: str
    case_id: int
    account_id: int
    end_to_end_id: str
    report_id: str | None
