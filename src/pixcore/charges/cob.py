"""Charges (``cob``) and cash-in QR codes: the request rules, the stored charge and its lifecycle.

A charge is a request for one payment. It is ATIVA from its creation until it
is paid (CONCLUIDA), cancelled by its owner (REMOVIDA_PELO_USUARIO_RECEBEDOR)
or removed by the PSP when it expires (REMOVIDA_PELO_PSP); the last three are
terminal. Expiry needs no writer to be true: :meth:`Charge.status_at` shows an
ATIVA charge past ``criacao + expiracao`` as REMOVIDA_PELO_PSP, and a sweep
persists it. A cash-in is a charge whose txid the service generates, with a
PENDING transaction record from the start.

Its payer scans a dynamic BR Code: ``26-25`` points at ``{host}/qr/v2/{id}``,
where the payer's PSP fetches the signed payload (rendered by the web layer).

No wire names here: the edge maps a request body onto :class:`ChargeFields` and renders
charges back; the rules' problems name each field by reference (:class:`ImmediateField`,
:class:`~pixcore.charges.parts.ChargeField`, :class:`CashInField`), which the edge renders as its
path in the body.
"""

from __future__ import annotations

import enum
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from transitions import Machine, MachineError

from pixcore import brcode
from pixcore.amount_parts import CashPart, DueAmount
from pixcore.charges.parts import (
    MAX_DEBTOR_NAME,
    MAX_INFO_ITEMS,
    MAX_INFO_NAME,
    MAX_INFO_VALUE,
    MAX_KEY,
    MAX_LOC_ID,
    MAX_PAYER_REQUEST,
    ChargeField,
    Debtor,
    DebtorFields,
    InfoFields,
    KeptParticulars,
    Particulars,
    RequestFields,
    RevisionFields,
    Text,
    Whole,
    judge_debtor,
    judge_info,
    judge_loc_id,
    judge_revised_parts,
    judge_text,
)
from pixcore.charges.withdrawal import (
    PART_FIELD,
    Withdrawal,
    WithdrawalFields,
    WithdrawalKind,
    judge_withdrawal,
)
from pixcore.documents import parse_document
from pixcore.errors import AmountMismatch, InvalidTransition, ValidationError
from pixcore.money import (
    format_amount_string,
    parse_amount_number,
    parse_amount_string,
    require_positive,
)
from pixcore.problems import Field, Member, Problem
from pixcore.validation import ABSENT, Absent, Invalid, collect

if TYPE_CHECKING:
    from pixcore.charges.cobv import DueTerms

__all__ = [
    "ABSENT",
    "CASH_IN_EXPIRATION",
    "DEFAULT_EXPIRATION",
    "MAX_ADDITIONAL_INFO",
    "MAX_ADDITIONAL_INFO_KEY",
    "MAX_ADDITIONAL_INFO_VALUE",
    "MAX_CASH_IN_DESCRIPTION",
    "MAX_DEBTOR_NAME",
    "MAX_EXTERNAL_ID",
    "MAX_INFO_ITEMS",
    "MAX_INFO_NAME",
    "MAX_INFO_VALUE",
    "MAX_KEY",
    "MAX_LOC_ID",
    "MAX_PAYER_NAME",
    "MAX_PAYER_REQUEST",
    "Absent",
    "CalendarFields",
    "CashInField",
    "CashInRequest",
    "Charge",
    "ChargeFields",
    "ChargeKind",
    "ChargeLifecycle",
    "ChargeLine",
    "ChargeRequest",
    "ChargeRevision",
    "ChargeRevisionFields",
    "ChargeStatus",
    "Debtor",
    "DebtorFields",
    "ImmediateField",
    "InfoFields",
    "NewCharge",
    "RevisionFields",
    "ValueFields",
    "amount_to_pay",
    "ascii_text",
    "cash_payment_parts",
    "dynamic_code",
    "judge_debtor",
    "judge_info",
    "judge_loc_id",
    "judge_revised_parts",
    "judge_text",
    "new_location_id",
]

DEFAULT_EXPIRATION = 86_400
MAX_EXPIRATION = 2_147_483_647  # the standard API's int32
CASH_IN_EXPIRATION = (300, 604_800)
MAX_CASH_IN_DESCRIPTION = 140
MAX_EXTERNAL_ID = 100
MAX_PAYER_NAME = 100
MAX_ADDITIONAL_INFO = 10
MAX_ADDITIONAL_INFO_KEY = 50
MAX_ADDITIONAL_INFO_VALUE = 200


