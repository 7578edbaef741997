"""The contract of ``ConsoleSessionRepository``: the web console's sessions, on the fake and on
PostgreSQL."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest

from pixcore.accounts.sessions import ConsoleSession, new_token, session_id
from tests.contract.conftest import Backend
from tests.contract.rows import T0, add_account


def _session(
    account_id: int, *, at: timedelta = timedelta(0), fingerprint: str | None = None
) -> ConsoleSession:
    return ConsoleSession(
        id=session_id(new_token()),
        account_id=account_id,
        csrf=secrets.token_urlsafe(32),
        created_at=T0 + at,
        last_seen_at=T0 + at,
        fingerprint=fingerprint,
    )


async def test_a_session_reads_back_the_same_and_an_unknown_one_is_none(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        session = _session(account.id, fingerprint="ab" * 32)
        await tx.sessions.add(session)
        assert await tx.sessions.get(session.id) == session
        assert await tx.sessions.get(session_id(new_token())) is None


async def test_a_session_is_stored_once_and_for_an_account_that_exists(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.commit()
    session = _session(account.id)
    async with backend.uow() as tx:
        await tx.sessions.add(session)
        await tx.commit()
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.sessions.add(session)
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.sessions.add(_session(account.id + 1_000_000))


async def test_a_use_moves_last_seen_forward_only(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        session = _session(account.id)
        await tx.sessions.add(session)
        await tx.commit()
    async with backend.uow() as tx:
        await tx.sessions.touch(session.id, T0 + timedelta(minutes=10))
        await tx.sessions.touch(session.id, T0 + timedelta(minutes=5))
        await tx.sessions.touch(session_id(new_token()), T0)  # no such session: nothing
        await tx.commit()
    async with backend.uow() as tx:
        stored = await tx.sessions.get(session.id)
    assert stored is not None
    assert stored.last_seen_at == T0 + timedelta(minutes=10)
    assert stored.created_at == T0


async def test_the_first_end_stands_and_an_unknown_session_ends_nothing(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        session = _session(account.id)
        await tx.sessions.add(session)
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.sessions.end(session.id, T0 + timedelta(minutes=1)) is True
        assert await tx.sessions.end(session.id, T0 + timedelta(minutes=2)) is False
        assert await tx.sessions.end(session_id(new_token()), T0) is False
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.sessions.end(session.id, T0 + timedelta(minutes=3)) is False
        stored = await tx.sessions.get(session.id)
    assert stored is not None
    assert stored.ended_at == T0 + timedelta(minutes=1)


async def test_ending_an_account_ends_its_open_sessions_only(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, other = await add_account(tx), await add_account(tx)
        older, newer, ended = (_session(account.id, at=timedelta(minutes=m)) for m in (1, 2, 0))
        theirs = _session(other.id)
        for session in (older, newer, ended, theirs):
            await tx.sessions.add(session)
        await tx.sessions.end(ended.id, T0)
        await tx.commit()
    async with backend.uow() as tx:
        assert [s.id for s in await tx.sessions.list_open(account.id)] == [newer.id, older.id]
        assert await tx.sessions.end_account(account.id, T0 + timedelta(hours=1)) == 2
        assert await tx.sessions.end_account(account.id, T0 + timedelta(hours=2)) == 0
        assert await tx.sessions.list_open(account.id) == []
        await tx.commit()
    async with backend.uow() as tx:
        stored = [await tx.sessions.get(s.id) for s in (older, newer, ended, theirs)]
        assert await tx.sessions.list_open(other.id) == [theirs]
    assert [s.ended_at if s else "missing" for s in stored] == [
        T0 + timedelta(hours=1),
        T0 + timedelta(hours=1),
        T0,
        None,
    ]


async def test_a_unit_left_without_commit_leaves_no_session_and_no_end(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        kept = _session(account.id)
        await tx.sessions.add(kept)
        await tx.commit()
    dropped = _session(account.id)
    async with backend.uow() as tx:
        await tx.sessions.add(dropped)
        await tx.sessions.end(kept.id, T0)
        await tx.sessions.touch(kept.id, T0 + timedelta(minutes=1))
    async with backend.uow() as tx:
        assert await tx.sessions.get(dropped.id) is None
        assert await tx.sessions.get(kept.id) == kept


async def test_a_use_committed_after_an_end_does_not_reopen_the_session(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        session = _session(account.id)
        await tx.sessions.add(session)
        await tx.commit()
    async with backend.uow() as using:
        assert await using.sessions.get(session.id) == session  # read before the end commits
        async with backend.uow() as ending:
            assert await ending.sessions.end_account(account.id, T0 + timedelta(minutes=1)) == 1
            await ending.commit()
        await using.sessions.touch(session.id, T0 + timedelta(minutes=2))
        await using.commit()
    async with backend.uow() as tx:
        stored = await tx.sessions.get(session.id)
    assert stored is not None
    assert (stored.ended_at, stored.last_seen_at) == (T0 + timedelta(minutes=1), T0 + timedelta(minutes=2))
