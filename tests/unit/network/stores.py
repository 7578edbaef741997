"""A DICT store (entries and claims) kept in memory, for the rules' tests."""

from __future__ import annotations

import uuid

from pixnet.directory.claims import ClaimChanged
from pixnet.directory.entries import KeyTaken
from pixwire.dict.model import Claim, ClaimQuery, ClaimStatus, Entry


class MemoryStore:
    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.racer: Entry | None = None  # added by "someone else" just before the next add
        self.by_id: dict[uuid.UUID, Claim] = {}

    async def by_key(self, key: str) -> Entry | None:
        return self.entries.get(key)

    async def by_request(self, participant: str, request_id: uuid.UUID) -> Entry | None:
        return next(
            (
                e
                for e in self.entries.values()
                if e.account.participant == participant and e.request_id == request_id
            ),
            None,
        )

    async def count_for_account(self, participant: str, branch: str | None, number: str) -> int:
        return sum(
            1
            for e in self.entries.values()
            if (e.account.participant, e.account.branch, e.account.number) == (participant, branch, number)
        )

    async def add(self, entry: Entry) -> None:
        if self.racer is not None:
            self.entries[self.racer.key], self.racer = self.racer, None
        if entry.key in self.entries:
            raise KeyTaken
        self.entries[entry.key] = entry

    async def remove(self, key: str) -> None:
        del self.entries[key]

    async def locked_by_claim(self, key: str) -> bool:
        return await self.open_claim(key) is not None

    async def claim(self, claim_id: uuid.UUID) -> Claim | None:
        return self.by_id.get(claim_id)

    async def open_claim(self, key: str) -> Claim | None:
        return next((c for c in self.by_id.values() if c.asked.key == key and not c.status.ended), None)

    async def add_claim(self, claim: Claim) -> None:
        if await self.open_claim(claim.asked.key) is not None:
            raise ClaimChanged
        self.by_id[claim.id] = claim

    async def change_claim(
        self, claim: Claim, was: ClaimStatus, *, remove_entry: bool = False, add_entry: Entry | None = None
    ) -> None:
        if self.by_id[claim.id].status is not was:
            raise ClaimChanged
        if add_entry is not None and add_entry.key in self.entries:
            raise KeyTaken
        self.by_id[claim.id] = claim
        if remove_entry:
            self.entries.pop(claim.asked.key, None)
        if add_entry is not None:
            self.entries[add_entry.key] = add_entry

    async def claims(self, query: ClaimQuery) -> list[Claim]:
        def role(c: Claim) -> bool:
            donor, claimer = c.donor == query.participant, c.claimer_participant == query.participant
            if query.is_donor == query.is_claimer:
                return donor or claimer
            return donor if (query.is_donor or query.is_claimer is False) else claimer

        found = [
            c
            for c in self.by_id.values()
            if role(c)
            and (not query.statuses or c.status in query.statuses)
            and (query.type is None or c.asked.type is query.type)
        ]
        return sorted(found, key=lambda c: (c.last_modified, c.id))[: query.limit + 1]
