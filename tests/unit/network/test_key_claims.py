"""Claims of keys as the service takes part in them (``pixcore.network.claims``), on the fakes:
as donor it gives a key up before confirming (or refuses, or leaves it to the operator), as
claimer it adds the key to the account the claim names and then completes it; every pass may be
repeated."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from pixcore.accounts.rules import Account
from pixcore.errors import AccountNotFound, DuplicatePixKey, InvalidPixKey, ValidationError
from pixcore.keys import PixKey, parse_pix_key
from pixcore.network.claims import (
    ClaimKind,
    ClaimPolicy,
    ClaimState,
    KeyClaim,
    answer_claims,
    claim_key,
    complete_claims,
    confirm_claim,
)
from pixcore.testing import InMemoryStore, PlainHasher
from tests.unit.usecase_helpers import ISPB, open_test_account

ELSEWHERE = "22222222"
NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


class FakeClaims:
    """The DICT's claims as the use cases see them: what each step did, in order."""

    def __init__(self) -> None:
        self.claims: dict[uuid.UUID, KeyClaim] = {}
        self.steps: list[tuple[str, uuid.UUID]] = []
        self.key_held_at_confirm: list[bool] = []
        self.store: InMemoryStore | None = None

    def add(
        self, key: str, state: ClaimState, *, donor: str, claimer: str, account: str = "00000001"
    ) -> KeyClaim:
        claim = KeyClaim(
            uuid.uuid4(),
            ClaimKind.PORTABILITY,
            parse_pix_key(key),
            state,
            donor,
            claimer,
            "0001",
            account,
            NOW,
            NOW,
        )
        self.claims[claim.id] = claim
        return claim

    def _moved(self, claim_id: uuid.UUID, state: ClaimState, step: str) -> KeyClaim:
        self.steps.append((step, claim_id))
        self.claims[claim_id] = replace(self.claims[claim_id], state=state)
        return self.claims[claim_id]

    async def open(self, account: Account, key: PixKey, kind: ClaimKind) -> KeyClaim:
        claim = self.add(
            key.value, ClaimState.OPEN, donor=ELSEWHERE, claimer=account.ispb, account=account.number
        )
        self.steps.append(("open", claim.id))
        return replace(claim, kind=kind)

    async def as_donor(self) -> list[KeyClaim]:
        waiting = {ClaimState.OPEN, ClaimState.WAITING_RESOLUTION}
        return [c for c in self.claims.values() if c.donor == ISPB and c.state in waiting]

    async def as_claimer(self) -> list[KeyClaim]:
        return [c for c in self.claims.values() if c.claimer == ISPB and c.state is ClaimState.CONFIRMED]

    async def get(self, claim_id: uuid.UUID) -> KeyClaim | None:
        return self.claims.get(claim_id)

    async def acknowledge(self, claim_id: uuid.UUID) -> KeyClaim:
        return self._moved(claim_id, ClaimState.WAITING_RESOLUTION, "acknowledge")

    async def confirm(self, claim_id: uuid.UUID) -> KeyClaim:
        assert self.store is not None
        key = self.claims[claim_id].key
        self.key_held_at_confirm.append(key.value in self.store.keys)
        return self._moved(claim_id, ClaimState.CONFIRMED, "confirm")

    async def cancel(self, claim_id: uuid.UUID, *, as_donor: bool) -> KeyClaim:
        return self._moved(claim_id, ClaimState.CANCELLED, "cancel" if as_donor else "withdraw")

    async def complete(self, claim_id: uuid.UUID) -> KeyClaim:
        return self._moved(claim_id, ClaimState.COMPLETED, "complete")


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore()


@pytest.fixture
def claims(store: InMemoryStore) -> FakeClaims:
    fake = FakeClaims()
    fake.store = store
    return fake


async def test_as_donor_the_key_leaves_its_account_before_the_claim_is_confirmed(
    store: InMemoryStore, claims: FakeClaims
) -> None:
    opened = await open_test_account(store, PlainHasher(), keys=("maria@example.com",))
    claim = claims.add("maria@example.com", ClaimState.OPEN, donor=ISPB, claimer=ELSEWHERE)

    assert await answer_claims(store.unit_of_work, claims, ClaimPolicy.CONFIRM) == 1
    assert claims.steps == [("acknowledge", claim.id), ("confirm", claim.id)]
    assert claims.key_held_at_confirm == [False]  # gone from the account first
    async with store.unit_of_work() as tx:
        assert await tx.keys.list_for(opened.account.id) == []
    assert await answer_claims(store.unit_of_work, claims, ClaimPolicy.CONFIRM) == 0  # nothing left


