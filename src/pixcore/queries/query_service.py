"""Reading transactions: the two lists and the two look-ups.

Each takes the read port (:class:`~pixcore.queries.rules.TransactionQueries`). The lists take
their query parameters parsed once, at the edge, into a :class:`~pixcore.queries.rules.ListQuery`
(:func:`~pixcore.queries.rules.parse_list_query`, whose default dates depend on the service clock)
and the pix-key list its key as a :class:`~pixcore.keys.PixKey`. Every call is scoped to
the caller's account: another account's record is "not found", never "forbidden".
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from pixcore.errors import TransactionNotFound
from pixcore.keys import PixKey
from pixcore.queries.rules import (
    FLOW_DAYS,
    PIX_KEY_TOTAL_CAP,
    DayFlow,
    ListKind,
    ListQuery,
    TransactionPage,
    TransactionQueries,
    TransactionView,
    classify_identifier,
    parse_list_query,
)

__all__ = [
    "daily_flows",
    "find_by_pix_key",
    "get_transaction",
    "latest_transactions",
    "list_by_pix_key",
    "list_transactions",
]


async def list_transactions(
    queries: TransactionQueries, *, account_id: int, query: ListQuery
) -> TransactionPage:
    """``GET /api/transactions``: ``query`` parsed at the edge (``parse_list_query`` with
    ``ListKind.TRANSACTIONS``: size up to 100, the last 31 days by default)."""
    return await queries.list(account_id, query)


async def latest_transactions(
    queries: TransactionQueries, *, account_id: int, now: datetime, count: int = 10
) -> list[TransactionView]:
    """The account's newest ``count`` records of ``GET /api/transactions``'s default window (the
    last 31 days by ``now``), newest first: its first page, without counting every match (the
    total is capped at ``count``), which the console's overview does not show."""
    query = parse_list_query(ListKind.TRANSACTIONS, now=now, size=str(count))
    return list((await queries.list(account_id, query, cap=count)).items)


async def list_by_pix_key(
    queries: TransactionQueries, *, account_id: int, pix_key: PixKey, query: ListQuery
) -> TransactionPage:
    """``GET /api/pix/transactions/pix-key/{pixKey}``: the records whose key is ``pix_key`` (the
    account's receiving key or the counterpart's) among those ``query`` selects (parsed at the edge
    with ``ListKind.PIX_KEY``: size up to 1000, the last 30 days by default), the newest 1000
    matches at most."""
    keyed = replace(query, filter=replace(query.filter, pix_key=pix_key.value))
    return await queries.list(account_id, keyed, cap=PIX_KEY_TOTAL_CAP)


async def find_by_pix_key(
    queries: TransactionQueries, *, account_id: int, pix_key: PixKey, identifier: str
) -> TransactionView:
    """``GET /api/pix/transactions/pix-key/{pixKey}/{identifier}``: one record of the account
    under that key, by endToEndId, id or externalId at once."""
    wanted = classify_identifier(identifier)
    found = None if wanted.impossible else await queries.find(account_id, wanted, pix_key=pix_key.value)
    if found is None:
        raise TransactionNotFound
    return found


async def get_transaction(
    queries: TransactionQueries, *, account_id: int, identifier: str
) -> TransactionView:
    """``GET /api/pix/transaction/{id}``: one record of the account by numeric id or externalId."""
    wanted = classify_identifier(identifier, end_to_end=False)
    found = None if wanted.impossible else await queries.find(account_id, wanted)
    if found is None:
        raise TransactionNotFound
    return found


async def daily_flows(
    queries: TransactionQueries, *, account_id: int, now: datetime, days: int = FLOW_DAYS
) -> list[DayFlow]:
    """Money in and out of the account for each of the last ``days`` days, today (``now``, the
    service clock, in UTC) included: oldest first, every day present (zero when nothing settled)."""
    last = now.astimezone(UTC).date()
    first = last - timedelta(days=days - 1)
    found = {flow.day: flow for flow in await queries.daily_flows(account_id, first, last)}
    every = (first + timedelta(days=n) for n in range(days))
    return [found.get(day) or DayFlow(day, 0, 0) for day in every]
