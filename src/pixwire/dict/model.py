"""The DICT's vocabulary: its entries (vínculos), their parts and reasons, its claims
(reivindicações of ownership and portability), and its error types, as
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
    "CancelledBy",
    "Claim",
    "ClaimAction",
    "ClaimQuery",
    "ClaimReason",
    "ClaimStatus",
    "ClaimType",
    "CreateEntry",
    "DeleteEntry",
    "DictProblem",
    "Entry",
    "EntryReason",
    "ErrorType",
    "NewClaim",
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
    CLAIM_INVALID = "ClaimInvalid"
    CLAIM_TYPE_INCONSISTENT = "ClaimTypeInconsistent"
    CLAIM_KEY_NOT_FOUND = "ClaimKeyNotFound"
    CLAIM_ALREADY_EXISTS_FOR_KEY = "ClaimAlreadyExistsForKey"
    CLAIM_RESULTING_ENTRY_ALREADY_EXISTS = "ClaimResultingEntryAlreadyExists"
    CLAIM_OPERATION_INVALID = "ClaimOperationInvalid"
    CLAIM_RESOLUTION_PERIOD_NOT_ENDED = "ClaimResolutionPeriodNotEnded"
    CLAIM_COMPLETION_PERIOD_NOT_ENDED = "ClaimCompletionPeriodNotEnded"
    INFRACTION_REPORT_INVALID = "InfractionReportInvalid"
    INFRACTION_REPORT_OPERATION_INVALID = "InfractionReportOperationInvalid"
    INFRACTION_REPORT_TRANSACTION_NOT_FOUND = "InfractionReportTransactionNotFound"
    INFRACTION_REPORT_TRANSACTION_NOT_SETTLED = "InfractionReportTransactionNotSettled"
    INFRACTION_REPORT_ALREADY_BEING_PROCESSED = "InfractionReportAlreadyBeingProcessedForTransaction"
    INFRACTION_REPORT_ALREADY_PROCESSED = "InfractionReportAlreadyProcessedForTransaction"
    INFRACTION_REPORT_PERIOD_EXPIRED = "InfractionReportPeriodExpired"
    REFUND_OPERATION_INVALID = "RefundOperationInvalid"
    REFUND_TRANSACTION_NOT_FOUND = "RefundTransactionNotFound"
    REFUND_TRANSACTION_NOT_SETTLED = "RefundTransactionNotSettled"
    REFUND_ALREADY_PROCESSED = "RefundAlreadyProcessedForTransaction"
    REFUND_ALREADY_BEING_PROCESSED = "RefundAlreadyBeingProcessedForTransaction"
    REFUND_PERIOD_EXPIRED = "RefundPeriodExpired"
    TRANSACTION_NOT_REFUNDABLE = "TransactionNotRefundable"

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


def invalid_field(field: str, reason: str, type_: ErrorType = ErrorType.ENTRY_INVALID) -> DictProblem:
    """``EntryInvalid`` (or the operation's own invalid-fields type, ``type_``) naming ``field``
    (its element's path) in its violations."""
    return DictProblem(type_, f"{field}: {reason}", ((field, reason),))


class ClaimType(enum.StrEnum):
    OWNERSHIP = "OWNERSHIP"
    """Another person takes a PHONE or EMAIL key (the old owner's entry goes)."""
    PORTABILITY = "PORTABILITY"
    """The owner moves a key of theirs to an account at another participant."""


class ClaimStatus(enum.StrEnum):
    OPEN = "OPEN"
    WAITING_RESOLUTION = "WAITING_RESOLUTION"
    CONFIRMED = "CONFIRMED"
    CANCELLED = "CANCELLED"
    COMPLETED = "COMPLETED"

    @property
    def ended(self) -> bool:
        return self in {ClaimStatus.CANCELLED, ClaimStatus.COMPLETED}


class ClaimReason(enum.StrEnum):
    USER_REQUESTED = "USER_REQUESTED"
    ACCOUNT_CLOSURE = "ACCOUNT_CLOSURE"
    FRAUD = "FRAUD"
    DEFAULT_OPERATION = "DEFAULT_OPERATION"
    RECONCILIATION = "RECONCILIATION"


class CancelledBy(enum.StrEnum):
    DONOR = "DONOR"
    CLAIMER = "CLAIMER"


@dataclass(frozen=True, slots=True)
class NewClaim:
    """What a claimer asks (``CreateClaimRequest``): the key, and the account and person it is
    to be bound to."""

    type: ClaimType
    key: str
    key_type: PixKeyType
    claimer_account: BrazilianAccount
    claimer: Owner


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim as the DICT keeps it (``ExtendedClaim``)."""

    asked: NewClaim
    id: uuid.UUID
    donor: str
    """The ISPB of the participant that holds the key (DonorParticipant)."""
    status: ClaimStatus
    resolution_period_end: datetime
    completion_period_end: datetime | None
    """Only a claim of ownership has one."""
    last_modified: datetime
    created_at: datetime
    donor_owned_since: datetime
    """The donor's entry's KeyOwnershipDate: a ported key keeps it (its owner does not change)."""
    confirm_reason: ClaimReason | None = None
    cancel_reason: ClaimReason | None = None
    cancelled_by: CancelledBy | None = None
    completed_request: uuid.UUID | None = None
    """The RequestId of the completion (a repeat of it answers the same)."""

    @property
    def claimer_participant(self) -> str:
        return self.asked.claimer_account.participant


@dataclass(frozen=True, slots=True)
class ClaimAction:
    """``acknowledge``, ``confirm``, ``cancel`` or ``complete`` of a claim by ``participant``:
    confirm and cancel carry a reason, complete a RequestId."""

    claim_id: uuid.UUID
    participant: str
    reason: ClaimReason | None = None
    request_id: uuid.UUID | None = None


@dataclass(frozen=True, slots=True)
class ClaimQuery:
    """``listClaims``' filters: the participant's claims as donor, claimer or either (both or
    neither flag set), of these statuses (all when empty) and type, modified within a window,
    at most ``limit`` ordered by ``LastModified``."""

    participant: str
    is_donor: bool | None = None
    is_claimer: bool | None = None
    statuses: tuple[ClaimStatus, ...] = ()
    type: ClaimType | None = None
    modified_after: datetime | None = None
    modified_before: datetime | None = None
    limit: int = 20