class ImmediateField(Field):
    """A ``cob``'s own fields (the others: :class:`~pixcore.charges.parts.ChargeField`)."""

    EXPIRATION = enum.auto()
    MODALITY = enum.auto()
    """Whether the payer may change the amount."""


class CashInField(Field):
    """The fields of a cash-in request, as :meth:`CashInRequest.parse` names them in its problems."""

    AMOUNT = enum.auto()
    DESCRIPTION = enum.auto()
    EXTERNAL_ID = enum.auto()
    EXPIRATION = enum.auto()
    GENERATE_QR_CODE = enum.auto()
    PAYER_NAME = enum.auto()
    PAYER_DOCUMENT = enum.auto()
    ADDITIONAL_INFO = enum.auto()


class ChargeStatus(enum.StrEnum):
    ATIVA = "ATIVA"
    CONCLUIDA = "CONCLUIDA"
    REMOVIDA_PELO_USUARIO_RECEBEDOR = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
    REMOVIDA_PELO_PSP = "REMOVIDA_PELO_PSP"


class ChargeKind(enum.StrEnum):
    COB = "cob"
    CASH_IN = "cashin"
    COBV = "cobv"
    """A due-date charge: its terms (due date, fines, interest, discounts) in ``Charge.due``."""


class ChargeLifecycle:
    """ATIVA -> CONCLUIDA | REMOVIDA_PELO_USUARIO_RECEBEDOR | REMOVIDA_PELO_PSP; the rest is terminal.

    Triggers: :meth:`conclude` (paid), :meth:`cancel` (by the receiver), :meth:`expire` (by the PSP).
    """

    state: ChargeStatus

    def __init__(self, state: ChargeStatus = ChargeStatus.ATIVA) -> None:
        active = ChargeStatus.ATIVA
        self._machine = Machine(
            model=self,
            states=ChargeStatus,
            transitions=[
                {"trigger": "pay", "source": active, "dest": ChargeStatus.CONCLUIDA},
                {"trigger": "remove", "source": active, "dest": ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR},
                {"trigger": "lapse", "source": active, "dest": ChargeStatus.REMOVIDA_PELO_PSP},
            ],
            initial=state,
            auto_transitions=False,
        )

    def _fire(self, trigger: str, verb: str) -> ChargeStatus:
        try:
            getattr(self, trigger)()
        except MachineError:
            raise InvalidTransition(f"a {self.state.value} charge cannot be {verb}") from None
        return self.state

    def conclude(self) -> ChargeStatus:
        return self._fire("pay", "paid")

    def cancel(self) -> ChargeStatus:
        return self._fire("remove", "cancelled")

    def expire(self) -> ChargeStatus:
        return self._fire("lapse", "expired")


@dataclass(frozen=True, slots=True)
class CalendarFields:
    """A ``cob``'s calendar as the body gave it: its ``expiration`` in seconds (:data:`ABSENT` when
    left out: the default)."""

    expiration: int | Absent | Invalid = ABSENT

    def judge_alone(self, problems: list[Problem]) -> None:
        _expiration(problems, self)


@dataclass(frozen=True, slots=True)
class ValueFields:
    """A ``cob``'s value as the body gave it: the ``original`` amount as text (None when null or
    left out; :data:`ABSENT` in a revision that keeps it), its ``modality`` and its
    ``withdrawal`` (:data:`ABSENT` when left out: none, or on a revision the charge's own)."""

    original: str | Absent | Invalid | None = None
    modality: int | Absent | Invalid = ABSENT
    withdrawal: WithdrawalFields | Absent = ABSENT

    def judge_alone(self, problems: list[Problem]) -> None:
        """A revision's ``valor``: each leaf given judged alone (a zero amount against the
        charge's modality waits for the charge)."""
        if self.original is not ABSENT:
            _original(problems, self.original)
        if self.modality is not ABSENT:
            _modality(problems, self.modality)
        if self.withdrawal is not ABSENT:
            judge_withdrawal(problems, self.withdrawal)


ChargeFields = RequestFields[CalendarFields, ValueFields]
"""A ``PUT /cob/{txid}`` body as the edge decoded it (:class:`~pixcore.charges.parts.RequestFields`
with a ``cob``'s calendar and value). Each leaf is of its type, a value of another type
``INVALID`` (the edge judged it: ``"original": 10`` is refused as the spec asks); a leaf with a
default is :data:`ABSENT` when left out."""

