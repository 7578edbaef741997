"""PIX transfers (``POST /dict/pix``): the request's rules and the lifecycle.

The lifecycle is a ``transitions`` state machine: PENDING -> COMPLETED (settled)
or ERROR (refused by the receiving side, or not settled within ``expiration``).
Its callbacks do no I/O; use cases persist what it decides.
"""

from __future__ import annotations

import enum
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from transitions import Machine, MachineError

from pixcore.documents import parse_document
from pixcore.errors import InvalidTransition, ValidationError
from pixcore.identifiers import validate_ispb
from pixcore.keys import PixKey, parse_pix_key
from pixcore.money import parse_amount_number, require_positive
from pixcore.problems import Field, Problem
from pixcore.validation import collect

__all__ = [
    "ACCOUNT_PATTERN",
    "BRANCH_PATTERN",
    "DEFAULT_EXPIRATION",
    "IDEMPOTENCY_WINDOW",
    "MAX_BANK_NAME",
    "MAX_DESCRIPTION",
    "MAX_EXPIRATION",
    "MAX_NAME",
    "MAX_PAYMENT_FLOW",
    "UUID4_PATTERN",
    "DirectoryEntry",
    "DirectoryField",
    "Priority",
    "SpiError",
    "TransferField",
    "TransferLifecycle",
    "TransferRequest",
    "TransferState",
    "parse_idempotency_key",
]

IDEMPOTENCY_WINDOW = timedelta(hours=25)
"""How long a transfer's idempotency key is honoured after it was stored, by the database's clock
(the promise is 24 hours; an hour's margin). An older key is a new request's."""


DEFAULT_EXPIRATION = 600
UUID4_PATTERN = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
"""``x-idempotency-key``: a UUID v4 in its canonical form (matched whole)."""
_UUID4 = re.compile(UUID4_PATTERN)
MAX_EXPIRATION = 10_800
MAX_DESCRIPTION = 140
MAX_NAME = 140
MAX_BANK_NAME = 100  # the directory's column
MAX_PAYMENT_FLOW = 100  # the transfers' column
BEHAVIORS = ("settle", "reject")
SPI_BEHAVIOR = "spi"
"""A transfer the network's SPI settles (the service a participant of ``pixnet``): its outcome is
the SPI's, never decided here."""
BRANCH_PATTERN = "[0-9]{4}"
ACCOUNT_PATTERN = "[0-9]{1,20}"
_BRANCH = re.compile(BRANCH_PATTERN)
_ACCOUNT = re.compile(ACCOUNT_PATTERN)


class TransferState(enum.StrEnum):
    PENDING = "PENDING"
    COMPLETED = "COMPLETED"
    ERROR = "ERROR"


class Priority(enum.StrEnum):
    HIGH = "HIGH"  # instant: settles at once
    NORM = "NORM"  # the normal queue: settles after a short delay


class SpiError(enum.StrEnum):
    """SPI reason codes carried by a TRANSFER notification with status ERROR."""

    TIMEOUT = "AB03"  # not settled within `expiration`
    BLOCKED_ACCOUNT = "AC06"  # the receiving side refused it
    DOCUMENT_MISMATCH = "BE01"
    UNKNOWN_ACCOUNT = "AC03"  # the receiving side has no such account
    NOT_ALLOWED = "AG03"  # the receiving account takes no such transaction
    INSUFFICIENT_SETTLEMENT = "AM04"  # the payer institution's settlement account did not cover it
    REFUSED = "DS04"  # refused by the receiving side for another reason
    REGULATORY = "RR04"  # refused by the network


class DirectoryField(Field):
    """The fields of a directory entry, as :meth:`DirectoryEntry.parse` names them in its problems."""

    KEY = enum.auto()
    DOCUMENT = enum.auto()
    INSTITUTION = enum.auto()
    BEHAVIOR = enum.auto()
    NAME = enum.auto()
    BANK_NAME = enum.auto()
    BRANCH = enum.auto()
    ACCOUNT_NUMBER = enum.auto()


class TransferField(Field):
    """The fields of a transfer request, as :meth:`TransferRequest.parse` names them in its problems."""

    KEY = enum.auto()
    AMOUNT = enum.auto()
    CURRENCY = enum.auto()
    PRIORITY = enum.auto()
    EXPIRATION = enum.auto()
    CREDITOR_DOCUMENT = enum.auto()
    DESCRIPTION = enum.auto()
    PAYMENT_FLOW = enum.auto()
    DENIED_INSTITUTIONS = enum.auto()
    IDEMPOTENCY_KEY = enum.auto()
    """What makes a retry of the request safe (a header on the wire)."""


