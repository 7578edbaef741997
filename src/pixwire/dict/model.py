"""The DICT's vocabulary: its entries (vínculos), their parts and reasons, and its error types, as
the central bank's DICT API document names them. Both sides of the network speak it: the network's
directory (``pixnet``) and a participant's client."""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass
from datetime import datetime

from pixcore.keys import PixKeyType

__all__ = [
    "AccountType",
    "BrazilianAccount",
    "CreateEntry",
    "DeleteEntry",
    "DictProblem",
    "Entry",
    "EntryReason",
    "ErrorType",
    "NewEntry",
    "Owner",
    "OwnerType",
    "invalid_field",
]


class AccountType(enum.StrEnum):
    """The pacs.008 account types the DICT takes."""

    CACC = "CACC"
    TRAN = "TRAN"
    SLRY = "SLRY"
    SVGS = "SVGS"


class OwnerType(enum.StrEnum):
    NATURAL_PERSON = "NATURAL_PERSON"
    LEGAL_PERSON = "LEGAL_PERSON"


class EntryReason(enum.StrEnum):
    USER_REQUESTED = "USER_REQUESTED"
    ACCOUNT_CLOSURE = "ACCOUNT_CLOSURE"
    BRANCH_TRANSFER = "BRANCH_TRANSFER"
    RECONCILIATION = "RECONCILIATION"
    FRAUD = "FRAUD"


class ErrorType(enum.StrEnum):
    """The DICT's error types that entries answer (``https://dict.pi.rsfn.net.br/api/v1/error/<type>``)."""

    FORBIDDEN = "Forbidden"
    BAD_REQUEST = "BadRequest"
    NOT_FOUND = "NotFound"
    RATE_LIMITED = "RateLimited"
    SERVICE_UNAVAILABLE = "ServiceUnavailable"
    REQUEST_SIGNATURE_INVALID = "RequestSignatureInvalid"
    REQUEST_ID_ALREADY_USED = "RequestIdAlreadyUsed"
    INVALID_REASON = "InvalidReason"
    ENTRY_INVALID = "EntryInvalid"
    ENTRY_LIMIT_EXCEEDED = "EntryLimitExceeded"
    ENTRY_ALREADY_EXISTS = "EntryAlreadyExists"
    ENTRY_KEY_OWNED_BY_DIFFERENT_PERSON = "EntryKeyOwnedByDifferentPerson"
    ENTRY_KEY_IN_CUSTODY_OF_DIFFERENT_PARTICIPANT = "EntryKeyInCustodyOfDifferentParticipant"
    ENTRY_LOCKED_BY_CLAIM = "EntryLockedByClaim"
    ENTRY_TAX_ID_NUMBER_BY_DIFFERENT_OWNER = "EntryTaxIdNumberByDifferentOwner"

    @property
    def status(self) -> int:
        statuses = {
            ErrorType.FORBIDDEN: 403,
            ErrorType.NOT_FOUND: 404,
            ErrorType.RATE_LIMITED: 429,
            ErrorType.SERVICE_UNAVAILABLE: 503,
        }
        return statuses.get(self, 400)


class DictProblem(Exception):
    """A refusal in the DICT's terms: its error type (and HTTP status), a detail, and for invalid
    fields the violations (field name, reason)."""

    def __init__(self, type_: ErrorType, detail: str, violations: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(f"{type_.value}: {detail}")
        self.type = type_
        self.detail = detail
        self.violations = violations


@dataclass(frozen=True, slots=True)
class BrazilianAccount:
    participant: str
    """The ISPB of the account's institution."""
    branch: str | None
    number: str
    type: AccountType
    opened_at: datetime


@dataclass(frozen=True, slots=True)
class Owner:
    type: OwnerType
    tax_id: str
    """A CPF (natural person) or CNPJ (legal person), bare."""
    name: str
    trade_name: str | None = None


@dataclass(frozen=True, slots=True)
class NewEntry:
    """What a participant asks the DICT to bind (``key`` is None for an EVP: the DICT makes it)."""

    key: str | None
    key_type: PixKeyType
    account: BrazilianAccount
    owner: Owner


@dataclass(frozen=True, slots=True)
class CreateEntry:
    entry: NewEntry
    reason: EntryReason
    request_id: uuid.UUID


@dataclass(frozen=True, slots=True)
class DeleteEntry:
    key: str
    participant: str
    reason: EntryReason


@dataclass(frozen=True, slots=True)
class Entry:
    """A key's binding, as the DICT keeps it."""

    key: str
    key_type: PixKeyType
    account: BrazilianAccount
    owner: Owner
    created_at: datetime
    owned_since: datetime
    """KeyOwnershipDate: since when the owner has held the key without a break."""
    request_id: uuid.UUID
    """The creation's RequestId (a repeat of it answers this entry)."""

    def asked(self) -> NewEntry:
        """The request content this entry answers (the key left out for an EVP, which the DICT made)."""
        key = None if self.key_type is PixKeyType.EVP else self.key
        return NewEntry(key, self.key_type, self.account, self.owner)


def invalid_field(field: str, reason: str) -> DictProblem:
    """``EntryInvalid`` naming ``field`` (its element's path) in its violations."""
    return DictProblem(ErrorType.ENTRY_INVALID, f"{field}: {reason}", ((field, reason),))
