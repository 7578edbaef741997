"""`pixweb admin partitions list` and `ensure`: the history's months, and the months made ahead of
a sandbox clock moved forward."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pixinfra.postgres.partitions import AHEAD, PARTITIONED, month_after, month_of, partition_name
from tests.e2e.cli.test_ledger_cli import _pixweb
from tests.integration.partitions.databases import own_database


async def test_partitions_are_listed_and_made_ahead_of_the_service_clock(
    database_server: str, tmp_path: Path
) -> None:
    async with own_database(database_server, "pixtest_partitions") as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
        env |= {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path)}
        await _listed_and_made_ahead(env)


async def _listed_and_made_ahead(env: dict[str, str]) -> None:
    code, _, err = await _pixweb(env, "migrate")
    assert code == 0, err
    code, out, err = await _pixweb(env, "admin", "partitions", "list")
    assert code == 0, err
    listed = json.loads(out)["partitions"]
    assert {row["table"] for row in listed} == {table.name for table in PARTITIONED}
    defaults = [row for row in listed if row["default"]]
    assert [row["name"] for row in defaults] == [f"{table.name}_default" for table in PARTITIONED]
    assert all(row["bytes"] > 0 and row["rows"] >= 0 for row in listed)

    code, out, err = await _pixweb(env, "admin", "partitions", "ensure")
    assert (code, json.loads(out)) == (0, {"created": []}), err  # migrate made them already

    code, out, err = await _pixweb(env, "admin", "clock", "advance", "--seconds", str(400 * 86_400))
    assert code == 0, err
    moved = datetime.fromisoformat(json.loads(out)["now"].replace("Z", "+00:00")).astimezone(UTC)
    code, out, err = await _pixweb(env, "admin", "partitions", "ensure")
    assert code == 0, err
    last = month_of(moved)
    for _ in range(AHEAD):
        last = month_after(last)
    assert partition_name("transactions", last) in json.loads(out)["created"]


async def test_a_retention_run_reports_and_a_wrong_action_is_refused_at_start(
    database_server: str, tmp_path: Path
) -> None:
    async with own_database(database_server, "pixtest_retention_cli") as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
        env |= {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(tmp_path), "PIX_RETENTION_LEDGER_ENTRIES": "1"}
        code, _, err = await _pixweb(env, "migrate")
        assert code == 0, err
        code, out, err = await _pixweb(env, "admin", "retention", "run", "--dry-run")
        assert code == 0, err
        report = json.loads(out)
        assert (report["dryRun"], report["action"]) == (True, "drop")
        assert report["released"] == []  # nothing is older than the month kept on a new database

        code, out, err = await _pixweb(
            env | {"PIX_RETENTION_ACTION": "truncate"}, "admin", "retention", "run"
        )
        assert code != 0
        assert "PIX_RETENTION_ACTION must be 'drop' or 'keep'" in err
        assert "Traceback" not in err

        code, out, err = await _pixweb(
            env | {"PIX_RETENTION_IDEMPOTENCY_KEYS": "24"}, "admin", "retention", "run"
        )
        assert code != 0
        assert "PIX_RETENTION_IDEMPOTENCY_KEYS must be at least 25, not 24" in err
        assert "Traceback" not in err
