"""``GET /loc`` reads an index range, whatever its filters: ``locations_account_created_idx`` for
the account's window, the unique index of ``charges.loc_id`` for the charge a location serves;
never a scan of every location or every charge (another account's many included)."""

from __future__ import annotations

import asyncpg
import pytest

from pixcore.queries.standard import parse_location_query
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.locations import location_search_statements
from tests.integration.query_plans.plans import MODES, assert_list_reads_indexes, populated_account, window

ROWS, OTHER_ROWS = 10_000, 60_000

LOCATIONS = """
INSERT INTO locations (account_id, token, tipo_cob, created_at)
SELECT $1::bigint, md5('loc-plan-' || $1::text || '-' || g), CASE WHEN g % 4 = 0 THEN 'cobv' ELSE 'cob' END,
       now() - make_interval(secs => g * (31536000.0 / $2::int))
  FROM generate_series(1, $2::int) AS g
"""
SERVED = """
INSERT INTO charges (account_id, txid, kind, status, created_at, updated_at, expiration, expires_at, amount,
    modality, pix_key, location_id, location, br_code, loc_id)
SELECT l.account_id, 'locplan' || lpad(l.id::text, 25, '0'), 'cob', 'ATIVA', l.created_at, l.created_at, 60,
       l.created_at + interval '1 minute', 100, 0, 'plans@example.com', l.token, 'pix.example.com/qr/v2/x',
       'code', l.id
  FROM locations l
 WHERE l.account_id = $1 AND l.tipo_cob = 'cob' AND l.id % 2 = 0
"""
"""Half the ``cob`` locations of an account serve a charge."""


async def _fill(conn: asyncpg.Connection, account: int, rows: int) -> None:
    await conn.execute(LOCATIONS, account, rows)
    await conn.execute(SERVED, account)


@pytest.fixture(scope="module")
async def account_id(pg_uow: UnitOfWorkFactory, migrated_database: str) -> int:
    return await populated_account(
        pg_uow, migrated_database, _fill, ["locations", "charges"], (ROWS, OTHER_ROWS)
    )


CASES: dict[str, dict[str, str]] = {
    "a week": {},
    "a year, deep page": {"days": "365", "page": "20", "size": "100"},
    "serving a charge": {"txid_present": "true"},
    "serving none, a year": {"days": "365", "txid_present": "false"},
    "cobv, 1000 a page": {"location_type": "cobv", "size": "1000"},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(CASES))
async def test_the_location_list_uses_indexes(
    account_id: int, conn: asyncpg.Connection, case: str, mode: str
) -> None:
    params = dict(CASES[case])
    query = parse_location_query(**window(int(params.pop("days", "7"))), **params)
    statements = location_search_statements(account_id, query)
    await assert_list_reads_indexes(conn, statements, mode, frozenset({"locations", "charges"}))
