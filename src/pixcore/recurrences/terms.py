"""The words of Pix Automático: periodicities, retry policies, journeys, who closed what and why,
and the calendar rules (cycles, settlement dates, the retry window).

A recurrence's ``calendario`` starts on ``dataInicial`` and repeats every period of its
``periodicidade``; its cycles are numbered from 0, the one holding ``dataInicial``. A recurring
charge is due on ``dataDeVencimento``; with ``ajusteDiaUtil`` (the default) it is settled on the
next business day when that date is not one (national holidays only: the service does not know
the payer's municipality's own). Under ``PERMITE_3R_7D`` the receiver may ask up to three more
attempts, each on its own future date, within seven days after the first attempt's date.
"""

from __future__ import annotations

import calendar
import enum
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Generic, TypeVar

from pixcore.business_days import next_business_day
from pixcore.documents import DocumentKind, parse_document

__all__ = [
    "AUTHORIZATION_ENDED",
    "MAX_RETRIES",
    "PAYER_CANCELLED",
    "PAYER_REFUSED",
    "RECEIVER_CANCELLED",
    "RECEIVER_NOT_A_COMPANY",
    "RETRY_WINDOW",
    "AttemptType",
    "Closing",
    "ClosingKind",
    "Journey",
    "Party",
    "Periodicity",
    "RetryPolicy",
    "StatusChange",
    "cycle_of",
    "cycle_start",
    "receives_by_pix_automatico",
    "settlement_date",
]

RECEIVER_NOT_A_COMPANY = "Pix Automático receives for a company (a CNPJ); this account's holder is a person"


def receives_by_pix_automatico(holder_document: str) -> bool:
    """Whether an account whose holder has ``holder_document`` may receive by Pix Automático:
    the standard's ``recebedor`` of a recurrence is a legal person (a CNPJ)."""
    return parse_document(holder_document).kind is DocumentKind.CNPJ


MAX_RETRIES = 3
"""Attempts after the first that ``PERMITE_3R_7D`` allows."""
RETRY_WINDOW = timedelta(days=7)
"""How long after the first attempt's date a retry may be dated (``PERMITE_3R_7D``)."""


class Periodicity(enum.StrEnum):
    """``calendario.periodicidade``: how often the recurrence charges, in months (weeks for SEMANAL)."""

    SEMANAL = "SEMANAL"
    MENSAL = "MENSAL"
    TRIMESTRAL = "TRIMESTRAL"
    SEMESTRAL = "SEMESTRAL"
    ANUAL = "ANUAL"

    @property
    def months(self) -> int:
        """The period in months; 0 for SEMANAL (a period of 7 days)."""
        return _MONTHS[self]


_MONTHS = {
    Periodicity.SEMANAL: 0,
    Periodicity.MENSAL: 1,
    Periodicity.TRIMESTRAL: 3,
    Periodicity.SEMESTRAL: 6,
    Periodicity.ANUAL: 12,
}


class RetryPolicy(enum.StrEnum):
    """``politicaRetentativa``: whether the receiver may ask new attempts after a failed one."""

    NAO_PERMITE = "NAO_PERMITE"
    PERMITE_3R_7D = "PERMITE_3R_7D"


class Journey(enum.StrEnum):
    """``ativacao.tipoJornada``: how the payer came to authorize the recurrence.

    JORNADA_1: a request sent to the payer's bank (``/solicrec``); JORNADA_2: the payer read the
    recurrence's QR code; JORNADA_3: the payer paid an immediate charge (``dadosJornada.txid``)
    through a composite QR code and authorized with it; JORNADA_4: the payer read a composite QR
    code of a due-date charge and authorized (without paying it then)."""

    JORNADA_1 = "JORNADA_1"
    JORNADA_2 = "JORNADA_2"
    JORNADA_3 = "JORNADA_3"
    JORNADA_4 = "JORNADA_4"
    AGUARDANDO_DEFINICAO = "AGUARDANDO_DEFINICAO"


