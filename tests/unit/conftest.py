"""Fixtures of the unit tests: the in-memory fakes of pixcore.testing."""

from __future__ import annotations

import pytest

from pixcore.clock import ManualClock
from pixcore.testing import (
    InMemoryStore,
    PlainHasher,
    RecordingTokenIssuer,
)


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