@dataclass(frozen=True, slots=True)
class DirectoryEntry:
    """What the key directory knows of a key: who owns it and where."""

    key: PixKey
    ispb: str
    name: str
    document: str
    bank_name: str
    branch: str
    account_number: str
    behavior: str = "settle"  # sandbox only: "settle" or "reject"
    account_id: int | None = None  # set when an account of this service owns the key

    @classmethod
    def parse(
        cls,
        *,
        pix_key: str,
        ispb: str,
        name: str,
        document: str,
        bank_name: str,
        branch: str,
        account_number: str,
        behavior: str,
    ) -> DirectoryEntry:
        """A key of another institution, as the sandbox's directory takes it; every broken rule
        collected into one ``ValidationError``."""
        problems: list[Problem] = []
        key = collect(problems, DirectoryField.KEY, lambda: parse_pix_key(pix_key))
        owner = collect(problems, DirectoryField.DOCUMENT, lambda: parse_document(document).value)
        bank = collect(problems, DirectoryField.INSTITUTION, lambda: validate_ispb(ispb))
        if behavior not in BEHAVIORS:
            problems.append(Problem.of(DirectoryField.BEHAVIOR, f"one of {', '.join(BEHAVIORS)}"))
        if not name.strip() or len(name) > MAX_NAME:
            problems.append(Problem.of(DirectoryField.NAME, f"1 to {MAX_NAME} characters"))
        if not bank_name.strip() or len(bank_name) > MAX_BANK_NAME:
            problems.append(Problem.of(DirectoryField.BANK_NAME, f"1 to {MAX_BANK_NAME} characters"))
        if not _BRANCH.fullmatch(branch):
            problems.append(Problem.of(DirectoryField.BRANCH, "4 digits"))
        if not _ACCOUNT.fullmatch(account_number):
            problems.append(Problem.of(DirectoryField.ACCOUNT_NUMBER, "1 to 20 digits"))
        if problems or key is None or owner is None or bank is None:
            raise ValidationError(problems=problems, summary="Invalid directory entry: {}")
        return cls(key, bank, name.strip(), owner, bank_name, branch, account_number, behavior)


def parse_idempotency_key(raw: str | None) -> uuid.UUID:
    """The idempotency key must be a UUID version 4."""
    key = TransferField.IDEMPOTENCY_KEY
    if not raw:
        raise ValidationError(Problem.of((), "The {} header is required (a UUID v4).", key))
    # The canonical 8-4-4-4-12 form only (uuid.UUID would also take braces, "urn:uuid:" or no hyphens).
    if not _UUID4.fullmatch(raw):
        raise ValidationError(
            Problem.of((), "{} must be a UUID v4 (xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx).", key)
        )
    return uuid.UUID(raw)


@dataclass(frozen=True, slots=True)
class TransferRequest:
    """A validated ``POST /dict/pix`` body."""

    pix_key: PixKey
    amount: int
    priority: Priority
    expiration: int
    creditor_document: str | None = None
    description: str | None = None
    ispb_deny: frozenset[str] = frozenset()
    payment_flow: str | None = None

    @classmethod
    def parse(
        cls,
        *,
        pix_key: str,
        amount: int | Decimal | float,
        currency: str,
        priority: str | None,
        expiration: int | None,
        creditor_document: str | None,
        description: str | None,
        ispb_deny: list[str] | None,
        payment_flow: str | None,
    ) -> TransferRequest:
        """Every 400 rule of the request, collected into one ``ValidationError``."""
        problems: list[Problem] = []
        key = collect(problems, TransferField.KEY, lambda: parse_pix_key(pix_key))
        cents = collect(problems, TransferField.AMOUNT, lambda: require_positive(parse_amount_number(amount)))
        if currency != "BRL":
            problems.append(Problem.of(TransferField.CURRENCY, "only BRL is accepted"))
        level = collect(problems, TransferField.PRIORITY, lambda: Priority(priority or Priority.NORM))
        seconds = DEFAULT_EXPIRATION if expiration is None else expiration
        if isinstance(seconds, bool) or not 1 <= seconds <= MAX_EXPIRATION:
            problems.append(Problem.of(TransferField.EXPIRATION, f"must be 1 to {MAX_EXPIRATION} seconds"))
        document = None
        if creditor_document is not None:
            document = collect(
                problems, TransferField.CREDITOR_DOCUMENT, lambda: parse_document(creditor_document).value
            )
        elif level is Priority.HIGH:
            problems.append(
                Problem.of(
                    TransferField.CREDITOR_DOCUMENT, "required when {} is HIGH", TransferField.PRIORITY
                )
            )
        if description is not None and len(description) > MAX_DESCRIPTION:
            problems.append(Problem.of(TransferField.DESCRIPTION, f"at most {MAX_DESCRIPTION} characters"))
        if payment_flow is not None and len(payment_flow) > MAX_PAYMENT_FLOW:
            problems.append(Problem.of(TransferField.PAYMENT_FLOW, f"at most {MAX_PAYMENT_FLOW} characters"))
        deny = frozenset(
            collect(
                problems,
                TransferField.DENIED_INSTITUTIONS,
                lambda: [validate_ispb(i) for i in ispb_deny or []],
            )
            or []
        )
        if problems or key is None or cents is None or level is None:
            raise ValidationError(problems=problems, summary="Invalid transfer: {}")
        return cls(key, cents, level, seconds, document, description, deny, payment_flow)

    def settle_after(self, created_at: datetime, norm_delay: timedelta) -> datetime:
        return created_at if self.priority is Priority.HIGH else created_at + norm_delay

    def deadline(self, created_at: datetime) -> datetime:
        return created_at + timedelta(seconds=self.expiration)


class TransferLifecycle:
    """PENDING -> COMPLETED | ERROR. Triggers: ``complete()``, ``fail()``."""

    state: TransferState

    def __init__(self, state: TransferState = TransferState.PENDING) -> None:
        self._machine = Machine(
            model=self,
            states=TransferState,
            transitions=[
                {"trigger": "complete", "source": TransferState.PENDING, "dest": TransferState.COMPLETED},
                {"trigger": "fail", "source": TransferState.PENDING, "dest": TransferState.ERROR},
            ],
            initial=state,
            auto_transitions=False,
        )

    def _fire(self, trigger: str) -> TransferState:
        try:
            getattr(self, trigger)()
        except MachineError:
            raise InvalidTransition(f"a {self.state.value} transfer cannot {trigger}") from None
        return self.state

    def settle(self) -> TransferState:
        return self._fire("complete")

    def reject(self) -> TransferState:
        return self._fire("fail")