class AttemptType(enum.StrEnum):
    """A recurring charge's attempt: AGND the scheduled one, NTAG a new one the receiver asked
    (a retry). RIFL (the payer's bank's own intraday retry) is the standard's, not simulated."""

    AGND = "AGND"
    NTAG = "NTAG"
    RIFL = "RIFL"


class Party(enum.StrEnum):
    """``solicitante``: who asked a cancellation."""

    PSP_PAGADOR = "PSP_PAGADOR"
    USUARIO_PAGADOR = "USUARIO_PAGADOR"
    PSP_RECEBEDOR = "PSP_RECEBEDOR"
    USUARIO_RECEBEDOR = "USUARIO_RECEBEDOR"


class ClosingKind(enum.StrEnum):
    """``encerramento``: a rejection or a cancellation."""

    REJEICAO = "rejection"
    CANCELAMENTO = "cancellation"


@dataclass(frozen=True, slots=True)
class Closing:
    """Why a recurrence, a charge or an attempt ended: a rejection or a cancellation, with the
    code of the central bank's message catalogue and its description; a cancellation names who
    asked it."""

    kind: ClosingKind
    code: str
    description: str
    requester: Party | None = None

    @classmethod
    def cancelled(cls, by: Party, code: str, description: str) -> Closing:
        return cls(ClosingKind.CANCELAMENTO, code, description, by)

    @classmethod
    def rejected(cls, code: str, description: str) -> Closing:
        return cls(ClosingKind.REJEICAO, code, description)


RECEIVER_CANCELLED = Closing.cancelled(
    Party.USUARIO_RECEBEDOR, "SLCR", "Cancelamento solicitado pelo usuário recebedor"
)
"""A recurrence or charge cancelled by its receiver (``PATCH`` with status CANCELADA)."""
PAYER_CANCELLED = Closing.cancelled(
    Party.USUARIO_PAGADOR, "SLDB", "Cancelamento solicitado pelo usuário pagador"
)
"""A recurrence cancelled by its payer (the sandbox's payer)."""
PAYER_REFUSED = Closing.rejected("AP13", "Autorização recusada pelo usuário pagador")
"""A recurrence its payer refused to authorize (the sandbox's payer answers with AP13, one of the
two codes the standard lists)."""
AUTHORIZATION_ENDED = Closing.cancelled(Party.PSP_RECEBEDOR, "CCLD", "Autorização da recorrência encerrada")
"""A recurring charge cancelled because its recurrence was."""


S = TypeVar("S", bound=enum.Enum)


@dataclass(frozen=True, slots=True)
class StatusChange(Generic[S]):
    """One line of a history (``atualizacao``): the status taken, and when."""

    status: S
    at: datetime


def _add_months(day: date, months: int) -> date:
    """``day`` moved ``months`` ahead, kept within the month (31 Jan + 1 month is 28/29 Feb)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def cycle_start(start: date, periodicity: Periodicity, cycle: int) -> date:
    """The first day of cycle ``cycle`` of a calendar starting on ``start``."""
    if periodicity is Periodicity.SEMANAL:
        return start + timedelta(weeks=cycle)
    return _add_months(start, periodicity.months * cycle)


def cycle_of(start: date, periodicity: Periodicity, day: date) -> int:
    """The cycle holding ``day`` (on or after ``start``): the last one starting on or before it."""
    if day < start:
        raise ValueError("a day before the calendar's start is in no cycle")
    if periodicity is Periodicity.SEMANAL:
        return (day - start).days // 7
    months = (day.year - start.year) * 12 + day.month - start.month
    cycle = max(0, months // periodicity.months)
    while cycle_start(start, periodicity, cycle) > day:
        cycle -= 1
    while cycle_start(start, periodicity, cycle + 1) <= day:
        cycle += 1
    return cycle


def settlement_date(due: date, *, adjust: bool) -> date:
    """The date a charge due on ``due`` is settled: the next business day when ``adjust`` and
    ``due`` is not one."""
    return next_business_day(due) if adjust else due
