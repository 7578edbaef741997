"""The statements of the transaction queries use indexes: no sequential scan of ``transactions``.

A populated table (one account with 40,000 records over a year, another with
10,000, then ANALYZE), and the exact statements the service runs
(``list_statement``, ``find_statement``), explained as PostgreSQL would plan
them: with the parameters known (a custom plan) and without (the generic plan
that a prepared statement switches to after a few runs). The rows have no
ledger entries: no balance moves.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from pixcore.accounts.accounts_service import open_account
from pixcore.queries.rules import (
    PIX_KEY_TOTAL_CAP,
    ListKind,
    TransactionView,
    classify_identifier,
    parse_list_query,
)
from pixcore.testing import PlainHasher
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.persistence.charges import RECENT
from pixinfra.persistence.queries import COLUMNS, daily_flows_statement, find_statement, list_statement
from tests.integration.query_plans.plans import MODES, index_of_table, plan_nodes, scans
from tests.support import random_cpf

ROWS, OTHER_ROWS = 40_000, 10_000
KEY = "plans-{}@example.com"

POPULATE = """
INSERT INTO transactions (account_id, type, status, amount, external_id, end_to_end_id, pix_key,
    counterpart_document, created_at, updated_at)
SELECT $1::bigint,
       (ARRAY['PAYMENT', 'WITHDRAW', 'REFUND_IN', 'REFUND_OUT'])[1 + g % 4],
       (ARRAY['PENDING', 'CONFIRMED', 'ERROR'])[1 + g % 3],
       100 + g, 'ext-' || $1::bigint || '-' || g, 'E' || lpad(($1::bigint * 1000000 + g)::text, 31, '0'),
       CASE WHEN g % 2 = 0 THEN $2::text ELSE 'dest' || (g % 500) || '@example.com' END,
       '11144477735', at, at
  FROM generate_series(1, $3::int) AS g,
       LATERAL (SELECT now() - make_interval(secs => g * (31536000.0 / $3::int))) AS t(at)