async def test_a_confirmation_interrupted_after_the_key_left_is_finished_by_the_next_pass(
    store: InMemoryStore, claims: FakeClaims
) -> None:
    await open_test_account(store, PlainHasher(), keys=("again@example.com",))
    claim = claims.add("again@example.com", ClaimState.WAITING_RESOLUTION, donor=ISPB, claimer=ELSEWHERE)

    async def unreachable(claim_id: uuid.UUID) -> KeyClaim:
        raise ConnectionError("the network is down")

    confirm = claims.confirm
    claims.confirm = unreachable  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        await answer_claims(store.unit_of_work, claims, ClaimPolicy.CONFIRM)
    assert "again@example.com" not in store.keys
    claims.confirm = confirm  # type: ignore[method-assign]
    assert await answer_claims(store.unit_of_work, claims, ClaimPolicy.CONFIRM) == 1
    assert claims.claims[claim.id].state is ClaimState.CONFIRMED


async def test_the_refusing_and_the_operators_policies(store: InMemoryStore, claims: FakeClaims) -> None:
    await open_test_account(store, PlainHasher(), keys=("kept@example.com", "asked@example.com"))
    refused = claims.add("kept@example.com", ClaimState.OPEN, donor=ISPB, claimer=ELSEWHERE)
    await answer_claims(store.unit_of_work, claims, ClaimPolicy.REFUSE)
    assert claims.claims[refused.id].state is ClaimState.CANCELLED
    assert "kept@example.com" in store.keys

    asked = claims.add("asked@example.com", ClaimState.OPEN, donor=ISPB, claimer=ELSEWHERE)
    assert await answer_claims(store.unit_of_work, claims, ClaimPolicy.OPERATOR) == 1
    assert await answer_claims(store.unit_of_work, claims, ClaimPolicy.OPERATOR) == 0  # it waits
    assert claims.claims[asked.id].state is ClaimState.WAITING_RESOLUTION
    await confirm_claim(store.unit_of_work, claims, asked.id)  # the operator's command
    assert (claims.claims[asked.id].state, "asked@example.com" in store.keys) == (ClaimState.CONFIRMED, False)


async def test_as_claimer_the_key_comes_to_the_account_then_the_claim_completes(
    store: InMemoryStore, claims: FakeClaims
) -> None:
    opened = await open_test_account(store, PlainHasher())
    claim = await claim_key(
        store.unit_of_work,
        claims,
        account_id=opened.account.id,
        key="porta@example.com",
        kind=ClaimKind.PORTABILITY,
    )
    assert await complete_claims(store.unit_of_work, claims, ispb=ISPB) == 0  # not confirmed yet
    claims.claims[claim.id] = replace(claims.claims[claim.id], state=ClaimState.CONFIRMED)

    assert await complete_claims(store.unit_of_work, claims, ispb=ISPB) == 1
    assert claims.claims[claim.id].state is ClaimState.COMPLETED
    async with store.unit_of_work() as tx:
        assert await tx.keys.owner_of(parse_pix_key("porta@example.com")) == opened.account.id


async def test_a_confirmed_claim_naming_no_account_of_ours_is_left(
    store: InMemoryStore, claims: FakeClaims
) -> None:
    await open_test_account(store, PlainHasher())
    stray = claims.add(
        "stray@example.com", ClaimState.CONFIRMED, donor=ELSEWHERE, claimer=ISPB, account="99999999"
    )
    assert await complete_claims(store.unit_of_work, claims, ispb=ISPB) == 0
    assert claims.claims[stray.id].state is ClaimState.CONFIRMED
    assert "stray@example.com" not in store.keys


async def test_what_is_not_claimed(store: InMemoryStore, claims: FakeClaims) -> None:
    opened = await open_test_account(store, PlainHasher(), keys=("mine@example.com",))
    account_id = opened.account.id
    with pytest.raises(DuplicatePixKey):
        await claim_key(
            store.unit_of_work,
            claims,
            account_id=account_id,
            key="mine@example.com",
            kind=ClaimKind.PORTABILITY,
        )
    with pytest.raises(InvalidPixKey):
        await claim_key(
            store.unit_of_work,
            claims,
            account_id=account_id,
            key=str(uuid.uuid4()),
            kind=ClaimKind.PORTABILITY,
        )
    with pytest.raises(AccountNotFound):
        await claim_key(
            store.unit_of_work, claims, account_id=404, key="free@example.com", kind=ClaimKind.PORTABILITY
        )
    with pytest.raises(ValidationError):  # a CPF key is its holder's own document
        await claim_key(
            store.unit_of_work, claims, account_id=account_id, key="11144477735", kind=ClaimKind.PORTABILITY
        )
    assert claims.steps == []
