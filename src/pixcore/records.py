"""Transaction records (what statements list) and stored transfers."""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from datetime import datetime

from pixcore.accounts.rules import Counterpart
from pixcore.transfers.rules import Priority, TransferState

__all__ = ["NewTransaction", "NewTransfer", "TransactionStatus", "TransactionType", "Transfer"]


class TransactionType(enum.StrEnum):
    PAYMENT = "PAYMENT"  # Pix in
    WITHDRAW = "WITHDRAW"  # Pix out
    REFUND_IN = "REFUND_IN"  # a refund we send
    REFUND_OUT = "REFUND_OUT"  # a refund we receive


class TransactionStatus(enum.StrEnum):
    PENDING = "PENDING"
    CONFIRMED = "CONFIRMED"
    ERROR = "ERROR"


@dataclass(frozen=True, slots=True)
class NewTransaction:
    account_id: int
    type: TransactionType
    status: TransactionStatus
    amount: int
    created_at: datetime
    external_id: str | None = None
    end_to_end_id: str | None = None
    pix_key: str | None = None
    description: str | None = None
    counterpart: Counterpart | None = None
    processed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class NewTransfer:
    transaction_id: int
    account_id: int
    idempotency_key: uuid.UUID
    priority: Priority
    pix_key: str
    amount: int
    end_to_end_id: str
    creditor_name: str
    creditor_document: str  # the key owner's, as the directory has it
    creditor_ispb: str
    behavior: str
    settle_after: datetime
    deadline: datetime
    created_at: datetime
    receiver_account_id: int | None = None
    description: str | None = None
    payment_flow: str | None = None


@dataclass(frozen=True, slots=True)
class Transfer(NewTransfer):
    """A transfer as stored, with its current state."""

    state: TransferState = TransferState.PENDING
    error_code: str | None = None
    sent_at: datetime | None = None
    """When it was last sent to the SPI (a transfer settled by the network); None: never sent."""
