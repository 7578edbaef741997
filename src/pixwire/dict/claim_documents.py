"""The DICT's claim documents: ``CreateClaimRequest``, the four steps' requests
(``AcknowledgeClaimRequest``, ``ConfirmClaimRequest``, ``CancelClaimRequest``,
``CompleteClaimRequest``), each operation's response with its ``Claim`` (the document's
``ExtendedClaim``), and ``ListClaimsResponse``; to and from ``pixwire.dict.model``.

A value out of its domain is ``ClaimInvalid`` naming the element; a document that is no XML, or
lacks a required element, is :class:`~pixwire.xml.BadXml` (``BadRequest``).
"""

from __future__ import annotations

import enum
import uuid
from datetime import datetime

from pixcore.clock import format_timestamp
from pixcore.keys import PixKeyType
from pixwire.dict.documents import (
    account_element,
    moment,
    one_of,
    owner_element,
    read_account,
    read_owner,
    required,
)
from pixwire.dict.model import (
    CancelledBy,
    Claim,
    ClaimAction,
    ClaimReason,
    ClaimStatus,
    ClaimType,
    Entry,
    ErrorType,
    NewClaim,
    invalid_field,
)
from pixwire.xml import BadXml, Element, element, leaf, text_of

__all__ = [
    "ClaimStep",
    "claim_response",
    "claim_step_request",
    "claims_response",
    "create_claim_request",
    "read_claim_response",
    "read_claim_step",
    "read_claims_response",
    "read_create_claim",
]

INVALID = ErrorType.CLAIM_INVALID


class ClaimStep(enum.StrEnum):
    """A step of a claim, by its path's last segment."""

    ACKNOWLEDGE = "acknowledge"
    CONFIRM = "confirm"
    CANCEL = "cancel"
    COMPLETE = "complete"

    @property
    def request(self) -> str:
        return f"{self.value.capitalize()}ClaimRequest"

    @property
    def response(self) -> str:
        return f"{self.value.capitalize()}ClaimResponse"


def _claim_parts(asked: NewClaim) -> list[Element | None]:
    return [
        leaf("Type", asked.type.value),
        leaf("Key", asked.key),
        leaf("KeyType", asked.key_type.value),
        account_element(asked.claimer_account, "ClaimerAccount"),
        owner_element(asked.claimer, "Claimer"),
    ]


def _read_new_claim(claim: Element) -> NewClaim:
    return NewClaim(
        type=one_of(ClaimType, text_of(claim, "Type"), "Claim.Type", INVALID),
        key=str(text_of(claim, "Key")),
        key_type=one_of(PixKeyType, text_of(claim, "KeyType"), "Claim.KeyType", INVALID),
        claimer_account=read_account(required(claim, "ClaimerAccount"), INVALID),
        claimer=read_owner(required(claim, "Claimer"), INVALID),
    )


def create_claim_request(asked: NewClaim) -> Element:
    """The ``CreateClaimRequest`` of ``asked`` (to be signed by the claimer)."""
    return element("CreateClaimRequest", element("Claim", *_claim_parts(asked)))


def read_create_claim(root: Element) -> NewClaim:
    """A ``CreateClaimRequest`` (its signature already verified)."""
    if root.tag != "CreateClaimRequest":
        raise BadXml(f"a CreateClaimRequest was expected, not {root.tag}")
    return _read_new_claim(required(root, "Claim"))


def claim_step_request(step: ClaimStep, action: ClaimAction) -> Element:
    """The request of ``step`` (to be signed by the participant that takes it)."""
    return element(
        step.request,
        leaf("ClaimId", str(action.claim_id)),
        leaf("Participant", action.participant),
        leaf("Reason", None if action.reason is None else action.reason.value),
        leaf("RequestId", None if action.request_id is None else str(action.request_id)),
    )


def _uuid(value: str | None, field: str) -> uuid.UUID:
    try:
        return uuid.UUID(value or "")
    except ValueError:
        raise invalid_field(field, "a UUID", INVALID) from None


def read_claim_step(root: Element, step: ClaimStep, claim_id: uuid.UUID) -> ClaimAction:
    """The request of ``step`` for the path's claim (its own ``ClaimId`` must be the same): a
    confirmation or a cancellation names its reason, a completion its RequestId."""
    if root.tag != step.request:
        raise BadXml(f"a {step.request} was expected, not {root.tag}")
    if _uuid(text_of(root, "ClaimId"), "ClaimId") != claim_id:
        raise BadXml("the document's ClaimId is not the path's")
    reason = None
    if step in {ClaimStep.CONFIRM, ClaimStep.CANCEL}:
        reason = one_of(ClaimReason, text_of(root, "Reason"), "Reason", INVALID)
    request_id = None
    if step is ClaimStep.COMPLETE:
        request_id = _uuid(text_of(root, "RequestId"), "RequestId")
    return ClaimAction(claim_id, str(text_of(root, "Participant")), reason, request_id)


