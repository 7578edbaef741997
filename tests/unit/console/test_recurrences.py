"""The console's list of recurrences: the newest first, however many pages ``GET /rec`` (oldest
first) spreads them over."""

from __future__ import annotations

import pytest

from pixcore.clock import ManualClock
from pixcore.testing import InMemoryStore, PlainHasher
from pixweb.console.recurrences import newest_recurrences
from tests.unit.recurrences.test_usecases import Receiver
from tests.unit.usecase_helpers import HOLDER_CNPJ, OTHER_CNPJ, open_test_account

LIMIT = 3


@pytest.mark.parametrize("count", [0, 1, 3, 4, 5, 6, 7, 10])
async def test_the_newest_come_first_and_no_more_than_the_limit(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher, count: int
) -> None:
    receiver = Receiver(store, clock, await open_test_account(store, hasher, document=HOLDER_CNPJ))
    made = []
    for _ in range(count):
        made.append((await receiver.recurrence()).rec_id)
        clock.advance(1)
    other = Receiver(store, clock, await open_test_account(store, hasher, document=OTHER_CNPJ))
    await other.recurrence()  # another account's is never listed
    total, found = await newest_recurrences(
        store.unit_of_work, clock, account_id=receiver.account_id, limit=LIMIT
    )
    assert total == count
    assert [recurrence.rec_id for recurrence in found] == made[::-1][:LIMIT]
