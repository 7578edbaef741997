"""The DICT's claims (reivindicações): a key moved to another participant by its owner
(portability) or taken by another person (ownership), as the central bank's DICT API document
states them (its Claim section, its operations and their tables of who may do what):

* the claimer's participant opens the claim for an account of its own (``Forbidden``); the key
  must have an entry (``ClaimKeyNotFound``), no claim of it may be open
  (``ClaimAlreadyExistsForKey``), and what the claim would bind must not be bound already
  (``ClaimResultingEntryAlreadyExists``); portability is the same owner's, ownership another
  person's (``ClaimTypeInconsistent``); an EVP is never claimed, and a CPF or CNPJ key only ported
  (``ClaimInvalid``);
* ``OPEN`` until the donor acknowledges it (``WAITING_RESOLUTION``); the donor confirms it
  (``CONFIRMED``: its entry is removed, in the same transaction), then the claimer completes it
  (``COMPLETED``: the claimer's entry is made, in the same transaction); either may cancel it as
  the document's table allows (``CANCELLED``);
* the periods run on the network's clock: the resolution period (7 days by default) after which an
  ownership claim's donor may confirm by ``DEFAULT_OPERATION`` and a portability's donor cancel by
  it (``ClaimResolutionPeriodNotEnded``); the completion period of an ownership claim (30 days
  after the resolution period, or at once when its donor confirms as ``USER_REQUESTED``) before
  which its claimer may not complete (``ClaimCompletionPeriodNotEnded``);
* every step is idempotent: the same step again, with the same reason, answers the claim as it
  is; any other step the status does not allow is ``ClaimOperationInvalid``;
* a claim is seen only by its donor and its claimer (``NotFound`` to anyone else).

Our choice where the document is silent: the claimer may cancel a claim still ``OPEN`` (the
donor never acknowledged it), with the reasons it may cancel with.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

from pixcore.keys import PixKeyType
from pixnet.directory.entries import (
    KEYS_PER_ACCOUNT,
    EntryStore,
    KeyTaken,
    check_account,
    check_owner,
    checked_key,
)
from pixwire.dict.model import (
    CancelledBy,
    Claim,
    ClaimAction,
    ClaimQuery,
    ClaimReason,
    ClaimStatus,
    ClaimType,
    DictProblem,
    Entry,
    ErrorType,
    NewClaim,
    NewEntry,
)

__all__ = [
    "CANCELLERS",
    "CONFIRM_REASONS",
    "MAX_LISTED",
    "ClaimChanged",
    "ClaimPeriods",
    "ClaimStore",
    "acknowledge_claim",
    "cancel_claim",
    "complete_claim",
    "confirm_claim",
    "create_claim",
    "get_claim",
    "list_claims",
]

MAX_LISTED = 200
"""The most claims one ``listClaims`` answers (the document's ``Limit`` maximum)."""

CLAIMABLE = {
    ClaimType.OWNERSHIP: frozenset({PixKeyType.PHONE, PixKeyType.EMAIL}),
    ClaimType.PORTABILITY: frozenset({PixKeyType.CPF, PixKeyType.CNPJ, PixKeyType.PHONE, PixKeyType.EMAIL}),
}
"""The key types each type of claim takes (the document's table: an EVP is never claimed)."""

CONFIRM_REASONS = {
    ClaimType.OWNERSHIP: frozenset({ClaimReason.USER_REQUESTED, ClaimReason.DEFAULT_OPERATION}),
    ClaimType.PORTABILITY: frozenset({ClaimReason.USER_REQUESTED, ClaimReason.ACCOUNT_CLOSURE}),
}
"""The reasons a donor confirms with, by type (only the donor confirms)."""

_BOTH = frozenset({CancelledBy.DONOR, CancelledBy.CLAIMER})
_DONOR = frozenset({CancelledBy.DONOR})
_CLAIMER = frozenset({CancelledBy.CLAIMER})
CANCELLERS = {
    ClaimType.OWNERSHIP: {
        ClaimReason.USER_REQUESTED: _CLAIMER,
        ClaimReason.ACCOUNT_CLOSURE: _CLAIMER,
        ClaimReason.FRAUD: _BOTH,
        ClaimReason.DEFAULT_OPERATION: _CLAIMER,
    },
    ClaimType.PORTABILITY: {
        ClaimReason.USER_REQUESTED: _BOTH,
        ClaimReason.ACCOUNT_CLOSURE: _CLAIMER,
        ClaimReason.FRAUD: _BOTH,
        ClaimReason.DEFAULT_OPERATION: _DONOR,
        ClaimReason.RECONCILIATION: _CLAIMER,
    },
}
"""Who may cancel, by type and reason (the document's table)."""


@dataclass(frozen=True, slots=True)
class ClaimPeriods:
    resolution: timedelta = timedelta(days=7)
    completion: timedelta = timedelta(days=30)


class ClaimChanged(Exception):
    """The store's answer when the claim is no longer in the status a change expected (a race
    lost: the step is judged again on the claim as it now is)."""


class ClaimStore(Protocol):
    """Where the claims are kept, beside the entries; each method atomic on its own."""

    async def claim(self, claim_id: uuid.UUID) -> Claim | None: ...

    async def open_claim(self, key: str) -> Claim | None:
        """The claim of ``key`` that is neither completed nor cancelled, if one is."""
        ...

    async def add_claim(self, claim: Claim) -> None:
        """Keep a new claim; :class:`ClaimChanged` when a claim of its key is open already."""
        ...

    async def change_claim(
        self, claim: Claim, was: ClaimStatus, *, remove_entry: bool = False, add_entry: Entry | None = None
    ) -> None:
        """Replace the claim, if it is still ``was`` (else :class:`ClaimChanged`), and in the same
        transaction remove its key's entry, or add ``add_entry`` (:class:`KeyTaken` if the key has
        an entry: nothing changes)."""
        ...

    async def claims(self, query: ClaimQuery) -> list[Claim]:
        """The claims ``query`` asks for, by ``last_modified`` then id, at most ``limit + 1``."""
        ...


class Directory(EntryStore, ClaimStore, Protocol):
    """The DICT's store: entries and claims."""


Now = Callable[[], datetime]


def _claimer_problem(asked: NewClaim) -> None:
    check_account(asked.claimer_account, "ClaimerAccount", ErrorType.CLAIM_INVALID)
    check_owner(asked.claimer, "Claimer", ErrorType.CLAIM_INVALID)
    if asked.key_type not in CLAIMABLE[asked.type]:
        raise DictProblem(
            ErrorType.CLAIM_INVALID, f"a {asked.key_type.value} key is not claimed by {asked.type.value}"
        )


async def create_claim(
    store: Directory, asked: NewClaim, *, requester: str, now: datetime, periods: ClaimPeriods
) -> Claim:
    """``POST /claims/``: the claim opened."""
    if asked.claimer_account.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "a participant claims keys for its own accounts only")
    _claimer_problem(asked)
    key = checked_key(
        NewEntry(asked.key, asked.key_type, asked.claimer_account, asked.claimer), ErrorType.CLAIM_INVALID
    )
    if key is None:  # an EVP: refused above already
        raise DictProblem(ErrorType.CLAIM_INVALID, "an EVP key is never claimed")
    asked = replace(asked, key=key)
    entry = await store.by_key(key)
    if entry is None:
        raise DictProblem(ErrorType.CLAIM_KEY_NOT_FOUND, "no entry has this key")
    same_owner = entry.owner.tax_id == asked.claimer.tax_id
    if same_owner and entry.account.participant == requester:
        raise DictProblem(
            ErrorType.CLAIM_RESULTING_ENTRY_ALREADY_EXISTS, "the key is the claimer's at this participant"
        )
    if same_owner != (asked.type is ClaimType.PORTABILITY):
        wanted = "portability" if same_owner else "ownership"
        raise DictProblem(
            ErrorType.CLAIM_TYPE_INCONSISTENT,
            f"the key's owner is {'' if same_owner else 'not '}the claimer's: a claim of {wanted}",
        )
    resolution_end = now + periods.resolution
    claim = Claim(
        asked=asked,
        id=uuid.uuid4(),
        donor=entry.account.participant,
        status=ClaimStatus.OPEN,
        resolution_period_end=resolution_end,
        completion_period_end=(
            resolution_end + periods.completion if asked.type is ClaimType.OWNERSHIP else None
        ),
        last_modified=now,
        created_at=now,
        donor_owned_since=entry.owned_since,
    )
    if await store.open_claim(key) is not None:
        raise DictProblem(ErrorType.CLAIM_ALREADY_EXISTS_FOR_KEY, "a claim of the key is open")
    try:
        await store.add_claim(claim)
    except ClaimChanged:
        raise DictProblem(ErrorType.CLAIM_ALREADY_EXISTS_FOR_KEY, "a claim of the key is open") from None
    return claim


