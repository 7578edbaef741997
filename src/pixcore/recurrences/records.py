"""What Pix Automático stores: a recurrence with its payer's answer, a request for that answer,
a recurring charge with its attempts, and a recurrence's payload location.

Each is a frozen value; a use case changes one by building the next value (``dataclasses.replace``
with the status its lifecycle gives and one more line of history) and hands it to its repository.
No wire names here: the edge maps the standard's JSON onto these and back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime

from pixcore.recurrences.lifecycles import (
    AttemptStatus,
    RecurrenceStatus,
    RecurringChargeStatus,
    RequestStatus,
)
from pixcore.recurrences.terms import (
    AttemptType,
    Closing,
    Journey,
    Periodicity,
    RetryPolicy,
    StatusChange,
)

__all__ = [
    "Attempt",
    "Debtor",
    "NewRecurrence",
    "NewRecurrenceLocation",
    "NewRecurrenceRequest",
    "NewRecurringCharge",
    "Payer",
    "Recurrence",
    "RecurrenceLocation",
    "RecurrenceRequest",
    "RecurringCharge",
]


@dataclass(frozen=True, slots=True)
class Debtor:
    """``vinculo.devedor``: who owes under the contract (a CPF or a CNPJ, and a name)."""

    document: str
    name: str


@dataclass(frozen=True, slots=True)
class Payer:
    """Who pays: a holder (CPF or CNPJ) at an institution (``ispbParticipante``), with the
    municipality code of the standard's ``pagador.codMun`` when known. Their balance at that
    institution is the sandbox's :class:`~pixcore.recurrences.ports.PayerBank`'s."""

    document: str
    ispb: str
    city_code: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRecurrence:
    """A recurrence to store: the receiver's terms (``vinculo``, ``calendario``, ``valor``,
    ``politicaRetentativa``, ``recebedor.convenio``) and its first status, CRIADA."""

    account_id: int
    rec_id: str
    contract: str
    debtor: Debtor
    purpose: str | None
    start: date
    end: date | None
    periodicity: Periodicity
    fixed_amount: int | None
    """``valorRec``: every charge of it is of this amount (centavos); None: it varies."""
    minimum_amount: int | None
    """``valorMinimoRecebedor``: the floor of a maximum the payer may set; never with ``fixed_amount``."""
    retry_policy: RetryPolicy
    agreement: str | None
    """``recebedor.convenio``."""
    created_at: datetime
    loc_id: int | None = None
    journey_txid: str | None = None
    """``ativacao.dadosJornada.txid``: the immediate charge of a JORNADA_3 (the payer pays it
    when authorizing)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Recurrence(NewRecurrence):
    """A recurrence as stored (``id`` is the row's)."""

    id: int
    status: RecurrenceStatus = RecurrenceStatus.CRIADA
    history: tuple[StatusChange[RecurrenceStatus], ...] = ()
    journey: Journey = Journey.AGUARDANDO_DEFINICAO
    payer: Payer | None = None
    """``pagador``: who authorized it (from APROVADA on)."""
    closing: Closing | None = None
    """``encerramento``: why it was rejected or cancelled."""
    updated_at: datetime | None = None

    def status_at(self, day: date) -> RecurrenceStatus:
        """The status a reader sees on the payer's ``day``: CRIADA or APROVADA past its last day
        (``dataFinal``) is EXPIRADA already."""
        if self.end is not None and day > self.end and not self.status.closed:
            return RecurrenceStatus.EXPIRADA
        return self.status

    def moved(self, status: RecurrenceStatus, at: datetime) -> Recurrence:
        """This recurrence in ``status`` from ``at``, its history one line longer."""
        line = StatusChange(status, at)
        return dataclasses.replace(self, status=status, history=(*self.history, line), updated_at=at)


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRecurrenceRequest:
    """A request sent to the payer's bank for its holder to authorize a recurrence (JORNADA_1):
    the holder (``destinatario``: a document at an institution, with its account) and until when
    the holder may answer (``dataExpiracaoSolicitacao``)."""

    account_id: int
    request_id: str
    recurrence_id: int
    rec_id: str
    recipient: Payer
    recipient_account: str
    recipient_branch: str | None
    expires_at: datetime
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class RecurrenceRequest(NewRecurrenceRequest):
    id: int
    status: RequestStatus = RequestStatus.CRIADA
    history: tuple[StatusChange[RequestStatus], ...] = ()
    updated_at: datetime | None = None

    def status_at(self, now: datetime) -> RequestStatus:
        """An open request past ``expires_at`` reads EXPIRADA."""
        if self.status.open and now >= self.expires_at:
            return RequestStatus.EXPIRADA
        return self.status

    def moved(self, status: RequestStatus, at: datetime) -> RecurrenceRequest:
        line = StatusChange(status, at)
        return dataclasses.replace(self, status=status, history=(*self.history, line), updated_at=at)


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One attempt to settle a recurring charge on ``settles_on``, under its own end-to-end id."""

    number: int
    """0 the scheduled attempt (AGND), 1 to 3 the retries (NTAG)."""
    type: AttemptType
    settles_on: date
    end_to_end_id: str
    status: AttemptStatus = AttemptStatus.SOLICITADA
    history: tuple[StatusChange[AttemptStatus], ...] = ()
    rejection: Closing | None = None

    def moved(self, status: AttemptStatus, at: datetime, rejection: Closing | None = None) -> Attempt:
        line = StatusChange(status, at)
        return dataclasses.replace(self, status=status, history=(*self.history, line), rejection=rejection)


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRecurringCharge:
    """A charge of one cycle of an APROVADA recurrence, due on ``due_date``; its first attempt is
    asked of the payer's bank with it. ``debtor_*`` are the standard's optional ``devedor`` of a
    ``cobr`` (an address and an e-mail: the debtor's name and document are the recurrence's)."""

    account_id: int
    txid: str
    recurrence_id: int
    rec_id: str
    cycle: int
    amount: int
    due_date: date
    adjust_to_business_day: bool
    retry_policy: RetryPolicy
    information: str | None
    receiver_account: str
    receiver_branch: str | None
    receiver_account_type: str
    debtor_email: str | None
    debtor_street: str | None
    debtor_city: str | None
    debtor_state: str | None
    debtor_postal_code: str | None
    created_at: datetime
    first_attempt: Attempt
    """The scheduled attempt (AGND), as it is now (a stored charge's ``attempts[0]``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RecurringCharge(NewRecurringCharge):
    id: int
    status: RecurringChargeStatus = RecurringChargeStatus.CRIADA
    history: tuple[StatusChange[RecurringChargeStatus], ...] = ()
    attempts: tuple[Attempt, ...] = ()
    closing: Closing | None = None
    transaction_id: int | None = None
    """The PAYMENT record of the attempt that paid it."""
    paid_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def first_date(self) -> date:
        """The date of its first attempt (the due date, moved to a business day if asked)."""
        return self.attempts[0].settles_on if self.attempts else self.first_attempt.settles_on

    @property
    def pending(self) -> Attempt | None:
        """The attempt still SOLICITADA or AGENDADA, if any (there is at most one)."""
        return next((a for a in self.attempts if a.status.pending), None)

    @property
    def retries(self) -> int:
        """How many attempts after the first were asked."""
        return max(0, len(self.attempts) - 1)

    @property
    def paid_by(self) -> Attempt | None:
        return next((a for a in self.attempts if a.status is AttemptStatus.PAGA), None)

    def moved(self, status: RecurringChargeStatus, at: datetime) -> RecurringCharge:
        """This charge in ``status`` from ``at``, its history one line longer."""
        line = StatusChange(status, at)
        return dataclasses.replace(self, status=status, history=(*self.history, line), updated_at=at)

    def with_attempt(self, attempt: Attempt) -> RecurringCharge:
        """This charge with ``attempt`` in place of the one of its number (or added after the others)."""
        kept = [a for a in self.attempts if a.number != attempt.number]
        attempts = tuple(sorted([*kept, attempt], key=lambda a: a.number))
        return dataclasses.replace(self, attempts=attempts, first_attempt=attempts[0])


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRecurrenceLocation:
    """A location of a recurrence's payload (``/locrec``): the URL's last part is ``token``."""

    account_id: int
    token: str
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class RecurrenceLocation(NewRecurrenceLocation):
    """A location as stored: its ``id`` (``loc.id``) and the recurrence at it, if any."""

    id: int
    rec_id: str | None = None

    def url(self, prefix: str) -> str:
        """``{host}/qr/v2/rec/{token}``, ``prefix`` being ``{host}/qr/v2/``."""
        return f"{prefix}rec/{self.token}"
