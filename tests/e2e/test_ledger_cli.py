"""`pixweb admin ledger check` proves the ledger, and says so when it does not hold."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from pathlib import Path

import asyncpg

from pixweb.persistence.database import with_database

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
