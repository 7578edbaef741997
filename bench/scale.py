"""The query endpoints at scale: millions of transactions over two years across thousands of
accounts, against the same endpoints on a small database measured in the same run.

Set-up, twice (``--transactions`` and ``--baseline-transactions``): a fresh database
``pixbench_<random>`` on the server of ``--database-url`` (or ``--embedded``), migrated by the
service itself when the benchmarks' holder is opened (``_servers.open_holder``); then
``--accounts`` accounts, each with an e-mail key, a client credential (sharing the holder's
secret) and cash-in/cash-out webhooks, and the transactions over the ``--months`` before now
with their ledger entries, outbox rows, webhook deliveries and attempts, written with set-based
SQL (``bench/_scale_data.py``: progress printed per chunk). ``pixweb admin ledger check`` must
pass on the result.

Then ``pixweb serve --no-demo`` on that database, and for each case wrk (``--seconds`` each,
``--connections`` keep-alive connections) sends GETs, each for a random one of ``--sample``
accounts, with that account's token: the transaction lists (first page, a deep page, filters, a
31-day window six months back), one record, the PIX-key list and look-up, and the standard API's
``GET /pix`` (list and one), ``/cob`` and ``/cobv`` lists.

Printed: p50/p99 per case on both databases (target: p99 under 25 ms at scale), and the bytes of
the history tables (tables and indexes, partitions included) per transaction.

    .venv/bin/python bench/scale.py [--transactions 10000000] [--accounts 10000] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg
import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _scale_data import HISTORY_TABLES, Shape, generate
from _servers import (
    ISPB,
    PIXWEB,
    add_database_options,
    api_server,
    bench_database,
    open_holder,
    postgres_server,
    without_pix_settings,
)
from _wrk import ensure_wrk

from pixcore.accounts.accounts_service import link_certificate
from pixcore.clock import SystemClock
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.runtime import database_ready
from pixinfra.settings import Settings
from pixweb.security.certificates import create_self_signed

TARGET_P99_MS = 25.0

# wrk: each request a random line of SCALE_REQUESTS ("token<TAB>path")
WRK_SCRIPT = r"""
local lines = {}
for line in io.lines(os.getenv("SCALE_REQUESTS")) do
  local token, path = string.match(line, "^([^\t]+)\t(.*)$")
  lines[#lines + 1] = {"Bearer " .. token, path}
end
math.randomseed(os.time())

function request()
  local pick = lines[math.random(#lines)]
  return wrk.format("GET", pick[2], {["Authorization"] = pick[1]})
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nWRK-JSON {"requests": %d, "non2xx": %d, "socket_errors": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


@dataclass
class Sampled:
    """One account the requests are made for: its token and what its paths name."""

    token: str
    key: str
    transaction_id: int
    end_to_end_id: str


@dataclass
class Result:
    requests: int
    failed: int
    p50_ms: float
    p99_ms: float


def cases(sampled: list[Sampled], now: datetime) -> dict[str, list[str]]:
    """Per case, one path per sampled account."""
    back = now - timedelta(days=180)
    window = f"startDate={back - timedelta(days=30):%Y-%m-%d}&endDate={back:%Y-%m-%d}"
    std = f"inicio={(now - timedelta(days=30)):%Y-%m-%dT%H:%M:%SZ}&fim={now:%Y-%m-%dT%H:%M:%SZ}"
    table = {  # templates of one path: {id}, {key} and {e2e} are the sampled account's
        "transactions: first page": "/api/transactions",
        "transactions: page 5 of 20": "/api/transactions?page=5",
        "transactions: size 100": "/api/transactions?size=100",
        "transactions: status=ERROR": "/api/transactions?status=ERROR",
        "transactions: type=REFUND_IN": "/api/transactions?type=REFUND_IN",
        "transactions: 30 days, 6 months ago": f"/api/transactions?{window}",
        "transaction: one record": "/api/pix/transaction/{id}",
        "pix-key: first page": "/api/pix/transactions/pix-key/{key}",
        "pix-key: look-up by endToEndId": "/api/pix/transactions/pix-key/{key}/{e2e}",
        "standard: GET /pix, 30 days": f"/bcb/v2/pix?{std}",
        "standard: GET /pix/{e2eid}": "/bcb/v2/pix/{e2e}",
        "standard: GET /cob, 30 days": f"/bcb/v2/cob?{std}",
        "standard: GET /cobv, 30 days": f"/bcb/v2/cobv?{std}",
    }
    return {
        name: [path.format(id=s.transaction_id, key=s.key, e2e=s.end_to_end_id) for s in sampled]
        for name, path in table.items()
    }


# ------------------------------------------------------------------------------------ set-up


async def load(url: str, folder: Path, shape: Shape) -> None:
    """The holder, then the generated data, on a migrated database."""
    holder = await open_holder(url, folder)
    conn = await asyncpg.connect(url)
    try:
        secret_hash = await conn.fetchval(
            "SELECT secret_hash FROM client_credentials WHERE client_id = $1", holder.client_id
        )
        await generate(conn, shape, ispb=ISPB, secret_hash=secret_hash)
    finally:
        await conn.close()
    holder_secret = folder / f"secret-{url.rsplit('/', 1)[-1]}"
    holder_secret.write_text(holder.client_secret)


def ledger_check(url: str, folder: Path) -> dict[str, Any]:
    """``pixweb admin ledger check`` on ``url``; its report (it exits 1 when a proof fails)."""
    done = subprocess.run(  # noqa: S603 - our own command
        [str(PIXWEB), "admin", "ledger", "check"],
        env=without_pix_settings() | {"PIX_DATABASE_URL": url, "PIX_DATA_DIR": str(folder)},
        capture_output=True,
        check=False,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    if done.returncode != 0 or not report["ok"]:
        raise SystemExit(f"the ledger check failed: {json.dumps(report)[:2000]}")
    return report


async def sample(url: str, folder: Path, base_url: str, secret: str, count: int) -> list[Sampled]:
    """``count`` random generated accounts, each with a certificate linked (as ``_servers.open_holder``
    does) and a token from POST /api/auth/token."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            """SELECT c.client_id, c.account_id, k.key_value,
                      (SELECT t.id FROM transactions t
                        WHERE t.account_id = c.account_id AND t.type = 'PAYMENT' AND t.status = 'CONFIRMED'
                        ORDER BY t.created_at DESC, t.id DESC LIMIT 1 OFFSET 5) AS id
                 FROM client_credentials c JOIN pix_keys k USING (account_id)
                WHERE c.client_id LIKE 'pix_scale%' ORDER BY random() LIMIT $1""",
            count,
        )
        ids = {row["client_id"]: row["id"] for row in rows}
        e2e = dict(
            await conn.fetch(
                "SELECT id, end_to_end_id FROM transactions WHERE id = ANY($1::bigint[])",
                [i for i in ids.values() if i is not None],
            )
        )
    finally:
        await conn.close()
    out = []
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=30) as http,
        database_ready(Settings(database_url=url, data_dir=folder), pool_size=1) as database,
    ):
        uow = partial(PostgresUnitOfWork, database)
        for row in rows:
            if row["id"] is None:
                continue
            _, cert_pem, info = create_self_signed(f"scale-{row['account_id']}")
            await link_certificate(uow, account_id=row["account_id"], certificate=info, clock=SystemClock())
            answer = await http.post(
                "/api/auth/token",
                json={"clientId": row["client_id"], "clientSecret": secret},
                headers={"X-SSL-Client-Cert": quote(cert_pem.decode(), safe="")},
            )
            if answer.status_code != 201:
                raise SystemExit(f"POST /api/auth/token: {answer.status_code} {answer.text[:500]}")
            out.append(Sampled(answer.json()["access_token"], row["key_value"], row["id"], e2e[row["id"]]))
    if not out:
        raise SystemExit("no sampled account has transactions: generate more")
    return out


# ------------------------------------------------------------------------------------ measuring


def run_case(base_url: str, token_paths: list[tuple[str, str]], args: argparse.Namespace) -> Result:
    """wrk on ``token_paths`` (random picks) for ``args.seconds``."""
    with tempfile.TemporaryDirectory(prefix="pixscale-wrk-") as tmp:
        script, requests = Path(tmp) / "scale.lua", Path(tmp) / "requests.tsv"
        script.write_text(WRK_SCRIPT)
        requests.write_text("".join(f"{token}\t{path}\n" for token, path in token_paths))
        command = [
            ensure_wrk(),
            "-t1",
            f"-c{args.connections}",
            f"-d{args.seconds}s",
            "--timeout",
            "30s",
            "-s",
            str(script),
            base_url,
        ]
        done = subprocess.run(  # noqa: S603 - wrk
            command, env=os.environ | {"SCALE_REQUESTS": str(requests)}, capture_output=True, check=False
        )
    output = done.stdout.decode(errors="replace")
    line = next((ln for ln in output.splitlines() if ln.startswith("WRK-JSON ")), None)
    if done.returncode != 0 or line is None:
        raise SystemExit(f"wrk failed (exit {done.returncode}):\n{output}{done.stderr.decode()}")
    figures = json.loads(line.removeprefix("WRK-JSON "))
    return Result(
        figures["requests"],
        figures["non2xx"] + figures["socket_errors"],
        figures["p50_us"] / 1000,
        figures["p99_us"] / 1000,
    )


async def probe(base_url: str, token: str, path: str) -> None:
    """One request of the case, which must answer 200."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        answer = await http.get(path, headers={"Authorization": f"Bearer {token}"})
    if answer.status_code != 200:
        raise SystemExit(f"GET {path}: {answer.status_code} {answer.text[:500]}")


def measure(url: str, folder: Path, args: argparse.Namespace) -> dict[str, Result]:
    secret = (folder / f"secret-{url.rsplit('/', 1)[-1]}").read_text()
    with api_server(url, folder) as (base_url, _):
        sampled = asyncio.run(sample(url, folder, base_url, secret, args.sample))
        results = {}
        for name, paths in cases(sampled, datetime.now(UTC)).items():
            token_paths = [(s.token, path) for s, path in zip(sampled, paths, strict=True)]
            asyncio.run(probe(base_url, *token_paths[0]))
            results[name] = run_case(base_url, token_paths, args)
            print(
                f"  {name}: p50 {results[name].p50_ms:.2f} ms, p99 {results[name].p99_ms:.2f} ms", flush=True
            )
    return results


async def history_bytes(url: str) -> tuple[int, int]:
    """Bytes of the history tables (tables, indexes and TOAST, every partition) and transactions."""
    conn = await asyncpg.connect(url)
    try:
        total = 0
        for table in HISTORY_TABLES:
            total += await conn.fetchval(
                "SELECT coalesce(sum(pg_total_relation_size(oid)), 0)::bigint FROM pg_class"
                " WHERE oid = $1::regclass OR oid IN (SELECT relid FROM pg_partition_tree($1::regclass))",
                table,
            )
        count: int = await conn.fetchval("SELECT count(*) FROM transactions")
    finally:
        await conn.close()
    return total, count


# ------------------------------------------------------------------------------------ report


def report(scale: dict[str, Result], small: dict[str, Result], args: argparse.Namespace) -> None:
    print(
        f"\nwrk, {args.connections} connections, {args.seconds} s per case, {args.sample} random accounts;"
        f" {args.transactions:,} transactions on {args.accounts:,} accounts against"
        f" {args.baseline_transactions:,} on {args.baseline_accounts:,}"
    )
    print("\n| case | scale p50 / p99 ms | small p50 / p99 ms | requests (failed) |")
    print("|---|---:|---:|---:|")
    for name, big in scale.items():
        base = small[name]
        print(
            f"| {name} | {big.p50_ms:.2f} / {big.p99_ms:.2f} | {base.p50_ms:.2f} / {base.p99_ms:.2f} |"
            f" {big.requests:,} ({big.failed}) |"
        )
    worst = max(scale.values(), key=lambda r: r.p99_ms)
    verdict = "met" if worst.p99_ms < TARGET_P99_MS else "MISSED"
    print(
        f"\ntarget: p99 under {TARGET_P99_MS:g} ms in every case at scale: {verdict}"
        f" (worst {worst.p99_ms:.2f} ms)"
    )
    write_summary(
        args.summary,
        [
            Figure(
                "scale",
                f"{name}, p99",
                big.p99_ms,
                "ms",
                baseline=small[name].p99_ms,
                higher_is_better=False,
                target=f"< {TARGET_P99_MS:g} ms",
                met=big.p99_ms < TARGET_P99_MS and big.failed == 0,
            )
            for name, big in scale.items()
        ],
    )


def stand_up(
    server_url: str, folder: Path, shape: Shape, stack: contextlib.ExitStack, *, keep: bool = False
) -> str:
    url: str = stack.enter_context(bench_database(server_url, migrated_in=folder, keep=keep))
    asyncio.run(load(url, folder, shape))
    began = time.perf_counter()
    checked = ledger_check(url, folder)
    print(
        f"  pixweb admin ledger check: ok ({checked['entries']:,} entries, {checked['accounts']:,} balances)"
        f" in {time.perf_counter() - began:.1f} s"
    )
    return url


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--transactions", type=int, default=10_000_000, help="(default 10,000,000)")
    parser.add_argument("--accounts", type=int, default=10_000, help="(default 10,000)")
    parser.add_argument("--months", type=int, default=24, help="span of the history (default 24)")
    parser.add_argument("--baseline-transactions", type=int, default=20_000, help="(default 20,000)")
    parser.add_argument("--baseline-accounts", type=int, default=100, help="(default 100)")
    parser.add_argument(
        "--chunk", type=int, default=500_000, help="transactions per INSERT (default 500,000)"
    )
    parser.add_argument("--sample", type=int, default=50, help="accounts the requests pick from (default 50)")
    parser.add_argument("--seconds", type=int, default=5, help="wrk's duration per case (default 5)")
    parser.add_argument("--connections", type=int, default=4, help="wrk's connections (default 4)")
    parser.add_argument(
        "--keep", action="store_true", help="leave the scale database on the server (its URL printed)"
    )
    parser.add_argument(
        "--load-only", action="store_true", help="generate, check and size the databases; measure nothing"
    )
    parser.add_argument(
        "--keep-triggers",
        action="store_true",
        help="leave the ledger's per-row triggers on during the load (to measure their cost)",
    )
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    random.seed()
    now = datetime.now(UTC) - timedelta(minutes=1)
    span = timedelta(days=round(args.months * 365.25 / 12))
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pixscale-")))
        server_url = stack.enter_context(postgres_server(args, folder))
        print(
            f"small database: {args.baseline_transactions:,} transactions,"
            f" {args.baseline_accounts:,} accounts"
        )
        small_url = stand_up(
            server_url,
            folder,
            Shape(
                args.baseline_accounts,
                args.baseline_transactions,
                now,
                span,
                args.chunk,
                keep_triggers=args.keep_triggers,
            ),
            stack,
        )
        print(f"scale database: {args.transactions:,} transactions, {args.accounts:,} accounts")
        scale_url = stand_up(
            server_url,
            folder,
            Shape(args.accounts, args.transactions, now, span, args.chunk, keep_triggers=args.keep_triggers),
            stack,
            keep=args.keep,
        )
        size, count = asyncio.run(history_bytes(scale_url))
        print(
            f"\nhistory tables: {size / 2**20:,.0f} MiB for {count:,} transactions:"
            f" {size / count:,.0f} bytes each"
        )
        if args.load_only:
            return
        print("measuring the small database")
        small = measure(small_url, folder, args)
        print("measuring the scale database")
        scale = measure(scale_url, folder, args)
    report(scale, small, args)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the servers were stopped and the bench databases dropped")
