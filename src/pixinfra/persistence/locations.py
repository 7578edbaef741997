"""PostgreSQL repository of payload locations (the adapter of ``pixcore.charges.ports.LocationRepository``).

A location's charge is the one whose ``loc_id`` it is (``charges_loc_id_key``); the charge's side
is written by ``PostgresCharges.add`` and ``locate``.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from pixcore.charges.locations import Location, LocationType, NewLocation
from pixcore.queries.standard import LocationQuery
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose, paged

__all__ = ["PostgresLocations", "location_search_statements"]

_COLUMNS = "l.id, l.account_id, l.token, l.tipo_cob, l.created_at"
_SERVED = "(SELECT c.id FROM charges c WHERE c.loc_id = l.id)"
_TXID = "(SELECT c.txid FROM charges c WHERE c.loc_id = l.id)"
_TYPES = {t.value: t for t in LocationType}


def _location(row: asyncpg.Record) -> Location:
    return Location(
        id=row["id"],
        account_id=row["account_id"],
        token=row["token"],
        type=_TYPES[row["tipo_cob"]],
        created_at=row["created_at"],
        txid=row["txid"],
        charge_id=row["charge_id"],
    )


def location_search_statements(
    account_id: int, query: LocationQuery
) -> tuple[str, list[Any], str, list[Any]]:
    """``GET /loc``'s statements, each with its arguments: how many match, and the page; a range
    of ``locations_account_created_idx``, then the filters."""
    args: list[Any] = [account_id, query.start, query.end]
    where = ["l.account_id = $1", "l.created_at >= $2", "l.created_at <= $3"]
    if query.type is not None:
        args.append(query.type.value)
        where.append(f"l.tipo_cob = ${len(args)}")
    if query.txid_present is not None:
        # The account's charges only (a range of its index, not every account's) that serve one.
        served = "EXISTS (SELECT 1 FROM charges c WHERE c.account_id = $1 AND c.loc_id = l.id)"
        where.append(served if query.txid_present else f"NOT {served}")
    conditions = " AND ".join(where)
    count = compose("SELECT count(*) FROM locations l WHERE ", conditions)
    limit, page_args = paged(args, query.page.size, query.page.offset)
    page = compose(
        "SELECT ",
        _COLUMNS,
        ", ",
        _TXID,
        " AS txid, ",
        _SERVED,
        " AS charge_id FROM locations l WHERE ",
        conditions,
        " ORDER BY l.created_at, l.id",
        limit,
    )
    return count, args, page, page_args


class PostgresLocations(Repository):
    async def add(self, location: NewLocation) -> Location:
        row = await self._conn.fetchrow(
            compose(
                """
            INSERT INTO locations AS l (account_id, token, tipo_cob, created_at) VALUES ($1, $2, $3, $4)
            RETURNING """,
                _COLUMNS,
                """, NULL::varchar AS txid, NULL::bigint AS charge_id
            """,
            ),
            location.account_id,
            location.token,
            location.type.value,
            location.created_at,
        )
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        return _location(row)

    async def get(self, account_id: int, location_id: int) -> Location | None:
        row = await self._conn.fetchrow(
            compose(
                "SELECT ",
                _COLUMNS,
                ", ",
                _TXID,
                " AS txid, ",
                _SERVED,
                " AS charge_id FROM locations l WHERE l.id = $1 AND l.account_id = $2",
            ),
            location_id,
            account_id,
        )
        return _location(row) if row else None

    async def lock(self, account_id: int, location_id: int) -> Location | None:
        # Two statements: under READ COMMITTED the second reads the charges as they are once
        # the lock is held (a link committed while this waited is seen).
        locked = await self._conn.fetchval(
            "SELECT id FROM locations WHERE id = $1 AND account_id = $2 FOR UPDATE", location_id, account_id
        )
        if locked is None:
            return None
        return await self.get(account_id, location_id)

    async def search(self, account_id: int, query: LocationQuery) -> tuple[int, list[Location]]:
        count, args, page, page_args = location_search_statements(account_id, query)
        total: int = await self._conn.fetchval(count, *args)
        if total <= query.page.offset:
            return total, []
        rows = await self._conn.fetch(page, *page_args)
        return total, [_location(row) for row in rows]
