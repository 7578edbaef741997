"""A database that cannot be reached: which errors say so, the 503 they become, the loops' pacing."""

from __future__ import annotations

import logging
from pathlib import Path

import asyncpg
import pytest
from asyncpg import exceptions as pg
from litestar import Litestar, get
from litestar.testing import TestClient

from pixinfra.postgres.availability import FailureStreak, database_unavailable
from pixweb.errors import exception_handlers


async def asyncpg_oserror(tmp_path: Path) -> OSError:
    """The error asyncpg raises for a Unix socket nobody listens on (no server needed)."""
    try:
        await asyncpg.connect(host=str(tmp_path), port=5432, user="nobody", database="none", timeout=5)
    except OSError as exc:
        return exc
    raise AssertionError("connected to nothing")


@pytest.mark.parametrize(
    "error",
    [
        pg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        pg.ConnectionFailureError("connection failure"),
        pg.CannotConnectNowError("the database system is starting up"),
        pg.AdminShutdownError("terminating connection due to administrator command"),
        pg.TooManyConnectionsError("sorry, too many clients already"),
        pg.InternalClientError("cannot switch to state 15; another operation (2) is in progress"),
        asyncpg.InterfaceError("cannot call Transaction.rollback(): the underlying connection is closed"),
        asyncpg.InterfaceError("pool is closed"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_errors_of_an_unreachable_database(error: Exception) -> None:
    assert database_unavailable(error)


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.InterfaceError("cannot perform operation: another operation is in progress"),
        pg.UniqueViolationError("duplicate key value violates unique constraint"),
        pg.SerializationError("could not serialize access"),
        OSError("a file that could not be read"),
        ConnectionRefusedError("a webhook receiver refused"),
        TimeoutError(),
        RuntimeError("a bug"),
    ],
    ids=lambda error: f"{type(error).__name__}: {error}",
)
def test_other_errors_are_not_an_outage(error: Exception) -> None:
    assert not database_unavailable(error)


async def test_an_oserror_counts_only_when_asyncpg_raised_it(tmp_path: Path) -> None:
    raised_by_asyncpg = await asyncpg_oserror(tmp_path)
    assert database_unavailable(raised_by_asyncpg)
    assert not database_unavailable(OSError(*raised_by_asyncpg.args))


def test_an_error_raised_from_or_during_an_outage_is_one() -> None:
    cause = pg.ConnectionDoesNotExistError("connection was closed")

    def roll_back() -> None:
        try:
            raise cause
        except pg.ConnectionDoesNotExistError:
            raise RuntimeError("rollback failed") from None

    with pytest.raises(RuntimeError) as during:
        roll_back()
    assert during.value.__context__ is cause
    assert database_unavailable(during.value)
    wrapped = ValueError("while storing")
    wrapped.__cause__ = cause
    assert database_unavailable(wrapped)
    assert database_unavailable(ExceptionGroup("tasks", [ValueError("x"), cause]))
    assert not database_unavailable(ExceptionGroup("tasks", [ValueError("x")]))


# ------------------------------------------------------------------------------------ the answer


@get("/down", sync_to_thread=False)
def down() -> None:
    raise pg.CannotConnectNowError("the database system is shutting down")


@get("/bug", sync_to_thread=False)
def bug() -> None:
    raise RuntimeError("not the database")


def test_an_unreachable_database_is_a_503_with_retry_after_and_the_error_shape() -> None:
    app = Litestar([down, bug], exception_handlers=exception_handlers)
    with TestClient(app) as client:
        response = client.get("/down")
        assert response.status_code == 503
        assert response.json() == {
            "statusCode": 503,
            "message": "The database is unavailable. Retry shortly.",
            "error": "Service Unavailable",
        }
        assert response.headers["retry-after"] == "2"
        other = client.get("/bug")
        assert other.status_code == 500
        assert "retry-after" not in other.headers


# ------------------------------------------------------------------------------------ the loops


def test_a_failure_streak_backs_off_and_logs_an_outage_twice(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test.streak")
    streak = FailureStreak(log, "settlement", most=2.0)
    assert streak.pause(0.1) == 0.1
    with caplog.at_level(logging.WARNING, logger="test.streak"):
        pauses = []
        for _ in range(6):
            streak.failed(pg.CannotConnectNowError("starting up"))
            pauses.append(streak.pause(0.1))
        streak.succeeded()
    assert pauses == pytest.approx([0.2, 0.4, 0.8, 1.6, 2.0, 2.0])
    assert streak.pause(0.1) == 0.1
    assert [r.getMessage() for r in caplog.records] == [
        "settlement paused: the database is unavailable (CannotConnectNowError('starting up')); retrying",
        "settlement resumed after 6 failed rounds",
    ]


def test_a_failure_streak_logs_every_unexpected_error_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    streak = FailureStreak(logging.getLogger("test.streak"), "notifier")
    with caplog.at_level(logging.ERROR, logger="test.streak"):
        for _ in range(2):
            streak.failed(RuntimeError("a bug"))
    assert [r.getMessage() for r in caplog.records] == ["notifier round failed; retrying"] * 2
    assert all(r.exc_info for r in caplog.records)
