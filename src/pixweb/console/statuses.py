"""One word per state: how every page of the console names the state of a record.

Each kind of record the console shows has its states (the domain's enums, as the API and the
standard name them: ``CONFIRMED``, ``COMPLETED``, ``DEVOLVIDO``...). The console says one word
for each, the same word for the same state on every page (a transfer is *Confirmed* on its
transaction's page as on the list), translated by the catalogs; and a tone, its colour.
docs/concepts.md has the glossary.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pixcore.charges.cob import ChargeStatus
from pixcore.records import TransactionStatus, TransactionType
from pixcore.recurrences import AttemptStatus, RecurrenceStatus, RecurringChargeStatus, RequestStatus
from pixcore.refunds.med import MedStatus
from pixcore.refunds.rules import RefundStatus
from pixcore.transfers.rules import TransferState
from pixcore.webhooks.rules import DeliveryStatus
from pixweb.console.language import noop

__all__ = ["KINDS", "STATUSES", "TYPES", "Status", "WebhookState", "status_for"]


class WebhookState(enum.StrEnum):
    """A webhook registration's state (the API's ``isActive``)."""

    ACTIVE = "active"
    DEACTIVATED = "deactivated"


class Tone(enum.StrEnum):
    """A state's colour: under way, done, gone wrong, or switched off."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Status:
    """A state as pages show it: ``label`` is a catalog text (English, translated when shown)."""

    label: str
    tone: Tone


PENDING = Status(noop("Pending"), Tone.PENDING)
CONFIRMED = Status(noop("Confirmed"), Tone.DONE)
FAILED = Status(noop("Failed"), Tone.FAILED)
OPEN = Status(noop("Open"), Tone.PENDING)
CREATED = Status(noop("Created"), Tone.PENDING)
PAID = Status(noop("Paid"), Tone.DONE)
ACCEPTED = Status(noop("Accepted"), Tone.DONE)
REJECTED = Status(noop("Rejected"), Tone.FAILED)
CANCELLED = Status(noop("Cancelled"), Tone.FAILED)
EXPIRED = Status(noop("Expired"), Tone.FAILED)

STATUSES: dict[str, dict[enum.Enum, Status]] = {
    "transaction": {
        TransactionStatus.PENDING: PENDING,
        TransactionStatus.CONFIRMED: CONFIRMED,
        TransactionStatus.ERROR: FAILED,
    },
    # A transfer is a transaction of ours: its states are its record's.
    "transfer": {
        TransferState.PENDING: PENDING,
        TransferState.COMPLETED: CONFIRMED,
        TransferState.ERROR: FAILED,
    },
    "refund": {
        RefundStatus.EM_PROCESSAMENTO: PENDING,
        RefundStatus.DEVOLVIDO: CONFIRMED,
        RefundStatus.NAO_REALIZADO: FAILED,
    },
    "charge": {
        ChargeStatus.ATIVA: OPEN,
        ChargeStatus.CONCLUIDA: PAID,
        ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR: CANCELLED,
        ChargeStatus.REMOVIDA_PELO_PSP: EXPIRED,
    },
    "med": {
        MedStatus.CREATED: OPEN,
        MedStatus.ACCEPTED: ACCEPTED,
        MedStatus.REJECTED: REJECTED,
    },
    "delivery": {
        DeliveryStatus.PENDING: PENDING,
        DeliveryStatus.DELIVERED: Status(noop("Delivered"), Tone.DONE),
        DeliveryStatus.FAILED: FAILED,
    },
    "webhook": {
        WebhookState.ACTIVE: Status(noop("Active"), Tone.DONE),
        WebhookState.DEACTIVATED: Status(noop("Deactivated"), Tone.OFF),
    },
    "recurrence": {
        RecurrenceStatus.CRIADA: Status(noop("Awaiting approval"), Tone.PENDING),
        RecurrenceStatus.APROVADA: Status(noop("Approved"), Tone.DONE),
        RecurrenceStatus.REJEITADA: REJECTED,
        RecurrenceStatus.EXPIRADA: EXPIRED,
        RecurrenceStatus.CANCELADA: CANCELLED,
    },
    "recurrence_request": {
        RequestStatus.CRIADA: CREATED,
        RequestStatus.ENVIADA: Status(noop("Sent"), Tone.PENDING),
        RequestStatus.RECEBIDA: Status(noop("Received"), Tone.PENDING),
        RequestStatus.ACEITA: ACCEPTED,
        RequestStatus.REJEITADA: REJECTED,
        RequestStatus.EXPIRADA: EXPIRED,
        RequestStatus.CANCELADA: CANCELLED,
    },
    "recurring_charge": {
        RecurringChargeStatus.CRIADA: CREATED,
        RecurringChargeStatus.ATIVA: OPEN,
        RecurringChargeStatus.CONCLUIDA: PAID,
        RecurringChargeStatus.EXPIRADA: EXPIRED,
        RecurringChargeStatus.REJEITADA: REJECTED,
        RecurringChargeStatus.CANCELADA: CANCELLED,
    },
    "attempt": {
        AttemptStatus.SOLICITADA: Status(noop("Requested"), Tone.PENDING),
        AttemptStatus.AGENDADA: Status(noop("Scheduled"), Tone.PENDING),
        AttemptStatus.PAGA: PAID,
        AttemptStatus.CANCELADA: CANCELLED,
        AttemptStatus.REJEITADA: REJECTED,
        AttemptStatus.EXPIRADA: EXPIRED,
    },
}
"""Every state of every kind of record the console shows, by kind, with its one word."""

KINDS: dict[str, type[enum.Enum]] = {kind: type(next(iter(states))) for kind, states in STATUSES.items()}
"""The enum of each kind's states."""


def status_for(kind: str, state: object) -> Status:
    """The word of ``state`` (a member of the kind's enum, or its value as the API writes it)."""
    states = STATUSES[kind]
    member = state if isinstance(state, KINDS[kind]) else KINDS[kind](state)
    return states[member]


TYPES: dict[TransactionType, str] = {
    TransactionType.PAYMENT: noop("Pix in"),
    TransactionType.WITHDRAW: noop("Pix out"),
    TransactionType.REFUND_IN: noop("Refund in"),
    TransactionType.REFUND_OUT: noop("Refund out"),
}
"""What each kind of transaction record is called (the API's display words, translated)."""