async def _seen_by(store: ClaimStore, claim_id: uuid.UUID, requester: str) -> Claim:
    claim = await store.claim(claim_id)
    if claim is None or requester not in {claim.donor, claim.claimer_participant}:
        raise DictProblem(ErrorType.NOT_FOUND, "no claim of the participant has this id")
    return claim


async def get_claim(store: ClaimStore, claim_id: uuid.UUID, *, requester: str) -> Claim:
    """``GET /claims/{ClaimId}``."""
    return await _seen_by(store, claim_id, requester)


def _acting(action: ClaimAction, requester: str) -> None:
    if action.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")


def _invalid(claim: Claim, step: str) -> DictProblem:
    return DictProblem(ErrorType.CLAIM_OPERATION_INVALID, f"a {claim.status.value} claim is not {step}")


async def _step(
    store: ClaimStore,
    action: ClaimAction,
    requester: str,
    judge: Callable[[Claim], tuple[Claim, bool, Entry | None] | Claim],
) -> Claim:
    """Judge the claim as it is, and change it; judged again if it changed meanwhile. ``judge``
    answers the claim as it stays (a repeat of a step done), or the claim changed with whether
    its entry goes and the entry it makes."""
    _acting(action, requester)
    for _ in range(3):
        claim = await _seen_by(store, action.claim_id, requester)
        judged = judge(claim)
        if isinstance(judged, Claim):
            return judged
        changed, remove_entry, add_entry = judged
        try:
            await store.change_claim(changed, claim.status, remove_entry=remove_entry, add_entry=add_entry)
        except ClaimChanged:
            continue
        return changed
    raise DictProblem(ErrorType.SERVICE_UNAVAILABLE, "the claim keeps changing: try again")


