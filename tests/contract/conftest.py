"""The contract suites: every port's tests written once, run on the in-memory fake and on the
PostgreSQL adapter.

A test takes ``backend`` and works through ``backend.uow`` (a ``UnitOfWorkFactory``) only, so it
sees what the ``Protocol`` promises and nothing of either implementation. The ``postgres`` half
uses the run's database (``database``, tests/conftest.py) and carries the ``postgres`` marker
(``-m "not postgres"`` runs the fakes alone, without a database).

The PostgreSQL database is shared by the whole run: a test never assumes it is empty, makes its
own rows (random documents, keys, ids) and, unless committing is what it tests, rolls back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import asyncpg
import pytest

from pixcore.clock import ManualClock
from pixcore.ports import UnitOfWorkFactory
from pixcore.testing import InMemoryStore, IntegrityError


@dataclass(frozen=True)
class Backend:
    """One implementation of the ports, as a contract test sees it."""

    name: str
    uow: UnitOfWorkFactory
    refused: tuple[type[Exception], ...]
    """What a write the database refuses raises when no domain error names the rule (a row
    pointing at a missing account, a second row under a unique index)."""


def _memory() -> Backend:
    return Backend("memory", InMemoryStore(clock=ManualClock()).unit_of_work, (IntegrityError,))


def _postgres(request: pytest.FixtureRequest) -> Backend:
    request.getfixturevalue("database")  # the run's database, migrated and open
    from tests.support import pg_uow

    return Backend("postgres", pg_uow, (asyncpg.IntegrityConstraintViolationError,))


_BACKENDS: dict[str, Callable[[pytest.FixtureRequest], Backend]] = {
    "memory": lambda _: _memory(),
    "postgres": _postgres,
}


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> Backend:
    """The implementation under test: a fresh in-memory store, or the run's PostgreSQL database."""
    name: str = request.param
    return _BACKENDS[name](request)