def _when(moment_: datetime | None) -> str | None:
    return None if moment_ is None else format_timestamp(moment_)


def _value(member: enum.Enum | None) -> str | None:
    return None if member is None else str(member.value)


def _claim(claim: Claim) -> Element:
    return element(
        "Claim",
        *_claim_parts(claim.asked),
        leaf("DonorParticipant", claim.donor),
        leaf("Id", str(claim.id)),
        leaf("Status", claim.status.value),
        leaf("ResolutionPeriodEnd", _when(claim.resolution_period_end)),
        leaf("CompletionPeriodEnd", _when(claim.completion_period_end)),
        leaf("LastModified", _when(claim.last_modified)),
        leaf("ConfirmReason", _value(claim.confirm_reason)),
        leaf("CancelReason", _value(claim.cancel_reason)),
        leaf("CancelledBy", _value(claim.cancelled_by)),
    )


def claim_response(
    tag: str, claim: Claim, *, correlation_id: str, now: datetime, entry: Entry | None = None
) -> Element:
    """The response ``tag`` of ``claim`` (a completion's names the entry it made)."""
    return element(
        tag,
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        _claim(claim),
        leaf("EntryCreationDate", None if entry is None else _when(entry.created_at)),
        leaf("KeyOwnershipDate", None if entry is None else _when(entry.owned_since)),
    )


def claims_response(claims: list[Claim], has_more: bool, *, correlation_id: str, now: datetime) -> Element:
    """The ``ListClaimsResponse``."""
    return element(
        "ListClaimsResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        leaf("HasMoreElements", "true" if has_more else "false"),
        element("Claims", *(_claim(claim) for claim in claims)),
    )


def _optional(kind: type[enum.Enum], claim: Element, tag: str) -> str | None:
    value = text_of(claim, tag, required=False) or None
    return None if value is None else one_of(kind, value, f"Claim.{tag}", INVALID).value


def _read_claim(claim: Element) -> Claim:
    """An ``ExtendedClaim`` as a participant reads it (the document does not say when the claim
    was made, nor since when the donor's owner held the key: both read as its last change)."""
    last_modified = moment(text_of(claim, "LastModified"), "Claim.LastModified", INVALID)
    completion = text_of(claim, "CompletionPeriodEnd", required=False)
    confirm, cancel = (
        _optional(ClaimReason, claim, "ConfirmReason"),
        _optional(ClaimReason, claim, "CancelReason"),
    )
    cancelled_by = _optional(CancelledBy, claim, "CancelledBy")
    return Claim(
        asked=_read_new_claim(claim),
        id=_uuid(text_of(claim, "Id"), "Claim.Id"),
        donor=str(text_of(claim, "DonorParticipant")),
        status=one_of(ClaimStatus, text_of(claim, "Status"), "Claim.Status", INVALID),
        resolution_period_end=moment(
            text_of(claim, "ResolutionPeriodEnd"), "Claim.ResolutionPeriodEnd", INVALID
        ),
        completion_period_end=(
            None if not completion else moment(completion, "Claim.CompletionPeriodEnd", INVALID)
        ),
        last_modified=last_modified,
        created_at=last_modified,
        donor_owned_since=last_modified,
        confirm_reason=None if confirm is None else ClaimReason(confirm),
        cancel_reason=None if cancel is None else ClaimReason(cancel),
        cancelled_by=None if cancelled_by is None else CancelledBy(cancelled_by),
    )


def read_claim_response(root: Element) -> Claim:
    """The claim of any claim operation's response (the participant's side)."""
    if not root.tag.endswith("ClaimResponse") or root.tag == "ListClaimsResponse":
        raise BadXml(f"a claim's response was expected, not {root.tag}")
    return _read_claim(required(root, "Claim"))


def read_claims_response(root: Element) -> tuple[list[Claim], bool]:
    """The claims of a ``ListClaimsResponse``, and whether there are more."""
    if root.tag != "ListClaimsResponse":
        raise BadXml(f"a ListClaimsResponse was expected, not {root.tag}")
    claims = [_read_claim(found) for found in required(root, "Claims").findall("Claim")]
    return claims, text_of(root, "HasMoreElements") == "true"
