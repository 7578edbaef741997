"""The receiver's requests, typed by the edge and judged here: a recurrence (``POST /rec``), its
revision (``PATCH /rec/{idRec}``), a request for the payer's authorization (``POST /solicrec``) and
a recurring charge (``PUT``/``POST /cobr``).

The edge decodes the body into these values (dates as ``date``, amounts in centavos, enums as
enums; a value of the wrong shape never gets here); each ``judge`` collects every rule of the
standard that needs no stored data into one error whose problems name fields by reference (a
:class:`RecurrenceField`, :class:`RequestField`, :class:`RecurringChargeField`). Rules that read
stored data (the location, the recurrence's status, the cycle) are the use cases'.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date, datetime

from pixcore.documents import parse_document
from pixcore.errors import InvalidDocument, InvalidIdentifier
from pixcore.identifiers import validate_ispb, validate_txid
from pixcore.money import MAX_CENTS
from pixcore.problems import Field, Problem
from pixcore.recurrences.errors import InvalidRecurrence, InvalidRecurrenceRequest, InvalidRecurringCharge
from pixcore.recurrences.records import Debtor, Payer
from pixcore.recurrences.terms import Periodicity, RetryPolicy

__all__ = [
    "MAX_AGREEMENT",
    "MAX_CONTRACT",
    "MAX_DEBTOR_NAME",
    "MAX_INFORMATION",
    "MAX_PURPOSE",
    "AccountType",
    "ChargeTerms",
    "RecurrenceField",
    "RecurrenceRevision",
    "RecurrenceTerms",
    "RecurringChargeField",
    "RequestField",
    "RequestTerms",
]

MAX_CONTRACT = 35
MAX_PURPOSE = 35
MAX_DEBTOR_NAME = 140
MAX_AGREEMENT = 60
MAX_INFORMATION = 140
MAX_AMOUNT = MAX_CENTS
"""The standard's ``\\d{1,10}\\.\\d{2}``, in centavos."""


class RecurrenceField(Field):
    CONTRACT = enum.auto()
    DEBTOR = enum.auto()
    DEBTOR_NAME = enum.auto()
    PURPOSE = enum.auto()
    START = enum.auto()
    END = enum.auto()
    FIXED_AMOUNT = enum.auto()
    MINIMUM_AMOUNT = enum.auto()
    AGREEMENT = enum.auto()
    RECEIVER = enum.auto()
    LOC_ID = enum.auto()
    JOURNEY_TXID = enum.auto()
    STATUS = enum.auto()


class RequestField(Field):
    REC_ID = enum.auto()
    EXPIRES_AT = enum.auto()
    RECIPIENT = enum.auto()
    RECIPIENT_ISPB = enum.auto()
    RECIPIENT_ACCOUNT = enum.auto()
    RECIPIENT_BRANCH = enum.auto()


class RecurringChargeField(Field):
    REC_ID = enum.auto()
    DUE_DATE = enum.auto()
    AMOUNT = enum.auto()
    INFORMATION = enum.auto()
    RECEIVER_ACCOUNT = enum.auto()
    RECEIVER_BRANCH = enum.auto()
    STATUS = enum.auto()
    RETRY_DATE = enum.auto()


class AccountType(enum.StrEnum):
    """``recebedor.tipoConta`` of a recurring charge."""

    CORRENTE = "CORRENTE"
    POUPANCA = "POUPANCA"
    PAGAMENTO = "PAGAMENTO"


def _text(problems: list[Problem], field: Field, value: str | None, limit: int, *, required: bool) -> None:
    """A text of at most ``limit`` characters; the standard's schemas set no minimum, so the empty
    text is one (as a charge's debtor may be named by it)."""
    if value is None:
        if required:
            problems.append(Problem.of(field, "required"))
        return
    if len(value) > limit:
        problems.append(Problem.of(field, f"at most {limit} characters"))


def _amount(problems: list[Problem], field: Field, cents: int | None) -> None:
    if cents is not None and not 0 < cents <= MAX_AMOUNT:
        problems.append(Problem.of(field, "must be a positive amount of at most 10 digits and 2 decimals"))


def _document(problems: list[Problem], field: Field, document: str) -> None:
    try:
        parse_document(document)
    except InvalidDocument:
        problems.append(Problem.of(field, "must be a valid CPF (11 digits) or CNPJ (14 characters)"))


