"""Fixtures of the unit tests: the in-memory fakes of pixcore.testing."""

from __future__ import annotations

import pytest

from pixcore.clock import ManualClock
from pixcore.testing import (
    InMemoryStore,
    PlainHasher,
    RecordingTokenIssuer,
)
from tests.unit.transfer_world import World, make_world


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def store(clock: ManualClock) -> InMemoryStore:
    return InMemoryStore(clock=clock)


@pytest.fixture
def hasher() -> PlainHasher:
    return PlainHasher()


@pytest.fixture
def issuer() -> RecordingTokenIssuer:
    return RecordingTokenIssuer()


@pytest.fixture
async def world(store: InMemoryStore, clock: ManualClock, hasher: PlainHasher) -> World:
    """Accounts, keys, a directory and money for the transfer use-case tests."""
    return await make_world(store, clock, hasher)