ChargeRevisionFields = RevisionFields[CalendarFields, ValueFields]
"""A ``PATCH /cob/{txid}`` body as the edge decoded it."""


@dataclass(frozen=True, slots=True)
class ChargeRequest(Particulars):
    """A validated ``PUT /cob/{txid}`` body (its other parts: :class:`Particulars`)."""

    expiration: int
    amount: int
    modality: int

    @classmethod
    def parse(cls, fields: ChargeFields) -> ChargeRequest:
        """Every 400 rule of the spec's table and of our specification, collected into one ``ValidationError``
        whose problems name each field by reference."""
        problems: list[Problem] = []
        expiration = _expiration(problems, fields.calendar)
        withdrawal = _withdrawal(problems, fields.value, None)
        amount, modality = _valor(problems, fields.value, withdrawal)
        parts = fields.judge_parts(problems, judge_debtor)
        if problems or expiration is None or amount is None or modality is None:
            raise ValidationError(problems=problems, summary="Invalid charge: {}")
        return cls(expiration, amount, modality, **(parts.given() | {"withdrawal": withdrawal}))


@dataclass(frozen=True, slots=True)
class ChargeRevision(Particulars):
    """A validated revision: ``cancel`` (status REMOVIDA_PELO_USUARIO_RECEBEDOR alone), or the
    charge's fields after the change (its other parts: :class:`Particulars`)."""

    cancel: bool
    expiration: int = DEFAULT_EXPIRATION
    amount: int = 0
    modality: int = 0

    @classmethod
    def parse(cls, fields: ChargeRevisionFields, current: Charge) -> ChargeRevision:
        """The standard's rules of ``PATCH /cob/{txid}``: the status may only become
        REMOVIDA_PELO_USUARIO_RECEBEDOR, and not together with other changes; every other field
        is judged as on creation, a part left out keeping ``current``'s value. One error lists
        every broken rule."""
        if fields.cancels():
            return cls(cancel=True)
        problems: list[Problem] = []
        expiration = current.expiration if fields.calendar is None else _expiration(problems, fields.calendar)
        value = _current_value(fields.value, current)
        withdrawal = _withdrawal(problems, value, current.withdrawal)
        amount, modality = _valor(problems, value, withdrawal)
        parts = judge_revised_parts(problems, fields, current, judge_debtor)
        if problems or expiration is None or amount is None or modality is None:
            raise ValidationError(problems=problems, summary="Invalid charge change: {}")
        return cls(
            cancel=False,
            expiration=expiration,
            amount=amount,
            modality=modality,
            **(parts.given() | {"withdrawal": withdrawal}),
        )


def _current_value(value: ValueFields | None, current: Charge) -> ValueFields:
    """``valor`` of a revision, each leaf left out taken from the charge."""
    if value is None:
        return ValueFields(format_amount_string(current.amount), current.modality)
    original = format_amount_string(current.amount) if value.original is ABSENT else value.original
    modality = current.modality if value.modality is ABSENT else value.modality
    return ValueFields(original, modality, value.withdrawal)


def _withdrawal(
    problems: list[Problem], value: ValueFields | None, current: Withdrawal | None
) -> Withdrawal | None:
    """``valor.retirada`` judged alone; left out: ``current`` (a revision keeps the charge's)."""
    if value is None or value.withdrawal is ABSENT:
        return current
    return judge_withdrawal(problems, value.withdrawal)


def _expiration(problems: list[Problem], calendar: CalendarFields | None) -> int | None:
    if calendar is None:
        problems.append(Problem.of(ChargeField.CALENDAR, "required"))
        return None
    seconds = DEFAULT_EXPIRATION if calendar.expiration is ABSENT else calendar.expiration
    if not isinstance(seconds, int) or not 1 <= seconds <= MAX_EXPIRATION:
        text = f"must be a whole number of seconds, 1 to {MAX_EXPIRATION}"
        problems.append(Problem.of(ImmediateField.EXPIRATION, text))
        return None
    return seconds


