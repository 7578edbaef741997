"""Fixtures of the fault tests: a database of each test's own, a webhook receiver, the load's size.

These tests start the real service as processes and take minutes; they carry the ``faults``
marker, which ``make test`` deselects and ``.ci/run`` (or ``make faults``) selects.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest

from tests.integration.receiver import Receiver, running_receiver
from tests.support import scratch_database


@pytest.fixture
def fault_ops() -> int:
    """Operations per test: ``PIX_FAULT_OPS`` (default 1000, the issue's figure)."""
    return int(os.environ.get("PIX_FAULT_OPS", "1000"))


@pytest.fixture
async def own_database(database_server: str) -> AsyncIterator[str]:
    """An empty database of the test's own on the run's server, dropped afterwards."""
    async with scratch_database(database_server, "pixfault") as url:
        yield url


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running
