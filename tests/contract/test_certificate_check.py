"""The contract of ``CertificateCheck`` (whether a transfer group's callers' certificates are still
in force), on the fake ``InMemoryCertificateCheck`` and on the PostgreSQL check
(``GroupCertificateCheck``), the latter both ways it reads: with the shared sandbox clock in the same
statement, and without (the wall clock).

The certificates are linked and revoked through the unit of work, as the API and ``pixweb admin
cert revoke`` do; the check sees what has committed, nothing of a unit still open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from pixcore.accounts.ports import CertificateCheck, PendingCredential
from pixcore.accounts.rules import CertificateInfo
from pixcore.clock import ManualClock, SystemClock
from pixcore.testing import InMemoryCertificateCheck, InMemoryStore
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.revocation import GroupCertificateCheck, PostgresCertificateStatus
from pixinfra.postgres.clock import ClockKeeper
from pixinfra.postgres.pool import Database
from tests.contract.rows import FAR, T0, add_account, certificate

EXPIRES = int(FAR.timestamp())


@dataclass(frozen=True)
class Side:
    uow: UnitOfWorkFactory
    check: CertificateCheck


def _memory(_: pytest.FixtureRequest) -> Side:
    store = InMemoryStore(clock=ManualClock())
    return Side(store.unit_of_work, InMemoryCertificateCheck(store))


def _postgres(request: pytest.FixtureRequest, *, shared_clock: bool) -> Side:
    database: Database = request.getfixturevalue("database")
    keeper = ClockKeeper(SystemClock(), shared=shared_clock, database=database)
    assert keeper.reads_database is shared_clock
    check = GroupCertificateCheck(PostgresCertificateStatus(database), keeper)
    return Side(request.getfixturevalue("pg_uow"), check)


SIDES: dict[str, Callable[[pytest.FixtureRequest], Side]] = {
    "memory": _memory,
    "postgres": lambda request: _postgres(request, shared_clock=True),
    "postgres-wall-clock": lambda request: _postgres(request, shared_clock=False),
}


@pytest.fixture(
    params=[
        "memory",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("postgres-wall-clock", marks=pytest.mark.postgres),
    ]
)
def side(request: pytest.FixtureRequest) -> Side:
    return SIDES[request.param](request)


def _caller(account_id: int, info: CertificateInfo, expires_at: int = EXPIRES) -> PendingCredential:
    return PendingCredential(account_id=account_id, fingerprint=info.fingerprint, expires_at=expires_at)


async def _linked(side: Side, count: int = 1) -> tuple[int, list[CertificateInfo]]:
    """A new account with ``count`` certificates linked to it, committed."""
    infos = [certificate() for _ in range(count)]
    async with side.uow() as tx:
        account = await add_account(tx)
        for info in infos:
            await tx.certificates.link(account.id, info)
        await tx.commit()
    return account.id, infos


async def _revoke(side: Side, info: CertificateInfo) -> None:
    async with side.uow() as tx:
        await tx.certificates.revoke(info.fingerprint, T0)
        await tx.commit()


async def test_a_linked_certificate_is_in_force_for_its_own_account_only(side: Side) -> None:
    account, (info,) = await _linked(side)
    other, _ = await _linked(side)
    mine, theirs = _caller(account, info), _caller(other, info)
    assert await side.check.in_force_many([mine, theirs]) == {mine}


async def test_an_unknown_certificate_is_not_in_force(side: Side) -> None:
    account, _ = await _linked(side)
    assert await side.check.in_force_many([_caller(account, certificate())]) == set()


async def test_nothing_asked_is_nothing_in_force(side: Side) -> None:
    assert await side.check.in_force_many([]) == set()


async def test_a_revoked_certificate_is_out_of_force_once_the_revocation_commits(side: Side) -> None:
    account, (info,) = await _linked(side)
    caller = _caller(account, info)
    async with side.uow() as tx:
        await tx.certificates.revoke(info.fingerprint, T0)
        assert await side.check.in_force_many([caller]) == {caller}  # not committed yet
        await tx.commit()
    assert await side.check.in_force_many([caller]) == set()


async def test_a_revocation_rolled_back_leaves_the_certificate_in_force(side: Side) -> None:
    account, (info,) = await _linked(side)
    caller = _caller(account, info)
    async with side.uow() as tx:
        await tx.certificates.revoke(info.fingerprint, T0)
        await tx.rollback()
    assert await side.check.in_force_many([caller]) == {caller}


async def test_a_link_is_in_force_only_once_its_unit_of_work_commits(side: Side) -> None:
    committed, rolled_back = certificate(), certificate()
    async with side.uow() as tx:
        account = (await add_account(tx)).id
        await tx.commit()
    async with side.uow() as tx:
        await tx.certificates.link(account, rolled_back)
        assert await side.check.in_force_many([_caller(account, rolled_back)]) == set()
    async with side.uow() as tx:
        await tx.certificates.link(account, committed)
        assert await side.check.in_force_many([_caller(account, committed)]) == set()
        await tx.commit()
    callers = [_caller(account, committed), _caller(account, rolled_back)]
    assert await side.check.in_force_many(callers) == {callers[0]}


async def test_each_certificate_of_an_account_is_judged_alone(side: Side) -> None:
    account, (kept, revoked) = await _linked(side, 2)
    await _revoke(side, revoked)
    in_force = _caller(account, kept)
    assert await side.check.in_force_many([_caller(account, revoked), in_force]) == {in_force}


async def test_the_answer_is_the_callers_asked_whatever_their_tokens_expiry(side: Side) -> None:
    """Every caller asked with a certificate in force comes back as asked (several of one
    certificate, a token long expired, one asked twice): the expiry is the caller's to judge."""
    account, (info,) = await _linked(side)
    other, (revoked,) = await _linked(side)
    await _revoke(side, revoked)
    fresh, expired = _caller(account, info), _caller(account, info, 1)
    later = _caller(account, info, EXPIRES + 60)
    asked = [fresh, expired, _caller(other, revoked), later, fresh]
    assert await side.check.in_force_many(asked) == {fresh, expired, later}


async def test_callers_of_many_accounts_are_answered_at_once(side: Side) -> None:
    linked = [await _linked(side) for _ in range(5)]
    await _revoke(side, linked[2][1][0])
    callers = [_caller(account, infos[0]) for account, infos in linked]
    swapped = _caller(linked[0][0], linked[1][1][0])  # one account's id with another's certificate
    assert await side.check.in_force_many([*callers, swapped]) == {
        callers[0],
        callers[1],
        callers[3],
        callers[4],
    }