def _valor(
    problems: list[Problem], value: ValueFields | None, withdrawal: Withdrawal | None
) -> tuple[int | None, int | None]:
    if value is None:
        problems.append(Problem.of(ChargeField.VALUE, "required, an object"))
        return None, None
    modality = _modality(problems, 0 if value.modality is ABSENT else value.modality)
    amount = _original(problems, value.original)
    if withdrawal is not None:
        return _with_withdrawal(problems, amount, modality, withdrawal)
    if value.withdrawal is not ABSENT:  # refused already: its own problems say why
        return amount, modality
    if amount == 0 and modality != 1:
        text = "must be positive unless {} is 1"
        problems.append(Problem.of(ChargeField.ORIGINAL, text, Member(ImmediateField.MODALITY)))
        amount = None
    return amount, modality


def _with_withdrawal(
    problems: list[Problem], amount: int | None, modality: int | None, withdrawal: Withdrawal
) -> tuple[int | None, int | None]:
    """The standard's rules of a value with ``retirada``: the payer may not change ``original``
    (its modality 0), which is 0.00 with a ``saque`` and above 0.00 with a ``troco``."""
    part = Member(PART_FIELD[withdrawal.kind])
    if modality == 1:
        problems.append(Problem.of(ImmediateField.MODALITY, "must be 0 with {}", part))
        modality = None
    if withdrawal.kind is WithdrawalKind.SAQUE and amount not in (None, 0):
        problems.append(Problem.of(ChargeField.ORIGINAL, "must be 0.00 with {}", part))
        amount = None
    elif withdrawal.kind is WithdrawalKind.TROCO and amount == 0:
        problems.append(Problem.of(ChargeField.ORIGINAL, "must be above 0.00 with {}", part))
        amount = None
    return amount, modality


def _modality(problems: list[Problem], given: int | Invalid) -> int | None:
    if isinstance(given, int) and given in (0, 1):
        return given
    problems.append(Problem.of(ImmediateField.MODALITY, "must be 0 or 1"))
    return None


def _original(problems: list[Problem], original: str | Absent | Invalid | None) -> int | None:
    if not isinstance(original, str):
        problems.append(Problem.of(ChargeField.ORIGINAL, 'required, a string with 2 decimals (e.g. "10.00")'))
        return None
    return collect(problems, ChargeField.ORIGINAL, lambda: parse_amount_string(original))


@dataclass(frozen=True, slots=True)
class CashInRequest:
    """A validated ``POST /api/pix/cash-in`` body. The payer is informative only.

    The edge hands :meth:`parse` each leaf under the domain's name, typed (None when null or left
    out, ``INVALID`` when of another type); the amount as the JSON number it was
    (:func:`~pixcore.money.parse_amount_number` judges the wire's money form). The rules' problems
    name each field by a :class:`CashInField`.
    """

    amount: int
    description: str
    external_id: str
    expiration: int
    generate_qr_code: bool
    payer_name: str
    payer_document: str
    additional_info: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(
        cls,
        *,
        amount: object,
        description: Text,
        external_id: Text,
        expiration: Whole,
        generate_qr_code: bool | Invalid | None,
        payer_name: Text,
        payer_document: Text,
        additional_info: Mapping[str, str] | Invalid | None,
    ) -> CashInRequest:
        problems: list[Problem] = []
        cents = collect(problems, CashInField.AMOUNT, lambda: require_positive(parse_amount_number(amount)))
        text = _required_text(problems, CashInField.DESCRIPTION, description, MAX_CASH_IN_DESCRIPTION)
        external = _required_text(problems, CashInField.EXTERNAL_ID, external_id, MAX_EXTERNAL_ID)
        low, high = CASH_IN_EXPIRATION
        given = DEFAULT_EXPIRATION if expiration is None else expiration
        seconds = given if isinstance(given, int) and low <= given <= high else None
        if seconds is None:
            problems.append(Problem.of(CashInField.EXPIRATION, f"must be {low} to {high} seconds"))
        if generate_qr_code is not None and not isinstance(generate_qr_code, bool):
            problems.append(Problem.of(CashInField.GENERATE_QR_CODE, "must be true or false"))
        name = _required_text(problems, CashInField.PAYER_NAME, payer_name, MAX_PAYER_NAME)
        document = collect(problems, CashInField.PAYER_DOCUMENT, lambda: _any_document(payer_document))
        info = _additional_info(problems, additional_info)
        if (
            problems
            or cents is None
            or text is None
            or external is None
            or seconds is None
            or name is None
            or document is None
        ):
            raise ValidationError(problems=problems, summary="Invalid cash-in: {}")
        return cls(cents, text, external, seconds, generate_qr_code is True, name, document, info)


