"""The scale benchmark's generator (``bench/_scale_data.py``) at a tiny scale: what it writes is
what the service would have written, so the ledger check passes and the counts follow the mix."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

from _scale_data import Shape, generate, key_triggers, prove_keys  # noqa: E402 - bench/ is no package
from _servers import ISPB, PIXWEB, bench_database, open_holder, without_pix_settings  # noqa: E402

pytestmark = pytest.mark.slow

ACCOUNTS, TRANSACTIONS, CHUNK = 50, 2_000, 700  # three chunks, the last a short one


async def load(url: str, folder: Path, end: datetime) -> None:
    holder = await open_holder(url, folder)
    conn = await asyncpg.connect(url)
    try:
        secret_hash = await conn.fetchval(
            "SELECT secret_hash FROM client_credentials WHERE client_id = $1", holder.client_id
        )
        shape = Shape(ACCOUNTS, TRANSACTIONS, end, timedelta(days=730), chunk=CHUNK)
        await generate(conn, shape, ispb=ISPB, secret_hash=secret_hash)
    finally:
        await conn.close()


async def figures(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:
        row = await conn.fetchrow(
            """SELECT
                 (SELECT count(*) FROM accounts WHERE name LIKE 'Scale Holder %') AS accounts,
                 (SELECT count(*) FROM pix_keys WHERE key_value LIKE '%@scale.example') AS keys,
                 (SELECT count(*) FROM client_credentials WHERE client_id LIKE 'pix_scale%') AS credentials,
                 (SELECT count(*) FROM transactions) AS transactions,
                 (SELECT count(DISTINCT account_id) FROM transactions) AS active,
                 (SELECT count(*) FROM ledger_entries) AS entries,
                 (SELECT coalesce(sum(CASE WHEN type IN ('PAYMENT', 'REFUND_IN')
                                           THEN CASE WHEN status = 'CONFIRMED' THEN 2 ELSE 0 END
                                           ELSE CASE WHEN status = 'PENDING' THEN 2 ELSE 4 END END), 0)
                    FROM transactions) AS expected_entries,
                 (SELECT count(*) FROM outbox) AS outbox,
                 (SELECT count(*) FROM webhook_deliveries) AS deliveries,
                 (SELECT count(*) FROM webhook_attempts) AS attempts,
                 (SELECT min(created_at) FROM transactions) AS first,
                 (SELECT max(created_at) FROM transactions) AS last,
                 (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'ledger_entries'::regclass
                     AND tgname IN ('ledger_entries_balanced', 'ledger_entries_outside')
                     AND tgenabled = 'O') AS triggers_on,
                 (SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'D') AS disabled,
                 (SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'O'
                     AND pg_get_triggerdef(oid) ~ 'history_rows?_exists?[(]') AS key_triggers_on,
                 (SELECT count(*) FROM balances WHERE available < 0 OR blocked < 0) AS negative,
                 (SELECT count(DISTINCT tableoid) FROM transactions) AS months_read,
                 (SELECT count(*) FROM transactions_default) AS in_default"""
        )
    finally:
        await conn.close()
    assert row is not None
    return dict(row)


def test_a_tiny_history_passes_the_ledger_check(database_server: str, tmp_path: Path) -> None:
    end = datetime.now(UTC)
    with bench_database(database_server, migrated_in=tmp_path) as url:
        asyncio.run(load(url, tmp_path, end))
        check = subprocess.run(
            [str(PIXWEB), "admin", "ledger", "check"],
            env=without_pix_settings() | {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path)},
            capture_output=True,
            check=False,
        )
        seen = asyncio.run(figures(url))
    report = json.loads(check.stdout)
    assert check.returncode == 0, report
    assert report["ok"] is True
    assert report["accounts"] == ACCOUNTS + 1  # and the holder that opened the database
    assert seen["accounts"] == seen["keys"] == seen["credentials"] == ACCOUNTS
    assert seen["transactions"] == TRANSACTIONS
    assert seen["active"] == ACCOUNTS  # each account's first transaction is its own
    assert seen["entries"] == seen["expected_entries"] == report["entries"]
    assert 0 < seen["outbox"] == seen["deliveries"] == seen["attempts"]
    assert seen["triggers_on"] == 2
    assert seen["disabled"] == 0  # the key triggers disabled for the load too, on every partition
    assert seen["key_triggers_on"] > 0
    assert seen["negative"] == 0
    assert end - timedelta(days=731) < seen["first"] < end - timedelta(days=700)
    assert end - timedelta(days=1) < seen["last"] <= end
    # Spread over month partitions, as a service running those two years would have them.
    assert seen["months_read"] >= 24
    assert seen["in_default"] == 0


async def orphan_refused(url: str) -> str:
    """The message of ``prove_keys`` for a ledger entry naming no transaction (written with the key
    triggers off, as the load writes), the transaction rolled back."""
    conn = await asyncpg.connect(url)
    try:
        tx = conn.transaction()
        await tx.start()
        try:
            keys = await key_triggers(conn)
            for key in keys:
                await conn.execute(f"ALTER TABLE {key.owner} DISABLE TRIGGER {key.name}")
            await conn.execute("ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_balanced")
            await conn.execute(
                "INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at,"
                " institution) VALUES (987654321, 'receive', NULL, 'external', -5, now(), '12345678')"
            )
            with pytest.raises(SystemExit) as refused:
                await prove_keys(conn, keys)
            return str(refused.value)
        finally:
            await tx.rollback()
    finally:
        await conn.close()


def test_the_load_proves_the_keys_its_disabled_triggers_would_have_checked(
    database_server: str, tmp_path: Path
) -> None:
    with bench_database(database_server, migrated_in=tmp_path) as url:
        message = asyncio.run(orphan_refused(url))
    assert message == "1 rows of ledger_entries.transaction_id name no row of transactions"