"""


@dataclasses.dataclass(frozen=True)
class Populated:
    account_id: int
    key: str
    some_id: int
    some_e2e: str
    some_external: str


@pytest.fixture(scope="module")
async def populated(pg_uow: UnitOfWorkFactory, migrated_database: str) -> Populated:
    accounts = []
    for _ in range(2):
        opened = await open_account(
            pg_uow,
            PlainHasher(),
            ispb="99999999",
            name="Plans",
            document=random_cpf(),
            city="RECIFE",
        )
        accounts.append(opened.account.id)
    conn = await asyncpg.connect(migrated_database)
    try:
        for account_id, rows in zip(accounts, (ROWS, OTHER_ROWS), strict=True):
            await conn.execute(POPULATE, account_id, KEY.format(account_id), rows)
        await conn.execute("ANALYZE transactions")
        row = await conn.fetchrow(
            "SELECT id, end_to_end_id, external_id FROM transactions WHERE account_id = $1"
            " ORDER BY created_at DESC LIMIT 1 OFFSET 100",
            accounts[0],
        )
    finally:
        await conn.close()
    assert row is not None
    return Populated(
        accounts[0], KEY.format(accounts[0]), row["id"], row["end_to_end_id"], row["external_id"]
    )


LISTS: dict[str, tuple[ListKind, dict[str, str]]] = {
    "list, first page": (ListKind.TRANSACTIONS, {}),
    "list, deep page": (ListKind.TRANSACTIONS, {"page": "150", "size": "20"}),
    "list, size 100": (ListKind.TRANSACTIONS, {"size": "100"}),
    "list, status": (ListKind.TRANSACTIONS, {"status": "ERROR"}),
    "list, type": (ListKind.TRANSACTIONS, {"type": "REFUND_IN"}),
    "list, status and type": (ListKind.TRANSACTIONS, {"status": "PENDING", "type": "WITHDRAW"}),
    "list, old window": (ListKind.TRANSACTIONS, {"end_date": "{half_year}"}),
    "pix-key list": (ListKind.PIX_KEY, {}),
    "pix-key list, last page": (ListKind.PIX_KEY, {"page": "50"}),
    "pix-key list, size 1000": (ListKind.PIX_KEY, {"size": "1000"}),
    "pix-key list, status": (ListKind.PIX_KEY, {"status": "CONFIRMED"}),
    "pix-key list, type": (ListKind.PIX_KEY, {"type": "REFUND_IN"}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(LISTS))
async def test_lists_use_indexes(
    populated: Populated, conn: asyncpg.Connection, case: str, mode: str
) -> None:
    kind, params = LISTS[case]
    half_year = (datetime.now(UTC) - timedelta(days=180)).isoformat()
    params = {name: value.format(half_year=half_year) for name, value in params.items()}
    key = populated.key if kind is ListKind.PIX_KEY else None
    query = parse_list_query(kind, now=datetime.now(UTC), **params)  # type: ignore[arg-type]
    if key:
        query = dataclasses.replace(query, filter=dataclasses.replace(query.filter, pix_key=key))
    sql, args = list_statement(
        populated.account_id, query, cap=PIX_KEY_TOTAL_CAP if kind is ListKind.PIX_KEY else None
    )
    found = await scans(conn, sql, args, mode)
    assert found, "the plan reads transactions"
    assert all(node != "Seq Scan" for node, _ in found), found
    found = await conn.fetch(sql, *args)
    assert found[0]["total"] > 0  # the window holds matches: the plan was asked about real work


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["externalId", "endToEndId"])
async def test_filters_by_identifier_use_indexes(
    populated: Populated, conn: asyncpg.Connection, kind: str, mode: str
) -> None:
    params = (
        {"external_id": populated.some_external}
        if kind == "externalId"
        else {"end_to_end_id": populated.some_e2e}
    )
    query = parse_list_query(ListKind.TRANSACTIONS, now=datetime.now(UTC), **params)
    sql, args = list_statement(populated.account_id, query)
    found = await scans(conn, sql, args, mode)
    assert all(node != "Seq Scan" for node, _ in found), found
    assert (await conn.fetch(sql, *args))[0]["total"] == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("by_key", [True, False], ids=["pix-key lookup", "status record"])
@pytest.mark.parametrize("which", ["id", "e2e", "external"])
async def test_lookups_use_indexes(
    populated: Populated, conn: asyncpg.Connection, which: str, by_key: bool, mode: str
) -> None:
    text = {"id": str(populated.some_id), "e2e": populated.some_e2e, "external": populated.some_external}[
        which
    ]
    identifier = classify_identifier(text, end_to_end=by_key)
    if identifier.impossible:
        pytest.skip("nothing to look up")
    row_key = await conn.fetchval("SELECT pix_key FROM transactions WHERE id = $1", populated.some_id)
    sql, args = find_statement(populated.account_id, identifier, pix_key=row_key if by_key else None)
    found = await scans(conn, sql, args, mode)
    assert found
    assert all(node != "Seq Scan" for node, _ in found), found
    found = await conn.fetchrow(sql, *args)
    if which == "e2e" and not by_key:  # the status record takes an id or an externalId only
        assert found is None
    else:
        assert found is not None
        assert found["id"] == populated.some_id


def test_the_adapter_reads_columns_in_the_order_of_the_read_model() -> None:
    assert tuple(field.name for field in dataclasses.fields(TransactionView)) == COLUMNS


PAGING = [
    ({}, 100),
    ({"status": "ERROR"}, 37),
    ({"type": "REFUND_IN", "status": "PENDING"}, 20),
]


@pytest.mark.parametrize(("params", "size"), PAGING, ids=["all", "status", "status and type"])
async def test_every_page_holds_the_rows_a_plain_offset_gives(
    populated: Populated, conn: asyncpg.Connection, params: dict[str, str], size: int
) -> None:
    """Pages past the middle are read from the oldest end (``list_statement``): the same rows,
    newest first, for every page and one past the last."""
    now = datetime.now(UTC)
    query = parse_list_query(ListKind.TRANSACTIONS, now=now, size=str(size), **params)  # type: ignore[arg-type]
    extra = "".join(f" AND {column} = ${n}" for n, column in enumerate(params, start=4))
    plain = (
        "SELECT id FROM transactions WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3"  # noqa: S608
        f"{extra} ORDER BY created_at DESC, id DESC"
    )
    everything = [
        row["id"]
        for row in await conn.fetch(
            plain, populated.account_id, query.filter.start, query.filter.end, *params.values()
        )
    ]
    pages = -(-len(everything) // size)
    assert pages >= 10  # deep enough for both ends to be used
    for page in range(1, pages + 2):
        paged = dataclasses.replace(query, page=page)
        sql, args = list_statement(populated.account_id, paged)
        rows = await conn.fetch(sql, *args)
        assert rows[0]["total"] == len(everything)
        got = [row["id"] for row in rows if row["id"] is not None]
        assert got == everything[(page - 1) * size : page * size], page


@pytest.mark.parametrize("mode", MODES)
async def test_the_daily_flows_read_the_settled_records_index(
    populated: Populated, conn: asyncpg.Connection, mode: str
) -> None:
    """The console overview's chart: one range of ``transactions_account_flows_idx`` (the partial
    index of settled records carrying type, amount and fee, an index-only scan once autovacuum has
    set the visibility map, a bitmap scan of it before), never a sequential scan."""
    today = datetime.now(UTC).date()
    sql, args = daily_flows_statement(populated.account_id, today - timedelta(days=29), today)
    found = await scans(conn, sql, args, mode)
    assert all(node != "Seq Scan" for node, _ in found), found
    assert {await index_of_table(conn, name) for _, name in found} == {"transactions_account_flows_idx"}
    days = await conn.fetch(sql, *args)
    assert len(days) >= 29  # about 35 settled records a day: the plan was asked about real work
    await conn.execute("SET TIME ZONE 'America/Sao_Paulo'")  # the session's zone changes no day
    try:
        assert await conn.fetch(sql, *args) == days
    finally:
        await conn.execute("RESET TIME ZONE")
    by_group = await conn.fetch(
        "SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(*) FROM transactions"
        " WHERE account_id = $1 AND status = 'CONFIRMED' AND created_at >= $2 GROUP BY 1",
        populated.account_id,
        datetime.combine(today - timedelta(days=29), datetime.min.time(), tzinfo=UTC),
    )
    assert [row["day"] for row in days] == sorted(row["day"] for row in by_group)


CHARGES = """
INSERT INTO charges (account_id, txid, kind, status, created_at, updated_at, expiration, expires_at,
    amount, modality, pix_key, location, br_code)
