"""The DICT's claim rules (``pixnet.directory.claims``), on a store kept in memory: portability
and ownership from opening to completion, who may take each step, the periods on the network's
clock, and each step's repeat."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable
from datetime import timedelta
from typing import TypeVar

import pytest

from pixcore.keys import PixKeyType
from pixnet.directory.claims import (
    ClaimPeriods,
    acknowledge_claim,
    cancel_claim,
    complete_claim,
    confirm_claim,
    create_claim,
    get_claim,
    list_claims,
)
from pixnet.directory.entries import create_entry, delete_entry
from pixwire.dict.model import (
    CancelledBy,
    Claim,
    ClaimAction,
    ClaimQuery,
    ClaimReason,
    ClaimStatus,
    ClaimType,
    DeleteEntry,
    DictProblem,
    EntryReason,
    ErrorType,
    NewClaim,
    Owner,
)
from tests.support import random_cpf
from tests.unit.network.stores import MemoryStore
from tests.unit.network.test_entries import NOW, A, B, account, create, person, request

T = TypeVar("T")
C = "33333333"
PERIODS = ClaimPeriods(resolution=timedelta(days=7), completion=timedelta(days=30))
DAY = timedelta(days=1)


def run(awaitable: Awaitable[T]) -> T:
    async def wrapped() -> T:
        return await awaitable

    return asyncio.run(wrapped())


def refusal(awaitable: Awaitable[object]) -> ErrorType:
    with pytest.raises(DictProblem) as caught:
        run(awaitable)
    return caught.value.type


def held(store: MemoryStore, key: str, owner: Owner, at: str = A) -> None:
    """``key`` registered for ``owner`` at participant ``at``."""
    create(store, request(key, PixKeyType.EMAIL, owner, account(at)), requester=at)


def claim(store: MemoryStore, key: str, owner: Owner, type_: ClaimType, by: str = B) -> Claim:
    asked = NewClaim(type_, key, PixKeyType.EMAIL, account(by, "0000000042"), owner)
    return run(create_claim(store, asked, requester=by, now=NOW, periods=PERIODS))


def step(participant: str, found: Claim, reason: ClaimReason | None = None) -> ClaimAction:
    return ClaimAction(found.id, participant, reason, uuid.uuid4() if reason is None else None)


def test_a_key_is_ported_from_donor_to_claimer() -> None:
    store, owner = MemoryStore(), person()
    held(store, "maria@example.com", owner)
    opened = claim(store, "maria@example.com", owner, ClaimType.PORTABILITY)
    assert (opened.status, opened.donor, opened.completion_period_end) == (ClaimStatus.OPEN, A, None)
    assert opened.resolution_period_end == NOW + timedelta(days=7)

    acknowledged = run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))
    assert acknowledged.status is ClaimStatus.WAITING_RESOLUTION
    confirmed = run(
        confirm_claim(store, step(A, opened, ClaimReason.USER_REQUESTED), requester=A, now=NOW + DAY)
    )
    assert (confirmed.status, confirmed.confirm_reason) == (ClaimStatus.CONFIRMED, ClaimReason.USER_REQUESTED)
    assert "maria@example.com" not in store.entries  # the donor's entry went with the confirmation
    completing = ClaimAction(opened.id, B, request_id=uuid.uuid4())
    completed = run(complete_claim(store, completing, requester=B, now=NOW + DAY))

    assert completed.status is ClaimStatus.COMPLETED
    entry = store.entries["maria@example.com"]
    assert (entry.account.participant, entry.account.number, entry.owner) == (B, "0000000042", owner)
    assert entry.owned_since == NOW  # the same owner: held without a break since the first entry
    assert run(complete_claim(store, completing, requester=B, now=NOW + 2 * DAY)) == completed  # a repeat


def test_ownership_is_another_persons_and_waits_for_its_periods() -> None:
    store, old, new = MemoryStore(), person(), person()
    held(store, "shared@example.com", old)
    assert refusal(create_claim_of(store, "shared@example.com", old, ClaimType.OWNERSHIP)) is (
        ErrorType.CLAIM_TYPE_INCONSISTENT
    )
    assert refusal(create_claim_of(store, "shared@example.com", new, ClaimType.PORTABILITY)) is (
        ErrorType.CLAIM_TYPE_INCONSISTENT
    )
    opened = claim(store, "shared@example.com", new, ClaimType.OWNERSHIP)
    assert opened.completion_period_end == NOW + timedelta(days=37)
    run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))

    by_default = step(A, opened, ClaimReason.DEFAULT_OPERATION)
    early = confirm_claim(store, by_default, requester=A, now=NOW + 6 * DAY)
    assert refusal(early) is ErrorType.CLAIM_RESOLUTION_PERIOD_NOT_ENDED
    run(confirm_claim(store, by_default, requester=A, now=NOW + 7 * DAY))
    completing = ClaimAction(opened.id, B, request_id=uuid.uuid4())
    assert refusal(complete_claim(store, completing, requester=B, now=NOW + 36 * DAY)) is (
        ErrorType.CLAIM_COMPLETION_PERIOD_NOT_ENDED
    )
    run(complete_claim(store, completing, requester=B, now=NOW + 37 * DAY))

    entry = store.entries["shared@example.com"]
    assert (entry.owner, entry.owned_since) == (new, NOW + 37 * DAY)  # a new owner: held from now


def test_an_owner_who_agrees_lets_the_claimer_complete_at_once() -> None:
    store, old, new = MemoryStore(), person(), person()
    held(store, "agreed@example.com", old)
    opened = claim(store, "agreed@example.com", new, ClaimType.OWNERSHIP)
    run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))
    confirmed = run(
        confirm_claim(store, step(A, opened, ClaimReason.USER_REQUESTED), requester=A, now=NOW + DAY)
    )
    assert confirmed.completion_period_end == NOW + DAY
    completed = run(
        complete_claim(store, ClaimAction(opened.id, B, request_id=uuid.uuid4()), requester=B, now=NOW + DAY)
    )
    assert completed.status is ClaimStatus.COMPLETED


def create_claim_of(store: MemoryStore, key: str, owner: Owner, type_: ClaimType) -> Awaitable[Claim]:
    asked = NewClaim(type_, key, PixKeyType.EMAIL, account(B, "0000000042"), owner)
    return create_claim(store, asked, requester=B, now=NOW, periods=PERIODS)


def test_what_a_claim_cannot_be_opened_for() -> None:
    store, owner = MemoryStore(), person()
    assert refusal(create_claim_of(store, "nobody@example.com", owner, ClaimType.PORTABILITY)) is (
        ErrorType.CLAIM_KEY_NOT_FOUND
    )
    held(store, "mine@example.com", owner, at=B)
    assert refusal(create_claim_of(store, "mine@example.com", owner, ClaimType.PORTABILITY)) is (
        ErrorType.CLAIM_RESULTING_ENTRY_ALREADY_EXISTS
    )
    held(store, "taken@example.com", owner)
    claim(store, "taken@example.com", owner, ClaimType.PORTABILITY)
    assert refusal(create_claim_of(store, "taken@example.com", owner, ClaimType.PORTABILITY)) is (
        ErrorType.CLAIM_ALREADY_EXISTS_FOR_KEY
    )
    someone_elses = NewClaim(ClaimType.PORTABILITY, "taken@example.com", PixKeyType.EMAIL, account(C), owner)
    assert refusal(create_claim(store, someone_elses, requester=B, now=NOW, periods=PERIODS)) is (
        ErrorType.FORBIDDEN
    )
    evp = NewClaim(ClaimType.PORTABILITY, str(uuid.uuid4()), PixKeyType.EVP, account(B), owner)
    assert refusal(create_claim(store, evp, requester=B, now=NOW, periods=PERIODS)) is ErrorType.CLAIM_INVALID
    cpf = random_cpf()
    document = NewClaim(ClaimType.OWNERSHIP, cpf, PixKeyType.CPF, account(B), person(cpf))
    assert refusal(create_claim(store, document, requester=B, now=NOW, periods=PERIODS)) is (
        ErrorType.CLAIM_INVALID
    )


def test_an_open_claim_locks_its_key() -> None:
    store, owner = MemoryStore(), person()
    held(store, "locked@example.com", owner)
    opened = claim(store, "locked@example.com", owner, ClaimType.PORTABILITY)
    deleting = DeleteEntry("locked@example.com", A, EntryReason.USER_REQUESTED)
    assert refusal(delete_entry(store, deleting, requester=A)) is ErrorType.ENTRY_LOCKED_BY_CLAIM
    run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))
    run(confirm_claim(store, step(A, opened, ClaimReason.USER_REQUESTED), requester=A, now=NOW))
    again = request("locked@example.com", PixKeyType.EMAIL, person(), account(C))
    assert refusal(create_entry(store, again, requester=C, now=NOW)) is ErrorType.ENTRY_LOCKED_BY_CLAIM


def test_who_takes_each_step() -> None:
    store, owner = MemoryStore(), person()
    held(store, "steps@example.com", owner)
    opened = claim(store, "steps@example.com", owner, ClaimType.PORTABILITY)
    assert refusal(acknowledge_claim(store, ClaimAction(opened.id, B), requester=B, now=NOW)) is (
        ErrorType.FORBIDDEN
    )
    assert refusal(acknowledge_claim(store, ClaimAction(opened.id, A), requester=B, now=NOW)) is (
        ErrorType.FORBIDDEN
    )
    assert refusal(get_claim(store, opened.id, requester=C)) is ErrorType.NOT_FOUND  # seen by its two only
    assert run(get_claim(store, opened.id, requester=A)) == opened
    early = confirm_claim(store, step(A, opened, ClaimReason.USER_REQUESTED), requester=A, now=NOW)
    assert refusal(early) is ErrorType.CLAIM_OPERATION_INVALID  # not acknowledged yet
    run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))
    assert refusal(
        confirm_claim(store, step(B, opened, ClaimReason.USER_REQUESTED), requester=B, now=NOW)
    ) is (ErrorType.FORBIDDEN)
    assert refusal(confirm_claim(store, step(A, opened, ClaimReason.FRAUD), requester=A, now=NOW)) is (
        ErrorType.INVALID_REASON
    )
    completing = ClaimAction(opened.id, B, request_id=uuid.uuid4())
    assert (
        refusal(complete_claim(store, completing, requester=B, now=NOW)) is ErrorType.CLAIM_OPERATION_INVALID
    )


@pytest.mark.parametrize(
    ("type_", "reason", "donor", "claimer"),
    [
        (ClaimType.PORTABILITY, ClaimReason.USER_REQUESTED, True, True),
        (ClaimType.PORTABILITY, ClaimReason.ACCOUNT_CLOSURE, False, True),
        (ClaimType.PORTABILITY, ClaimReason.RECONCILIATION, False, True),
        (ClaimType.PORTABILITY, ClaimReason.FRAUD, True, True),
        (ClaimType.OWNERSHIP, ClaimReason.USER_REQUESTED, False, True),
        (ClaimType.OWNERSHIP, ClaimReason.FRAUD, True, True),
        (ClaimType.OWNERSHIP, ClaimReason.RECONCILIATION, False, False),
    ],
)
def test_who_cancels_with_which_reason(
    type_: ClaimType, reason: ClaimReason, donor: bool, claimer: bool
) -> None:
    for canceller, allowed in ((A, donor), (B, claimer)):
        store, owner = MemoryStore(), person()
        held(store, "cancel@example.com", owner)
        opened = claim(
            store, "cancel@example.com", owner if type_ is ClaimType.PORTABILITY else person(), type_
        )
        run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))
        cancelling = cancel_claim(store, step(canceller, opened, reason), requester=canceller, now=NOW)
        if not allowed:
            assert refusal(cancelling) is ErrorType.FORBIDDEN
            continue
        cancelled = run(cancelling)
        who = CancelledBy.DONOR if canceller == A else CancelledBy.CLAIMER
        assert (cancelled.status, cancelled.cancel_reason, cancelled.cancelled_by) == (
            ClaimStatus.CANCELLED,
            reason,
            who,
        )
        assert store.entries["cancel@example.com"].account.participant == A  # the key stays
        again = run(cancel_claim(store, step(canceller, opened, reason), requester=canceller, now=NOW + DAY))
        assert again == cancelled


def test_a_portability_left_unanswered_is_cancelled_by_its_donor_once_the_period_ends() -> None:
    store, owner = MemoryStore(), person()
    held(store, "late@example.com", owner)
    opened = claim(store, "late@example.com", owner, ClaimType.PORTABILITY)
    run(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW))
    by_default = step(A, opened, ClaimReason.DEFAULT_OPERATION)
    assert refusal(cancel_claim(store, by_default, requester=A, now=NOW + 6 * DAY)) is (
        ErrorType.CLAIM_RESOLUTION_PERIOD_NOT_ENDED
    )
    assert (
        run(cancel_claim(store, by_default, requester=A, now=NOW + 7 * DAY)).status is ClaimStatus.CANCELLED
    )
    assert refusal(acknowledge_claim(store, ClaimAction(opened.id, A), requester=A, now=NOW)) is (
        ErrorType.CLAIM_OPERATION_INVALID
    )


def test_the_list_answers_the_participants_claims_by_role() -> None:
    store, owner = MemoryStore(), person()
    for n in range(3):
        held(store, f"list{n}@example.com", owner)
        claim(store, f"list{n}@example.com", owner, ClaimType.PORTABILITY)
    held(store, "other@example.com", owner, at=C)
    claim(store, "other@example.com", owner, ClaimType.PORTABILITY)  # C is its donor, B its claimer

    as_donor, more = run(list_claims(store, ClaimQuery(A, is_donor=True, limit=2), requester=A))
    assert (len(as_donor), more) == (2, True)
    assert {c.donor for c in as_donor} == {A}
    as_claimer, more = run(list_claims(store, ClaimQuery(B, is_claimer=True), requester=B))
    assert (len(as_claimer), more) == (4, False)
    assert run(list_claims(store, ClaimQuery(C), requester=C))[0][0].asked.key == "other@example.com"
    assert refusal(list_claims(store, ClaimQuery(A), requester=B)) is ErrorType.FORBIDDEN
    assert refusal(list_claims(store, ClaimQuery(A, limit=201), requester=A)) is ErrorType.BAD_REQUEST
