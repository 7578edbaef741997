"""The contract of ``TransactionQueries.daily_flows`` (the console overview's chart), on the
in-memory fake and on the PostgreSQL adapter: which records count, on which day, with what sign;
and of the overview's last records (``latest_transactions``, a list whose total is capped).

The lists and look-ups of the same port have their own suites (tests/unit/queries/test_queries.py,
the plans in tests/integration/query_plans/test_query_plans.py, the API in
tests/e2e/queries/test_transactions_api.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import pytest

from pixcore.clock import ManualClock
from pixcore.queries.query_service import daily_flows, latest_transactions, list_transactions
from pixcore.queries.rules import DayFlow, ListKind, TransactionQueries, parse_list_query
from pixcore.queries.search import parse_search, search_records
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import InMemoryStore, InMemoryTransactionQueries
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.queries import PostgresTransactionQueries
from tests.contract.rows import T0, add_account, receipt, withdrawal

DAY = T0.date()  # 2001-02-03, a day long past: only the test's own rows are on it


@dataclass(frozen=True)
class Side:
    uow: UnitOfWorkFactory
    queries: TransactionQueries


def _memory(_: pytest.FixtureRequest) -> Side:
    store = InMemoryStore(clock=ManualClock())
    return Side(store.unit_of_work, InMemoryTransactionQueries(store))


def _postgres(request: pytest.FixtureRequest) -> Side:
    return Side(
        request.getfixturevalue("pg_uow"), PostgresTransactionQueries(request.getfixturevalue("database"))
    )


SIDES: dict[str, Callable[[pytest.FixtureRequest], Side]] = {"memory": _memory, "postgres": _postgres}


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)])
def side(request: pytest.FixtureRequest) -> Side:
    return SIDES[request.param](request)


def _at(day: date, hour: int = 12) -> datetime:
    return T0.replace(year=day.year, month=day.month, day=day.day, hour=hour)


def _settled(record: NewTransaction) -> NewTransaction:
    return dataclasses.replace(record, status=TransactionStatus.CONFIRMED)


async def _seed(side: Side, records: list[NewTransaction]) -> None:
    async with side.uow() as tx:
        for record in records:
            await tx.transactions.add(record)
        await tx.commit()


async def test_settled_money_in_and_out_per_utc_day(side: Side) -> None:
    async with side.uow() as tx:
        account = (await add_account(tx)).id
        other = (await add_account(tx)).id
        await tx.commit()
    brasilia = timezone(timedelta(hours=-3))
    late_evening = datetime(DAY.year, DAY.month, DAY.day, 22, 30, tzinfo=brasilia)  # next day in UTC
    await _seed(
        side,
        [
            receipt(account, 1_000, at=_at(DAY, 1)),
            receipt(account, 250, at=_at(DAY, 23)),
            _settled(withdrawal(account, 400, at=_at(DAY))),
            withdrawal(account, 9_000, at=_at(DAY)),  # pending: not money moved yet
            dataclasses.replace(receipt(account, 7_000, at=_at(DAY)), status=TransactionStatus.ERROR),
            dataclasses.replace(
                receipt(account, 30, at=_at(DAY + timedelta(days=2))), type=TransactionType.REFUND_OUT
            ),
            _settled(
                dataclasses.replace(
                    withdrawal(account, 60, at=_at(DAY + timedelta(days=2))), type=TransactionType.REFUND_IN
                )
            ),
            receipt(account, 5, at=late_evening),
            receipt(account, 111, at=_at(DAY - timedelta(days=1), 23)),  # before the first day
            receipt(account, 222, at=_at(DAY + timedelta(days=3), 0)),  # after the last day
            receipt(other, 50_000, at=_at(DAY)),  # another account's
        ],
    )
    flows = await side.queries.daily_flows(account, DAY, DAY + timedelta(days=2))
    assert flows == [
        DayFlow(DAY, 1_250, 400),
        DayFlow(DAY + timedelta(days=1), 5, 0),
        DayFlow(DAY + timedelta(days=2), 30, 60),
    ]
    assert await side.queries.daily_flows(other, DAY + timedelta(days=1), DAY + timedelta(days=9)) == []


async def test_a_day_holds_its_first_and_last_microsecond(side: Side) -> None:
    async with side.uow() as tx:
        account = (await add_account(tx)).id
        await tx.commit()
    midnight = _at(DAY, 0).replace(minute=0, second=0, microsecond=0)
    await _seed(
        side,
        [
            receipt(account, 1, at=midnight),
            receipt(account, 2, at=midnight + timedelta(days=1) - timedelta(microseconds=1)),
            receipt(account, 4, at=midnight + timedelta(days=1)),
            receipt(account, 8, at=midnight - timedelta(microseconds=1)),
        ],
    )
    assert await side.queries.daily_flows(account, DAY, DAY) == [DayFlow(DAY, 3, 0)]


async def test_the_use_case_gives_every_day_of_the_last_thirty(side: Side) -> None:
    async with side.uow() as tx:
        account = (await add_account(tx)).id
        await tx.commit()
    now = _at(DAY, 10)
    await _seed(
        side,
        [
            receipt(account, 700, at=now - timedelta(hours=1)),
            receipt(account, 300, at=now - timedelta(days=29)),  # the first day shown
            receipt(account, 900, at=now - timedelta(days=30)),  # a day too old
        ],
    )
    flows = await daily_flows(side.queries, account_id=account, now=now)
    assert [flow.day for flow in flows] == [DAY - timedelta(days=29 - n) for n in range(30)]
    assert flows[0] == DayFlow(DAY - timedelta(days=29), 300, 0)
    assert flows[-1] == DayFlow(DAY, 700, 0)
    assert sum(flow.incoming + flow.outgoing for flow in flows) == 1_000


async def test_the_latest_records_are_the_first_page_of_the_list(side: Side) -> None:
    """``latest_transactions`` (the overview's last records): the first page of ``GET
    /api/transactions``'s default window, whatever the count it does not make."""
    async with side.uow() as tx:
        account = (await add_account(tx)).id
        other = (await add_account(tx)).id
        await tx.commit()
    now = _at(DAY, 10)
    await _seed(
        side,
        [
            *(receipt(account, 100 + n, at=now - timedelta(hours=n)) for n in range(13)),
            receipt(account, 999, at=now - timedelta(days=40)),  # outside the default window
            receipt(other, 50_000, at=now),  # another account's
        ],
    )
    latest = await latest_transactions(side.queries, account_id=account, now=now, count=10)
    page = await list_transactions(
        side.queries,
        account_id=account,
        query=parse_list_query(ListKind.TRANSACTIONS, now=now, size="10"),
    )
    assert latest == page.items
    assert [view.amount for view in latest] == [100 + n for n in range(10)]
    assert await latest_transactions(side.queries, account_id=other, now=now, count=10) != []
    assert await latest_transactions(side.queries, account_id=account, now=now, count=3) == page.items[:3]


async def test_a_search_finds_the_accounts_records_by_amount_or_end_to_end_id_at_any_date(side: Side) -> None:
    """The console's search: the original amount or the end-to-end id, not bounded by dates (a
    record of 200 days ago is found), never another account's."""
    async with side.uow() as tx:
        account = (await add_account(tx)).id
        other = (await add_account(tx)).id
        await tx.commit()
    now = _at(DAY, 10)
    old, new, small = (
        receipt(account, 4_290, at=now - timedelta(days=200)),
        receipt(account, 4_290, at=now - timedelta(hours=1)),
        receipt(account, 1_000, at=now),
    )
    await _seed(side, [old, new, small, receipt(other, 4_290, at=now)])
    by_amount = await search_records(
        side.queries, side.uow, account_id=account, terms=parse_search("42,90"), now=now
    )
    assert [(view.amount, view.created_at) for view in by_amount.transactions] == [
        (4_290, new.created_at),
        (4_290, old.created_at),
    ]
    assert by_amount.charges == []
    e2e = small.end_to_end_id
    assert e2e is not None
    by_e2e = await search_records(
        side.queries, side.uow, account_id=account, terms=parse_search(e2e), now=now
    )
    assert [view.end_to_end_id for view in by_e2e.transactions] == [e2e]
    theirs = await search_records(side.queries, side.uow, account_id=other, terms=parse_search(e2e), now=now)
    assert theirs.transactions == []