def _required_text(problems: list[Problem], field: Field, value: Text, limit: int) -> str | None:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        problems.append(Problem.of(field, f"required, 1 to {limit} characters"))
        return None
    return value


def _any_document(value: Text) -> str:
    if not isinstance(value, str):
        raise ValidationError("required, a CPF (11 digits) or CNPJ (14 characters)")
    return parse_document(value).value


def _additional_info(
    problems: list[Problem], value: Mapping[str, str] | Invalid | None
) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if isinstance(value, Invalid) or len(value) > MAX_ADDITIONAL_INFO:
        text = f"an object of at most {MAX_ADDITIONAL_INFO} string values"
        problems.append(Problem.of(CashInField.ADDITIONAL_INFO, text))
        return ()
    if any(len(k) > MAX_ADDITIONAL_INFO_KEY or len(v) > MAX_ADDITIONAL_INFO_VALUE for k, v in value.items()):
        text = (
            f"names of at most {MAX_ADDITIONAL_INFO_KEY} characters,"
            f" values of at most {MAX_ADDITIONAL_INFO_VALUE}"
        )
        problems.append(Problem.of(CashInField.ADDITIONAL_INFO, text))
        return ()
    return tuple(value.items())


@dataclass(frozen=True, slots=True, kw_only=True)
class NewCharge(KeptParticulars):
    """A charge to store: its request's kept parts (:class:`~pixcore.charges.parts.KeptParticulars`:
    the debtor, the payer's message, the extra items) and the rest."""

    account_id: int
    txid: str
    kind: ChargeKind
    created_at: datetime
    expiration: int
    amount: int
    modality: int
    pix_key: str
    location_id: str | None
    """The token of the location the charge is at (the payload URL's last part); None: it has none
    (unlinked by ``DELETE /loc/{id}/txid``), so no BR Code pays it."""
    location: str
    """The payload URL of its (last) location, as its BR Code carries it."""
    br_code: str
    loc_id: int | None = None
    """``loc.id``: the id of its location; None with ``location_id``."""
    loc_created_at: datetime | None = None
    """``loc.criacao``, when its location was made before it (None: with it, ``created_at``)."""
    external_id: str | None = None
    correlation_id: uuid.UUID | None = None
    transaction_id: int | None = None
    """The PAYMENT record: a cash-in has one from the start, a ``cob`` once paid."""
    due: DueTerms | None = None
    """A ``cobv``'s terms (its ``amount`` is their ``valor.original``; it expires at the end of its
    last payable day); None for the other kinds."""
    batch_id: int | None = None
    """The batch of due-date charges (``loteCobVId``) a ``cobv`` was created in, if any."""

    @property
    def expires_at(self) -> datetime:
        return self.created_at + timedelta(seconds=self.expiration)


@dataclass(frozen=True, slots=True, kw_only=True)
class Charge(NewCharge):
    """A charge as stored (``id`` is the row's; ``loc_id`` is ``loc.id``)."""

    id: int
    status: ChargeStatus = ChargeStatus.ATIVA
    revision: int = 0
    updated_at: datetime | None = None
    paid_end_to_end_id: str | None = None
    paid_at: datetime | None = None
    paid_parts: DueAmount | None = None
    """What a ``cobv``'s payment was made of (its original amount, rebate, discount, fine and
    interest on the day it was paid), kept as it settled; None for the other kinds, whose payment
    is its original amount whole."""

    def status_at(self, now: datetime) -> ChargeStatus:
        """The status a reader sees: ATIVA past its expiry is REMOVIDA_PELO_PSP already."""
        return _status_seen(self.status, self.expires_at, now)

    @property
    def located(self) -> bool:
        """Whether it is at a location (its BR Code pays it, its payload URL serves it)."""
        return self.loc_id is not None and self.location_id is not None

    @property
    def line(self) -> ChargeLine:
        return ChargeLine(self.txid, self.kind, self.status, self.amount, self.created_at, self.expires_at)


@dataclass(frozen=True, slots=True)
class ChargeLine:
    """A charge as a list of charges shows it (the console's): what the line says, nothing more,
    so that a list of them reads only those columns."""

    txid: str
    kind: ChargeKind
    status: ChargeStatus
    amount: int
    created_at: datetime
    expires_at: datetime

    def status_at(self, now: datetime) -> ChargeStatus:
        """As :meth:`Charge.status_at`."""
        return _status_seen(self.status, self.expires_at, now)