@dataclass(frozen=True, slots=True, kw_only=True)
class RecurrenceTerms:
    """A ``POST /rec`` body, typed."""

    contract: str
    debtor: Debtor
    purpose: str | None = None
    start: date
    end: date | None = None
    periodicity: Periodicity
    fixed_amount: int | None = None
    minimum_amount: int | None = None
    retry_policy: RetryPolicy
    agreement: str | None = None
    loc_id: int | None = None
    journey_txid: str | None = None

    def judge(self, today: date) -> None:
        """Every rule of ``RecOperacaoInvalida`` that needs no stored data: ``today`` is the
        payer's day of the creation (``dataInicial`` may not be before it)."""
        problems: list[Problem] = []
        _text(problems, RecurrenceField.CONTRACT, self.contract, MAX_CONTRACT, required=True)
        _document(problems, RecurrenceField.DEBTOR, self.debtor.document)
        _text(problems, RecurrenceField.DEBTOR_NAME, self.debtor.name, MAX_DEBTOR_NAME, required=True)
        _text(problems, RecurrenceField.PURPOSE, self.purpose, MAX_PURPOSE, required=False)
        if self.start < today:
            problems.append(Problem.of(RecurrenceField.START, "must not be before the recurrence's creation"))
        if self.end is not None and self.end < self.start:
            problems.append(Problem.of(RecurrenceField.END, "must not be before {}", RecurrenceField.START))
        _amount(problems, RecurrenceField.FIXED_AMOUNT, self.fixed_amount)
        _amount(problems, RecurrenceField.MINIMUM_AMOUNT, self.minimum_amount)
        if self.fixed_amount is not None and self.minimum_amount is not None:
            problems.append(
                Problem.of(
                    (RecurrenceField.FIXED_AMOUNT, RecurrenceField.MINIMUM_AMOUNT),
                    "give one of them, not both",
                )
            )
        _text(problems, RecurrenceField.AGREEMENT, self.agreement, MAX_AGREEMENT, required=False)
        _journey_txid(problems, self.journey_txid)
        if problems:
            raise InvalidRecurrence(problems=problems, summary="Invalid recurrence: {}")


def _journey_txid(problems: list[Problem], txid: str | None) -> None:
    if txid is None:
        return
    try:
        validate_txid(txid)
    except InvalidIdentifier:
        problems.append(Problem.of(RecurrenceField.JOURNEY_TXID, "must be 26 to 35 letters and digits"))


@dataclass(frozen=True, slots=True, kw_only=True)
class RecurrenceRevision:
    """A ``PATCH /rec/{idRec}`` body, typed: the fields to change (None: kept) and ``cancel``
    (status CANCELADA), which ends the recurrence once they are changed."""

    cancel: bool = False
    debtor_name: str | None = None
    loc_id: int | None = None
    start: date | None = None
    journey_txid: str | None = None

    def judge(self) -> None:
        problems: list[Problem] = []
        _text(problems, RecurrenceField.DEBTOR_NAME, self.debtor_name, MAX_DEBTOR_NAME, required=False)
        _journey_txid(problems, self.journey_txid)
        if problems:
            raise InvalidRecurrence(problems=problems, summary="Invalid recurrence change: {}")


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestTerms:
    """A ``POST /solicrec`` body, typed: the recurrence, the holder asked (``destinatario``) and
    until when they may answer."""

    rec_id: str
    expires_at: datetime
    recipient: Payer
    recipient_account: str
    recipient_branch: str | None = None

    def judge(self, now: datetime) -> None:
        problems: list[Problem] = []
        if self.expires_at <= now:
            problems.append(Problem.of(RequestField.EXPIRES_AT, "must be after the request's creation"))
        _document(problems, RequestField.RECIPIENT, self.recipient.document)
        try:
            validate_ispb(self.recipient.ispb)
        except InvalidIdentifier:
            problems.append(Problem.of(RequestField.RECIPIENT_ISPB, "must be 8 digits"))
        _text(problems, RequestField.RECIPIENT_ACCOUNT, self.recipient_account, 20, required=True)
        _text(problems, RequestField.RECIPIENT_BRANCH, self.recipient_branch, 4, required=False)
        if problems:
            raise InvalidRecurrenceRequest(problems=problems, summary="Invalid request: {}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChargeTerms:
    """A ``PUT``/``POST /cobr`` body, typed."""

    rec_id: str
    due_date: date
    amount: int
    adjust_to_business_day: bool = True
    information: str | None = None
    receiver_account: str
    receiver_branch: str | None = None
    receiver_account_type: AccountType
    debtor_email: str | None = None
    debtor_street: str | None = None
    debtor_city: str | None = None
    debtor_state: str | None = None
    debtor_postal_code: str | None = None

    def judge(self, today: date) -> None:
        """The rules of ``CobROperacaoInvalida`` that need no stored data; ``today``: the payer's day."""
        problems: list[Problem] = []
        if self.due_date < today:
            problems.append(
                Problem.of(RecurringChargeField.DUE_DATE, "must not be before the charge's creation")
            )
        _amount(problems, RecurringChargeField.AMOUNT, self.amount)
        _text(problems, RecurringChargeField.INFORMATION, self.information, MAX_INFORMATION, required=False)
        _text(problems, RecurringChargeField.RECEIVER_ACCOUNT, self.receiver_account, 20, required=True)
        _text(problems, RecurringChargeField.RECEIVER_BRANCH, self.receiver_branch, 4, required=False)
        if problems:
            raise InvalidRecurringCharge(problems=problems, summary="Invalid recurring charge: {}")
