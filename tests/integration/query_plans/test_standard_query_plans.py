"""The statements of the standard API's lists (``GET /cob``, ``GET /pix``) use indexes: no
sequential scan of ``charges`` or ``transactions``.

Populated tables (one account with 10,000 charges and 10,000 received PIX over a year, the
others with 60,000 of each, then ANALYZE: one account is a small part of a shared table) and
the exact statements the service runs (``search_statements``, ``received_statements``),
explained with the parameters known and without (the generic plan of a prepared statement).
The rows have no ledger entries: no balance moves. No row is an ATIVA charge past its expiry:
the expiry sweeps of the tests that share the database never meet them.
"""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg
import pytest

from pixcore.queries.standard import parse_charge_query, parse_received_query
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.charges import search_statements
from pixinfra.persistence.refunds import received_statements
from tests.integration.query_plans.plans import MODES, assert_list_reads_indexes, populated_account, window

ROWS, OTHER_ROWS = 10_000, 60_000

CHARGES = """
INSERT INTO charges (account_id, txid, kind, status, created_at, updated_at, expiration, expires_at,
    amount, modality, pix_key, debtor_name, debtor_document, location, br_code, paid_at)
SELECT $1::bigint, 'plan' || lpad(($1::bigint * 1000000 + g)::text, 28, '0'), 'cob',
       CASE WHEN g % 3 = 1 THEN 'CONCLUIDA' WHEN g % 3 = 2 THEN 'REMOVIDA_PELO_USUARIO_RECEBEDOR'
            WHEN at > now() - interval '29 days' THEN 'ATIVA' ELSE 'REMOVIDA_PELO_PSP' END,
       at, at, 2592000, at + interval '30 days', 100 + g, 0, 'plans@example.com',
       CASE WHEN g % 2 = 0 THEN 'Debtor' END, CASE WHEN g % 2 = 0 THEN '11144477735' END,
       'pix.example.com/qr/v2/x', 'code', CASE WHEN g % 3 = 1 THEN at END
  FROM generate_series(1, $2::int) AS g,
       LATERAL (SELECT now() - make_interval(secs => g * (31536000.0 / $2::int))) AS t(at)
"""
"""Charges without a location (``loc_id`` and its token NULL): the plans of ``GET /cob`` do not read it."""
RECEIVED = """
INSERT INTO transactions (account_id, type, status, amount, end_to_end_id, pix_key,
    counterpart_name, counterpart_document, created_at, updated_at, processed_at)
SELECT $1::bigint, (ARRAY['PAYMENT', 'PAYMENT', 'WITHDRAW'])[1 + g % 3], 'CONFIRMED', 100 + g,
       'E' || lpad(($1::bigint * 1000000 + g)::text, 31, '0'), 'plans@example.com', 'Payer',
       CASE WHEN g % 2 = 0 THEN '11144477735' ELSE '52998224725' END, at, at, at
  FROM generate_series(1, $2::int) AS g,
       LATERAL (SELECT now() - make_interval(secs => g * (31536000.0 / $2::int))) AS t(at)
"""


async def _fill(conn: asyncpg.Connection, account: int, rows: int) -> None:
    await conn.execute(CHARGES, account, rows)
    await conn.execute(RECEIVED, account, rows)


@pytest.fixture(scope="module")
async def account_id(pg_uow: UnitOfWorkFactory, migrated_database: str) -> int:
    tables = ["charges", "transactions", "refunds"]
    return await populated_account(pg_uow, migrated_database, _fill, tables, (ROWS, OTHER_ROWS))


TABLES = frozenset({"charges", "transactions"})

CHARGE_CASES: dict[str, dict[str, str]] = {
    "a week": {},
    "a year, deep page": {"days": "365", "page": "20", "size": "100"},
    "debtor": {"cpf": "11144477735"},
    "status ATIVA": {"status": "ATIVA"},
    "status expired, a year": {"days": "365", "status": "REMOVIDA_PELO_PSP"},
    "status paid, 1000 a page": {"status": "CONCLUIDA", "size": "1000"},
}
RECEIVED_CASES: dict[str, dict[str, str]] = {
    "a week": {},
    "a year, deep page": {"days": "365", "page": "20", "size": "100"},
    "payer": {"cpf": "52998224725"},
    "with txid": {"txid_present": "true"},
    "without refund": {"refund_present": "false"},
    "txid": {"txid": "plan" + "0" * 27 + "1"},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(CHARGE_CASES))
async def test_the_charge_list_uses_indexes(
    account_id: int, conn: asyncpg.Connection, case: str, mode: str
) -> None:
    params = dict(CHARGE_CASES[case])
    query = parse_charge_query(**window(int(params.pop("days", "7"))), **params)
    statements = search_statements(account_id, query, datetime.now(UTC))
    await assert_list_reads_indexes(conn, statements, mode, TABLES)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(RECEIVED_CASES))
async def test_the_received_list_uses_indexes(
    account_id: int, conn: asyncpg.Connection, case: str, mode: str
) -> None:
    params = dict(RECEIVED_CASES[case])
    query = parse_received_query(**window(int(params.pop("days", "7"))), **params)
    statements = received_statements(account_id, query)
    # The received rows here pay no charge: the txid cases plan a search that finds none.
    await assert_list_reads_indexes(conn, statements, mode, TABLES, matches="txid" not in case)