def _status_seen(status: ChargeStatus, expires_at: datetime, now: datetime) -> ChargeStatus:
    if status is ChargeStatus.ATIVA and now >= expires_at:
        return ChargeStatus.REMOVIDA_PELO_PSP
    return status


def new_location_id() -> str:
    """The id in a payload URL: 32 lower-case hex digits."""
    return uuid.uuid4().hex


def ascii_text(text: str, limit: int) -> str:
    """``text`` as BR Code data: accents dropped (``São`` -> ``Sao``), other non-ASCII removed,
    cut to ``limit`` characters; never empty."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if 0x20 <= ord(c) < 0x7F).strip()
    return plain[:limit].strip() or "PIX"


def dynamic_code(
    *,
    location: str,
    merchant_name: str,
    merchant_city: str,
    amount: int,
    withdrawal: Withdrawal | None = None,
) -> str:
    """The BR Code of a charge: single use (``01``=``12``), ``26-25`` the payload
    URL, ``54`` the amount when fixed, ``62-05`` ``***``; a Pix Saque's or Troco's ``26-03`` the
    ISPB of its withdrawal service facilitator (when it is 8 digits, as the BR Code's ``26-03`` is:
    the standard's ``prestadorDoServicoDeSaque`` also takes capitals, which stay in the payload)."""
    return brcode.encode(
        brcode.BrCode(
            merchant_name=ascii_text(merchant_name, 25),
            merchant_city=ascii_text(merchant_city, 15),
            location=location,
            amount=amount or None,
            point_of_initiation="12",
            reference="***",
            fss=_fss(withdrawal),
        )
    )


def _fss(withdrawal: Withdrawal | None) -> str | None:
    if withdrawal is None or not withdrawal.facilitator.isdigit():
        return None
    return withdrawal.facilitator


def amount_to_pay(charge: Charge, offered: int | None) -> int:
    """What a payment of ``offered`` centavos (None: the charge's amount) credits.

    With modality 0 only the charge's amount is accepted. A Pix Saque or Troco
    (:attr:`Charge.withdrawal`) takes its ``original`` plus the withdrawal's amount; when the payer
    may change the withdrawal's amount, any amount not below ``original``.
    """
    if charge.withdrawal is not None:
        return _with_cash(charge, charge.withdrawal, offered)
    if offered is None:
        if charge.amount == 0:
            raise AmountMismatch("this charge leaves the amount to the payer: give one")
        return charge.amount
    require_positive(offered)
    if charge.modality == 0 and offered != charge.amount:
        text = f"this charge takes exactly {format_amount_string(charge.amount)} ({{}} 0)"
        raise AmountMismatch(Problem.of((), text, Member(ImmediateField.MODALITY)))
    return offered


def _with_cash(charge: Charge, withdrawal: Withdrawal, offered: int | None) -> int:
    """What a payment of a Pix Saque or Troco credits: ``original`` and the cash together."""
    total = charge.amount + withdrawal.amount
    cash = Member(PART_FIELD[withdrawal.kind])
    if offered is None:
        if total == 0:
            raise AmountMismatch(
                Problem.of((), "this charge leaves the amount of {} to the payer: give one", cash)
            )
        return total
    require_positive(offered)
    if withdrawal.modality == 0 and offered != total:
        text = f"this charge takes exactly {format_amount_string(total)} (the original and {{}})"
        raise AmountMismatch(Problem.of((), text, cash))
    if offered < charge.amount:
        text = f"this charge takes at least {format_amount_string(charge.amount)} (the original, then {{}})"
        raise AmountMismatch(Problem.of((), text, cash))
    return offered


def cash_payment_parts(charge: Charge, credited: int) -> DueAmount | None:
    """What a payment of ``credited`` centavos of a Pix Saque or Troco is made of (None for any
    other ``cob``): the charge's ``original`` (the purchase) and the rest in cash, as the
    standard's ``componentesValor`` gives them. A payer who may change the cash changes only it:
    :func:`amount_to_pay` never lets ``credited`` fall below ``original``."""
    withdrawal = charge.withdrawal
    if withdrawal is None:
        return None
    cash = CashPart(
        kind=withdrawal.kind.value,
        amount=credited - charge.amount,
        agent=withdrawal.agent.value,
        facilitator=withdrawal.facilitator,
    )
    return DueAmount(original=charge.amount, rebate=0, discount=0, fine=0, interest=0, cash=cash)