async def acknowledge_claim(
    store: ClaimStore, action: ClaimAction, *, requester: str, now: datetime
) -> Claim:
    """``POST /claims/{ClaimId}/acknowledge``: the donor has received it."""

    def judge(claim: Claim) -> tuple[Claim, bool, Entry | None] | Claim:
        if claim.donor != requester:
            raise DictProblem(ErrorType.FORBIDDEN, "only the donor acknowledges a claim")
        if claim.status is ClaimStatus.WAITING_RESOLUTION:
            return claim
        if claim.status is not ClaimStatus.OPEN:
            raise _invalid(claim, "acknowledged")
        return replace(claim, status=ClaimStatus.WAITING_RESOLUTION, last_modified=now), False, None

    return await _step(store, action, requester, judge)


def _reason(action: ClaimAction) -> ClaimReason:
    if action.reason is None:
        raise DictProblem(ErrorType.BAD_REQUEST, "Reason is required")
    return action.reason


async def confirm_claim(store: ClaimStore, action: ClaimAction, *, requester: str, now: datetime) -> Claim:
    """``POST /claims/{ClaimId}/confirm``: the donor gives the key up; its entry is removed."""
    reason = _reason(action)

    def judge(claim: Claim) -> tuple[Claim, bool, Entry | None] | Claim:
        type_ = claim.asked.type
        if claim.donor != requester:
            raise DictProblem(ErrorType.FORBIDDEN, "only the donor confirms a claim")
        if reason not in CONFIRM_REASONS[type_]:
            raise DictProblem(
                ErrorType.INVALID_REASON, f"{reason.value} does not confirm a {type_.value} claim"
            )
        if claim.status is ClaimStatus.CONFIRMED and claim.confirm_reason is reason:
            return claim
        if claim.status is not ClaimStatus.WAITING_RESOLUTION:
            raise _invalid(claim, "confirmed")
        if reason is ClaimReason.DEFAULT_OPERATION and now < claim.resolution_period_end:
            raise DictProblem(
                ErrorType.CLAIM_RESOLUTION_PERIOD_NOT_ENDED, "the resolution period has not ended"
            )
        completion = claim.completion_period_end
        if type_ is ClaimType.OWNERSHIP and reason is ClaimReason.USER_REQUESTED:
            completion = now  # the old owner agreed: the claimer may complete at once
        confirmed = replace(
            claim,
            status=ClaimStatus.CONFIRMED,
            confirm_reason=reason,
            completion_period_end=completion,
            last_modified=now,
        )
        return confirmed, True, None

    return await _step(store, action, requester, judge)


