"""What a ``cob`` and a ``cobv`` request share: the debtor, the key and texts, the extra items,
``loc.id``, and the shape of a body and of its revision, whose calendar and value are the kind's
own parts (a ``cob``'s expiry and plain amount, a ``cobv``'s due date and modalities).

The rules here are judged alike for both kinds; each broken one is appended to a list of problems,
so that one answer names them all. A problem names its field by a :class:`ChargeField` (the edge
declares where each kind's wire carries it).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pixcore.addresses import MAX_CITY, MAX_EMAIL, MAX_STREET, is_postal_code, is_state
from pixcore.charges.withdrawal import Withdrawal
from pixcore.documents import DocumentKind, is_valid_cpf, parse_document
from pixcore.errors import LocationTaken, ValidationError
from pixcore.problems import Field, Member, Problem
from pixcore.validation import Invalid, collect

__all__ = [
    "DUE_REVISION",
    "IMMEDIATE_REVISION",
    "MAX_DEBTOR_NAME",
    "MAX_INFO_ITEMS",
    "MAX_INFO_NAME",
    "MAX_INFO_VALUE",
    "MAX_KEY",
    "MAX_LOC_ID",
    "MAX_PAYER_REQUEST",
    "ChargeField",
    "Debtor",
    "DebtorFields",
    "InfoFields",
    "KeptParticulars",
    "Part",
    "Particulars",
    "RequestFields",
    "RevisionFields",
    "RevisionKind",
    "Text",
    "Whole",
    "judge_debtor",
    "judge_info",
    "judge_loc_id",
    "judge_revised_parts",
    "judge_text",
    "location_taken",
]

MAX_KEY = 77
MAX_PAYER_REQUEST = 140
MAX_DEBTOR_NAME = 200
MAX_INFO_ITEMS = 50
MAX_INFO_NAME = 50
MAX_INFO_VALUE = 200
REMOVED = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
"""The only status a revision may set (``ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR``)."""


class ChargeField(Field):
    """The fields a ``cob`` and a ``cobv`` request share, as their rules name them in problems
    (each kind's own calendar and value fields: ``ImmediateField``, ``DueField``)."""

    CALENDAR = enum.auto()
    VALUE = enum.auto()
    ORIGINAL = enum.auto()
    """The amount the charge asks (a ``cobv``'s on its due date)."""
    DEBTOR = enum.auto()
    DEBTOR_CPF = enum.auto()
    DEBTOR_CNPJ = enum.auto()
    DEBTOR_NAME = enum.auto()
    DEBTOR_EMAIL = enum.auto()
    DEBTOR_STREET = enum.auto()
    DEBTOR_CITY = enum.auto()
    DEBTOR_STATE = enum.auto()
    DEBTOR_POSTAL_CODE = enum.auto()
    KEY = enum.auto()
    PAYER_REQUEST = enum.auto()
    INFO = enum.auto()
    INFO_ITEM = enum.auto()
    """One item of the extra items (its place in ``Problem.at``)."""
    INFO_NAME = enum.auto()
    INFO_VALUE = enum.auto()
    LOC_ID = enum.auto()
    STATUS = enum.auto()


def location_taken(text: str = "the location serves another charge.") -> LocationTaken:
    """The refusal of a location that serves another charge (a ``loc.id`` rule)."""
    problem = Problem.of(ChargeField.LOC_ID, text)
    return LocationTaken(problem, problems=[problem])


@dataclass(frozen=True, slots=True)
class Debtor:
    """``devedor``: a person (CPF) or a company (CNPJ), with a name; and, each optional, its
    e-mail and the parts of its postal address (the standard's ``DadosDevedor``: ``email``,
    ``logradouro``, ``cidade``, ``uf``, ``cep``), kept as given."""

    name: str
    document: str
    kind: DocumentKind
    email: str | None = None
    street: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None


Text = str | Invalid | None
"""A text leaf as the edge hands it: None when null or left out, ``INVALID`` when not a text."""
Whole = int | Invalid | None
"""An integer leaf as the edge hands it: None when null or left out, ``INVALID`` when not an integer."""


@dataclass(frozen=True, slots=True)
class DebtorFields:
    """The debtor as the body gave it: ``cpf``, ``cnpj`` and ``name``, and its e-mail and postal
    address (``street``, ``city``, ``state``, ``postal_code``)."""

    cpf: Text = None
    cnpj: Text = None
    name: Text = None
    email: Text = None
    street: Text = None
    city: Text = None
    state: Text = None
    postal_code: Text = None

    def details(self) -> dict[ChargeField, Text]:
        """The e-mail and the postal address by the fields their rules name."""
        return {
            ChargeField.DEBTOR_EMAIL: self.email,
            ChargeField.DEBTOR_STREET: self.street,
            ChargeField.DEBTOR_CITY: self.city,
            ChargeField.DEBTOR_STATE: self.state,
            ChargeField.DEBTOR_POSTAL_CODE: self.postal_code,
        }


@dataclass(frozen=True, slots=True)
class InfoFields:
    """One extra item as the body gave it: ``name`` and ``value``."""

    name: Text = None
    value: Text = None


MAX_LOC_ID = 9_223_372_036_854_775_807  # the standard's int64


def judge_loc_id(problems: list[Problem], value: Whole) -> int | None:
    """``loc.id`` as given (None: left out): a positive int64 (whether it names a location of the
    account is judged against the locations)."""
    if value is None:
        return None
    if not isinstance(value, int) or not 0 < value <= MAX_LOC_ID:
        problems.append(Problem.of(ChargeField.LOC_ID, f"must be an integer from 1 to {MAX_LOC_ID}"))
        return None
    return value


def judge_debtor(problems: list[Problem], debtor: DebtorFields | None) -> Debtor | None:
    """``devedor`` judged as on a ``cob`` (each broken rule appended to ``problems``): a document
    with a name, and what else is given of it judged by its own form. A name, e-mail or address
    without a document is refused: it would describe no one."""
    if debtor is None:
        return None
    before = len(problems)
    cpf, cnpj, name = debtor.cpf, debtor.cnpj, debtor.name
    document = None
    if cpf is None and cnpj is None:
        documents = ChargeField.DEBTOR_CPF, ChargeField.DEBTOR_CNPJ
        given = {ChargeField.DEBTOR_NAME: name, **debtor.details()}
        problems.extend(
            Problem.of(field, "needs {} or {}", *documents)
            for field, value in given.items()
            if value is not None
        )
    else:
        document = _debtor_document(problems, cpf, cnpj)
        # The standard's schema sets no minimum: a debtor may be named by the empty text.
        if not isinstance(name, str) or len(name) > MAX_DEBTOR_NAME:
            text = f"required with a document, at most {MAX_DEBTOR_NAME} characters"
            problems.append(Problem.of(ChargeField.DEBTOR_NAME, text))
    email, street, city, state, postal_code = _debtor_details(problems, debtor)
    if document is None or not isinstance(name, str) or len(problems) > before:
        return None
    return Debtor(name, *document, email, street, city, state, postal_code)


_STATE_RULE = "two letters (e.g. SP)"
_POSTAL_CODE_RULE = "8 digits, without a hyphen (e.g. 01310100)"


def _debtor_details(problems: list[Problem], debtor: DebtorFields) -> tuple[str | None, ...]:
    """The debtor's e-mail, street, city, state and postal code, each part given judged by its
    form (the standard's lengths; a ``uf`` of two letters, a ``cep`` of 8 digits)."""
    email = judge_text(problems, ChargeField.DEBTOR_EMAIL, debtor.email, MAX_EMAIL)
    street = judge_text(problems, ChargeField.DEBTOR_STREET, debtor.street, MAX_STREET)
    city = judge_text(problems, ChargeField.DEBTOR_CITY, debtor.city, MAX_CITY)
    state, postal_code = debtor.state, debtor.postal_code
    if state is not None and not (isinstance(state, str) and is_state(state)):
        problems.append(Problem.of(ChargeField.DEBTOR_STATE, _STATE_RULE))
        state = None
    if postal_code is not None and not (isinstance(postal_code, str) and is_postal_code(postal_code)):
        problems.append(Problem.of(ChargeField.DEBTOR_POSTAL_CODE, _POSTAL_CODE_RULE))
        postal_code = None
    return email, street, city, state, postal_code


def _debtor_document(problems: list[Problem], cpf: Text, cnpj: Text) -> tuple[str, DocumentKind] | None:
    if cpf is not None and cnpj is not None:
        problems.append(
            Problem.of(
                ChargeField.DEBTOR,
                "{} and {} cannot both be given",
                Member(ChargeField.DEBTOR_CPF),
                Member(ChargeField.DEBTOR_CNPJ),
            )
        )
        return None
    if cpf is not None:
        if not isinstance(cpf, str) or len(cpf) != 11 or not cpf.isdigit() or not is_valid_cpf(cpf):
            problems.append(Problem.of(ChargeField.DEBTOR_CPF, "must be a valid CPF of exactly 11 digits"))
            return None
        return cpf, DocumentKind.CPF
    parsed = collect(problems, ChargeField.DEBTOR_CNPJ, lambda: _cnpj(cnpj))
    return (parsed, DocumentKind.CNPJ) if parsed is not None else None


def _cnpj(value: Text) -> str:
    if not isinstance(value, str) or len(value) != 14:
        raise ValidationError("must be a valid CNPJ of 14 characters")
    document = parse_document(value)
    if document.kind is not DocumentKind.CNPJ:
        raise ValidationError("must be a valid CNPJ of 14 characters")
    return document.value


def judge_text(problems: list[Problem], field: Field, value: Text, limit: int) -> str | None:
    """An optional text of at most ``limit`` characters (the key, the payer's message)."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        problems.append(Problem.of(field, f"a string of at most {limit} characters"))
        return None
    return value


def judge_info(problems: list[Problem], items: tuple[InfoFields, ...] | None) -> tuple[tuple[str, str], ...]:
    """The extra items judged as on a ``cob``."""
    if items is None:
        return ()
    if len(items) > MAX_INFO_ITEMS:
        problems.append(Problem.of(ChargeField.INFO, f"a list of at most {MAX_INFO_ITEMS} items"))
        return ()
    info: list[tuple[str, str]] = []
    name_and_value = Member(ChargeField.INFO_NAME), Member(ChargeField.INFO_VALUE)
    for index, item in enumerate(items):
        name, value = item.name, item.value
        if not isinstance(name, str) or not isinstance(value, str):
            text = "{} and {} are required strings"
            problems.append(Problem.of(ChargeField.INFO_ITEM, text, *name_and_value, at=(index,)))
        elif len(name) > MAX_INFO_NAME or len(value) > MAX_INFO_VALUE:
            limits = f"{{}} at most {MAX_INFO_NAME}, {{}} at most {MAX_INFO_VALUE} characters"
            problems.append(Problem.of(ChargeField.INFO_ITEM, limits, *name_and_value, at=(index,)))
        else:
            info.append((name, value))
    return tuple(info)


@dataclass(frozen=True, slots=True, kw_only=True)
class KeptParticulars:
    """What a charge keeps of its request as judged, beside its calendar, value, key and location:
    the debtor, the payer's message and the extra items. A stored charge (``NewCharge``) is these
    and so is a judged request (:class:`Particulars`): a part declared here is kept by both."""

    payer_request: str | None = None
    debtor: Debtor | None = None
    info: tuple[tuple[str, str], ...] = ()
    withdrawal: Withdrawal | None = None
    """A ``cob``'s Pix Saque or Pix Troco (``valor.retirada``); None for the other kinds."""

    def kept(self) -> dict[str, Any]:
        """These parts by name, to build or revise a charge that keeps them."""
        return {part.name: getattr(self, part.name) for part in dataclasses.fields(KeptParticulars)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Particulars(KeptParticulars):
    """What a judged request of either kind carries beside its calendar and value: the parts a
    charge keeps (:class:`KeptParticulars`; a ``cobv``'s has a debtor always), the key (None: the
    account's first on creation, the charge's own on a revision) and ``loc_id`` (None: a new
    location on creation, where it is on a revision)."""

    key: str | None = None
    loc_id: int | None = None

    def given(self) -> dict[str, Any]:
        """These parts by name, to build a request or revision that extends them."""
        return {part.name: getattr(self, part.name) for part in dataclasses.fields(Particulars)}


class Part(Protocol):
    """A kind's own part of a request (its calendar, its value)."""

    def judge_alone(self, problems: list[Problem]) -> None:
        """Append the rules this part breaks on its own, before the charge is looked up."""


CalendarT = TypeVar("CalendarT")
ValueT = TypeVar("ValueT")
RevisedCalendarT = TypeVar("RevisedCalendarT", bound=Part)
RevisedValueT = TypeVar("RevisedValueT", bound=Part)


@dataclass(frozen=True)  # no slots: its aliases (``ChargeFields``...) are called as classes
class RequestFields(Generic[CalendarT, ValueT]):
    """A ``PUT /cob/{txid}`` or ``PUT /cobv/{txid}`` body as the edge decoded it, before any rule
    is checked: ``calendar`` and ``value`` are the kind's parts (None when null or left out); each
    other leaf of its type (:data:`Text`, :data:`Whole`), judged by the rules."""

    calendar: CalendarT | None
    value: ValueT | None
    debtor: DebtorFields | None = None
    key: Text = None
    payer_request: Text = None
    info: tuple[InfoFields, ...] | None = None
    loc_id: Whole = None
    """``loc.id``: an existing location of the account to put the charge at (None: a new one)."""

    def judge_parts(
        self,
        problems: list[Problem],
        debtor_rule: Callable[[list[Problem], DebtorFields | None], Debtor | None],
    ) -> Particulars:
        """Every part but the calendar and the value judged (the debtor by the kind's
        ``debtor_rule``), each broken rule appended to ``problems``."""
        return Particulars(
            debtor=debtor_rule(problems, self.debtor),
            key=judge_text(problems, ChargeField.KEY, self.key, MAX_KEY),
            payer_request=judge_text(
                problems, ChargeField.PAYER_REQUEST, self.payer_request, MAX_PAYER_REQUEST
            ),
            info=judge_info(problems, self.info),
            loc_id=judge_loc_id(problems, self.loc_id),
        )


@dataclass(frozen=True, slots=True)
class RevisionKind:
    """How a kind's revision is refused before its charge is looked up: ``noun`` names the charge
    in the error; ``judges_given`` whether every part given is judged then (a ``cob``'s), or only
    ``loc.id`` (a ``cobv``'s terms are judged with the charge's)."""

    noun: str
    judges_given: bool


IMMEDIATE_REVISION = RevisionKind("charge", judges_given=True)
DUE_REVISION = RevisionKind("due-date charge", judges_given=False)


@dataclass(frozen=True)  # no slots: its aliases (``ChargeFields``...) are called as classes
class RevisionFields(Generic[RevisedCalendarT, RevisedValueT]):
    """A ``PATCH /cob/{txid}`` or ``PATCH /cobv/{txid}`` body as the edge decoded it: each part
    left out (or ``null``) is unchanged; inside ``calendar`` and ``value`` a leaf left out
    (:data:`~pixcore.validation.ABSENT`) keeps the charge's own."""

    calendar: RevisedCalendarT | None = None
    value: RevisedValueT | None = None
    debtor: DebtorFields | None = None
    key: Text = None
    payer_request: Text = None
    info: tuple[InfoFields, ...] | None = None
    status: Text = None
    loc_id: Whole = None
    """``loc.id``: move the charge to this location of the account (None: it stays)."""

    @property
    def revises(self) -> bool:
        """Whether it changes a field other than the status."""
        parts = (self.calendar, self.value, self.debtor, self.key, self.payer_request, self.info, self.loc_id)
        return any(part is not None for part in parts)

    @property
    def changes_nothing(self) -> bool:
        """Whether it gives no part at all (``{}``): the standard allows it, ours refuses it."""
        return self.status is None and not self.revises

    def cancels(self, kind: RevisionKind = IMMEDIATE_REVISION) -> bool:
        """Whether it cancels the charge; raises ``ValidationError`` if its status, or the lack
        of any change, breaks a rule (judged before the charge is looked up)."""
        problems: list[Problem] = []
        status = ChargeField.STATUS
        if self.status is None:
            if not self.revises:
                problems.append(
                    Problem.of((), "the body changes nothing: give a field to revise, or {}", status)
                )
        else:
            if self.status != REMOVED:
                problems.append(Problem.of(status, f"the only status a change may set is {REMOVED}"))
            if self.revises:
                problems.append(
                    Problem.of(status, "a charge is cancelled alone, not together with other changes")
                )
        if kind.judges_given:
            self._judge_given(problems)
        judge_loc_id(problems, self.loc_id)
        if problems:
            raise ValidationError(problems=problems, summary=f"Invalid {kind.noun} change: {{}}")
        return self.status is not None

    def _judge_given(self, problems: list[Problem]) -> None:
        """Every part given, judged on its own as on creation (what needs the charge waits for it)."""
        if self.calendar is not None:
            self.calendar.judge_alone(problems)
        if self.value is not None:
            self.value.judge_alone(problems)
        judge_debtor(problems, self.debtor)
        judge_text(problems, ChargeField.KEY, self.key, MAX_KEY)
        judge_text(problems, ChargeField.PAYER_REQUEST, self.payer_request, MAX_PAYER_REQUEST)
        judge_info(problems, self.info)


def judge_revised_parts(
    problems: list[Problem],
    fields: RevisionFields[Any, Any],
    current: KeptParticulars,
    debtor_rule: Callable[[list[Problem], DebtorFields], Debtor | None],
) -> Particulars:
    """What a ``cob``'s and a ``cobv``'s revision share, each part judged as on creation (the
    debtor by the kind's ``debtor_rule``): a part the charge keeps (:class:`KeptParticulars`) left
    out keeps ``current``'s; the key and ``loc_id`` left out are None (the charge keeps its key and
    location)."""
    debtor = current.debtor if fields.debtor is None else debtor_rule(problems, fields.debtor)
    key = judge_text(problems, ChargeField.KEY, fields.key, MAX_KEY)
    payer_request = (
        current.payer_request
        if fields.payer_request is None
        else judge_text(problems, ChargeField.PAYER_REQUEST, fields.payer_request, MAX_PAYER_REQUEST)
    )
    info = current.info if fields.info is None else judge_info(problems, fields.info)
    loc_id = judge_loc_id(problems, fields.loc_id)
    return Particulars(debtor=debtor, key=key, payer_request=payer_request, info=info, loc_id=loc_id)
