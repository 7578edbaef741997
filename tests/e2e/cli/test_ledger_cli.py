"""`pixweb admin ledger check` proves the ledger, and says so when it does not hold."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import asyncpg

from pixinfra.postgres.database import with_database

PIXWEB = Path(sys.executable).parent / "pixweb"


async def _pixweb(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        str(PIXWEB), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_ledger_check_passes_then_catches_a_tampered_balance(
    database_server: str, tmp_path: Path
) -> None:
    name = f"pixtest_ledger_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = with_database(database_server, name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
    env |= {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path)}
    try:
        code, out, err = await _pixweb(
            env, "admin", "account", "create", "--name", "Ledger", "--document", "52998224725"
        )
        assert code == 0, err
        account_id = json.loads(out)["accountId"]

        code, out, err = await _pixweb(env, "admin", "ledger", "check")
        assert code == 0, err
        report = json.loads(out)
        assert report["ok"] is True
        assert report["accounts"] == 1
        assert report["mismatchedAccounts"] == []
        assert (report["ledgerTotal"], report["ours"], report["outside"]) == (0, 0, [])

        conn = await asyncpg.connect(url)
        try:
            await conn.execute("UPDATE balances SET available = 500 WHERE account_id = $1", account_id)
        finally:
            await conn.close()
        code, out, err = await _pixweb(env, "admin", "ledger", "check")
        assert code == 1
        report = json.loads(out)
        assert report["ok"] is False
        assert report["mismatchedAccounts"] == [
            {
                "accountId": account_id,
                "available": 500,
                "blocked": 0,
                "entriesAvailable": 0,
                "entriesBlocked": 0,
            }
        ]
        assert report["ledgerTotal"] == 500  # 5.00 made from nothing: the sum over every account moved
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


_TRANSACTION = """
INSERT INTO transactions (account_id, type, status, amount, created_at, updated_at)
VALUES ($1, 'PAYMENT', 'CONFIRMED', 7, now(), now()) RETURNING id
"""
_ENTRY = """
INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at)
VALUES ($1, 'tampered', $2, 'available', $3, now())
"""


async def _tamper(url: str, *statements: tuple[str, tuple[object, ...]]) -> None:
    """Commit ``statements`` with triggers off (a trigger guarding the entries would refuse them)."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.execute("SET LOCAL session_replication_role = replica")
            for sql, args in statements:
                await conn.execute(sql, *args)
    finally:
        await conn.close()


async def test_ledger_check_exits_1_on_each_broken_proof(database_server: str, tmp_path: Path) -> None:
    """Each break fires one proof only: a blocked or an available that disagrees with its entries,
    transactions that do not sum to zero (the grand total still zero), a grand total that is not zero
    (every balance agreeing). The books are mended after each, and the check passes again at the end."""
    name = f"pixtest_ledger_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = with_database(database_server, name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
    env |= {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path)}

    async def check() -> tuple[int, dict[str, Any]]:
        code, out, err = await _pixweb(env, "admin", "ledger", "check")
        assert code in {0, 1}, err
        return code, json.loads(out)

    try:
        code, out, err = await _pixweb(
            env, "admin", "account", "create", "--name", "Ledger", "--document", "52998224725"
        )
        assert code == 0, err
        account = json.loads(out)["accountId"]
        conn = await asyncpg.connect(url)
        try:
            first = await conn.fetchval(_TRANSACTION, account)
            second = await conn.fetchval(_TRANSACTION, account)
        finally:
            await conn.close()
        balance = "UPDATE balances SET available = $2, blocked = $3 WHERE account_id = $1"
        mend = [(balance, (account, 0, 0)), ("DELETE FROM ledger_entries WHERE posting = 'tampered'", ())]

        await _tamper(url, (balance, (account, 0, 5)))
        code, report = await check()
        assert (code, report["ok"], report["unbalancedTransactions"]) == (1, False, [])
        assert [row["accountId"] for row in report["mismatchedAccounts"]] == [account]
        assert report["mismatchedAccounts"][0]["blocked"] == 5

        await _tamper(url, *mend, (balance, (account, 5, 0)))
        code, report = await check()
        assert (code, report["ok"], report["unbalancedTransactions"]) == (1, False, [])
        assert [row["available"] for row in report["mismatchedAccounts"]] == [5]

        await _tamper(url, *mend, (_ENTRY, (first, account, 7)), (_ENTRY, (second, account, -7)))
        code, report = await check()
        assert (code, report["ok"], report["mismatchedAccounts"], report["entriesTotal"]) == (1, False, [], 0)
        assert sorted(row["transactionId"] for row in report["unbalancedTransactions"]) == [first, second]

        await _tamper(url, *mend, (_ENTRY, (first, account, 7)), (balance, (account, 7, 0)))
        code, report = await check()
        assert (code, report["ok"], report["mismatchedAccounts"], report["entriesTotal"]) == (1, False, [], 7)
        assert report["unbalancedTransactions"] == [{"transactionId": first, "total": 7}]

        await _tamper(url, *mend)
        code, report = await check()
        assert (code, report["ok"], report["mismatchedAccounts"], report["unbalancedTransactions"]) == (
            0,
            True,
            [],
            [],
        )
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