SELECT $1::bigint, 'plans' || lpad(g::text, 26, '0'), 'cob', 'ATIVA', now(), now(), 3600,
       now() + interval '1 hour', 100 + g, 0, 'plans@example.com',
       'pix.example.com/qr/v2/' || md5($1::text || '-' || g), 'code'
  FROM generate_series(1, $2::int) AS g
"""
"""Charges without a location (``loc_id`` and its token NULL), which the plans do not read."""


@pytest.mark.parametrize("mode", MODES)
async def test_an_accounts_newest_charges_are_one_range_of_an_index(
    populated: Populated, conn: asyncpg.Connection, mode: str
) -> None:
    """The console's list of charges (``ChargeRepository.recent``): the first entries of
    ``charges_account_recent_idx``, neither a sort of every charge of the account nor a walk through
    the other accounts' newer ones."""
    other = await conn.fetchval("SELECT id FROM accounts WHERE id <> $1 LIMIT 1", populated.account_id)
    transaction = conn.transaction()
    await transaction.start()
    try:  # rolled back: nothing of it stays for the other tests
        await conn.execute(CHARGES, populated.account_id, 100)
        await conn.execute(CHARGES, other, 20_000)  # all newer than the first account's
        await conn.execute("ANALYZE charges")
        await conn.execute(f"SET LOCAL plan_cache_mode = {mode}")
        raw = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {RECENT}", populated.account_id, 50, None)
        nodes = list(plan_nodes(json.loads(raw)[0]["Plan"]))
        assert [node["Node Type"] for node in nodes] == ["Limit", "Index Scan"], nodes
        assert nodes[1]["Index Name"] == "charges_account_recent_idx"
        assert nodes[1]["Scan Direction"] == "Backward"
        newest = await conn.fetch(RECENT, populated.account_id, 50, None)
        assert [row["txid"] for row in newest] == [f"plans{n:026d}" for n in range(100, 50, -1)]
    finally:
        await transaction.rollback()