async def cancel_claim(store: ClaimStore, action: ClaimAction, *, requester: str, now: datetime) -> Claim:
    """``POST /claims/{ClaimId}/cancel``: the claim ends with the key where it was (a claim
    cancelled after its confirmation leaves the key with no entry)."""
    reason = _reason(action)

    def judge(claim: Claim) -> tuple[Claim, bool, Entry | None] | Claim:
        type_ = claim.asked.type
        roles = {CancelledBy.DONOR} if requester == claim.donor else set()
        if requester == claim.claimer_participant:
            roles.add(CancelledBy.CLAIMER)
        allowed_to = CANCELLERS[type_].get(reason, frozenset()) & roles
        if not allowed_to:
            raise DictProblem(
                ErrorType.FORBIDDEN,
                f"{reason.value} is not a reason the caller cancels a {type_.value} claim with",
            )
        who = CancelledBy.CLAIMER if CancelledBy.CLAIMER in allowed_to else CancelledBy.DONOR
        if claim.status is ClaimStatus.CANCELLED and (claim.cancel_reason, claim.cancelled_by) == (
            reason,
            who,
        ):
            return claim
        allowed = {ClaimStatus.WAITING_RESOLUTION, ClaimStatus.CONFIRMED}
        if who is CancelledBy.CLAIMER:
            allowed.add(ClaimStatus.OPEN)
        if claim.status not in allowed:
            raise _invalid(claim, "cancelled")
        if reason is ClaimReason.DEFAULT_OPERATION and now < claim.resolution_period_end:
            raise DictProblem(
                ErrorType.CLAIM_RESOLUTION_PERIOD_NOT_ENDED, "the resolution period has not ended"
            )
        cancelled = replace(
            claim, status=ClaimStatus.CANCELLED, cancel_reason=reason, cancelled_by=who, last_modified=now
        )
        return cancelled, False, None

    return await _step(store, action, requester, judge)


async def complete_claim(store: Directory, action: ClaimAction, *, requester: str, now: datetime) -> Claim:
    """``POST /claims/{ClaimId}/complete``: the claimer's entry is made (``EntryLimitExceeded`` if
    its account holds the most keys already)."""
    if action.request_id is None:
        raise DictProblem(ErrorType.BAD_REQUEST, "RequestId is required")
    request_id = action.request_id
    claim = await _seen_by(store, action.claim_id, requester)
    held = await store.count_for_account(
        requester, claim.asked.claimer_account.branch, claim.asked.claimer_account.number
    )

    def judge(claim: Claim) -> tuple[Claim, bool, Entry | None] | Claim:
        asked = claim.asked
        if claim.claimer_participant != requester:
            raise DictProblem(ErrorType.FORBIDDEN, "only the claimer completes a claim")
        if claim.status is ClaimStatus.COMPLETED:
            if claim.completed_request != request_id:
                raise DictProblem(
                    ErrorType.REQUEST_ID_ALREADY_USED, "the claim was completed by another RequestId"
                )
            return claim
        if claim.status is not ClaimStatus.CONFIRMED:
            raise _invalid(claim, "completed")
        if claim.completion_period_end is not None and now < claim.completion_period_end:
            raise DictProblem(
                ErrorType.CLAIM_COMPLETION_PERIOD_NOT_ENDED, "the completion period has not ended"
            )
        if held >= KEYS_PER_ACCOUNT[asked.claimer.type]:
            raise DictProblem(
                ErrorType.ENTRY_LIMIT_EXCEEDED,
                f"the account holds {held} keys, the most for a {asked.claimer.type.value}",
            )
        entry = Entry(
            key=asked.key,
            key_type=asked.key_type,
            account=asked.claimer_account,
            owner=asked.claimer,
            created_at=now,
            owned_since=claim.donor_owned_since if asked.type is ClaimType.PORTABILITY else now,
            request_id=request_id,
        )
        completed = replace(
            claim, status=ClaimStatus.COMPLETED, completed_request=request_id, last_modified=now
        )
        return completed, False, entry

    try:
        return await _step(store, action, requester, judge)
    except KeyTaken:
        raise DictProblem(ErrorType.ENTRY_ALREADY_EXISTS, "the key has an entry again") from None


async def list_claims(store: ClaimStore, query: ClaimQuery, *, requester: str) -> tuple[list[Claim], bool]:
    """``GET /claims/``: the claims asked for, and whether there are more."""
    if query.participant != requester:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")
    if not 1 <= query.limit <= MAX_LISTED:
        raise DictProblem(ErrorType.BAD_REQUEST, f"Limit is 1 to {MAX_LISTED}")
    found = await store.claims(query)
    return found[: query.limit], len(found) > query.limit
