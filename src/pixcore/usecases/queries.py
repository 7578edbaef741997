"""Reading transactions: the two lists and the two look-ups (decisions §8).

Each takes the read port (:class:`~pixcore.queries.TransactionQueries`) and,
where a default date depends on it, the service clock. Every call is scoped to
the caller's account: another account's record is "not found", never
"forbidden".
"""

from __future__ import annotations

from pixcore.clock import Clock
from pixcore.errors import TransactionNotFound
from pixcore.queries import (
    PIX_KEY_TOTAL_CAP,
    ListKind,
    TransactionPage,
    TransactionQueries,
    TransactionView,
    classify_identifier,
    parse_list_query,
    parse_query_pix_key,
)

__all__ = ["find_by_pix_key", "get_transaction", "list_by_pix_key", "list_transactions"]


async def list_transactions(
    queries: TransactionQueries,
    clock: Clock,
    *,
    account_id: int,
    page: str | None = None,
    size: str | None = None,
    status: str | None = None,
    type: str | None = None,  # noqa: A002 - the parameter's name on the wire
    start_date: str | None = None,
    end_date: str | None = None,
    external_id: str | None = None,
    end_to_end_id: str | None = None,
) -> TransactionPage:
    """``GET /api/transactions``: size up to 100, the last 31 days by default."""
    query = parse_list_query(
        ListKind.TRANSACTIONS,
        now=clock.now(),
        page=page,
        size=size,
        status=status,
        type=type,
        start_date=start_date,
        end_date=end_date,
        external_id=external_id,
        end_to_end_id=end_to_end_id,
    )
    return await queries.list(account_id, query)


async def list_by_pix_key(
    queries: TransactionQueries,
    clock: Clock,
    *,
    account_id: int,
    pix_key: str,
    page: str | None = None,
    size: str | None = None,
    status: str | None = None,
    type: str | None = None,  # noqa: A002 - the parameter's name on the wire
    start_date: str | None = None,
    end_date: str | None = None,
) -> TransactionPage:
    """``GET /api/pix/transactions/pix-key/{pixKey}``: the records whose key is ``pix_key`` (the
    account's receiving key or the counterpart's), size up to 1000, the last 30 days by default,
    the newest 1000 matches at most."""
    key = parse_query_pix_key(pix_key)
    query = parse_list_query(
        ListKind.PIX_KEY,
        now=clock.now(),
        page=page,
        size=size,
        status=status,
        type=type,
        start_date=start_date,
        end_date=end_date,
        pix_key=key,
    )
    return await queries.list(account_id, query, cap=PIX_KEY_TOTAL_CAP)


async def find_by_pix_key(
    queries: TransactionQueries, *, account_id: int, pix_key: str, identifier: str
) -> TransactionView:
    """``GET /api/pix/transactions/pix-key/{pixKey}/{identifier}``: one record of the account
    under that key, by endToEndId, id or externalId at once."""
    key = parse_query_pix_key(pix_key)
    wanted = classify_identifier(identifier)
    found = None if wanted.impossible else await queries.find(account_id, wanted, pix_key=key.value)
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
