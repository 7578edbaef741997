"""A DICT entry store kept in memory, for the rules' tests."""

from __future__ import annotations

import uuid

from pixnet.directory.entries import KeyTaken
from pixwire.dict.model import Entry


class MemoryStore:
    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.racer: Entry | None = None  # added by "someone else" just before the next add

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
