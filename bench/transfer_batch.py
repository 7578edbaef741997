"""Group commit on one hot account: ``POST /dict/pix`` (or, ``--receipts``, ``POST /sandbox/payments``)
with ``PIX_TRANSFER_BATCH_SIZE`` 1 (off) against grouping on, in one run, driven by wrk (a C load
generator) so that the client's CPU does not hide the server's.

For each setting (``--settings``: ``SIZE/WINDOW_MS`` pairs, the first one the baseline) a ``pixweb
serve --no-demo`` process runs on the same fresh database; wrk sends transfers of 0.01 from one
account to one outside key over ``--connections`` keep-alive connections, each request with a new
idempotency key (a Lua script), for ``--duration`` seconds after a warm-up that is not counted.
The settings take turns for ``--rounds`` rounds, so that a change of the machine's load in the
middle touches each of them. Printed per setting: transfers per second (the median round), p50 and
p99 latency (wrk's), the server process's CPU per transfer, and the throughput against the
baseline's. The machine's idle share before the runs is printed too: on a busy machine read the
ratios, not the absolute figures.

    .venv/bin/python bench/transfer_batch.py [--duration 8] [--connections 16] [--settings 1/0,64/0,64/1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
from _baselines import RECEIVER  # the outside key the transfers go to
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import Holder, add_database_options, api_server, bench_database, open_holder, postgres_server

from pixinfra.persistence.ledger_check import check_ledger

FUNDS = "1000000.00"

# One new idempotency key per request: a per-thread random prefix and a counter.
LUA = """
local counter, prefix = 0, ""
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  prefix = string.format("%08x-%04x", math.random(0, 0x7fffffff), math.random(0, 0xffff))
end
function request()
  counter = counter + 1
  local r1, r2 = math.random(0, 0xfff), math.random(0, 0xfff)
  local key = string.format("%s-4%03x-8%03x-%012x", prefix, r1, r2, counter)
  return wrk.format("POST", "PATH", {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer TOKEN",
    ["x-idempotency-key"] = key,
  }, BODY)
end
"""
TRANSFER_BODY = (
    """'{"pixKey":"bench-receiver@external.example","payment":{"currency":"BRL","amount":0.01}}'"""
)
RECEIPT_BODY = """'{"pixKey":"HOLDER_KEY","amount":"0.01"}'"""


@dataclass
class Result:
    rates: list[float] = field(default_factory=list)
    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    errors: int = 0


def _ms(text: str) -> float:
    found = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    if found is None:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(found[1]) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[found[2]]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children that were waited for (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _machine_busy(seconds: float = 1.0) -> float:
    def ticks() -> tuple[int, int]:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        return sum(values) - values[3] - values[4], sum(values)

    busy0, total0 = ticks()
    time.sleep(seconds)
    busy1, total1 = ticks()
    return (busy1 - busy0) / max(1, total1 - total0)


async def _prepare(base_url: str, holder: Holder, *, fund: bool) -> str:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        response = await http.post(
            "/api/auth/token",
            json={"clientId": holder.client_id, "clientSecret": holder.client_secret},
            headers={"X-SSL-Client-Cert": holder.cert_header},
        )
        response.raise_for_status()
        token: str = response.json()["access_token"]
        if fund:
            auth = {"Authorization": f"Bearer {token}"}
            paid = await http.post(
                "/sandbox/payments", json={"pixKey": holder.key, "amount": FUNDS}, headers=auth
            )
            paid.raise_for_status()
            (await http.post("/sandbox/dict", json=RECEIVER, headers=auth)).raise_for_status()
    return token


def _wrk(base_url: str, script: Path, connections: int, seconds: float) -> str:
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds:g}s", "--latency", "-s", str(script), base_url]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout  # noqa: S603


def _run(base_url: str, pid: int, script: Path, args: argparse.Namespace, result: Result) -> None:
    _wrk(base_url, script, args.connections, args.warmup)
    cpu = _cpu_seconds(pid)
    out = _wrk(base_url, script, args.connections, args.duration)
    if "Latency Distribution" not in out:
        raise SystemExit(f"wrk said:\n{out}")
    spent = _cpu_seconds(pid) - cpu
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result.errors += int(errors.group(1)) if errors else 0
    result.rates.append(float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)))  # type: ignore[union-attr]
    result.p50.append(_ms(re.search(r"^\s+50%\s+(\S+)", out, re.MULTILINE).group(1)))  # type: ignore[union-attr]
    result.p99.append(_ms(re.search(r"^\s+99%\s+(\S+)", out, re.MULTILINE).group(1)))  # type: ignore[union-attr]
    result.cpu_ms.append(1000 * spent / max(1, requests))


def _setting(text: str) -> tuple[int, int]:
    size, _, window = text.partition("/")
    return int(size), int(window or 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=8.0, help="seconds measured per run (default 8)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before each run, not counted")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument("--rounds", type=int, default=2, help="turns of every setting (default 2)")
    parser.add_argument(
        "--settings",
        type=lambda text: [_setting(part) for part in text.split(",")],
        default=[(1, 0), (64, 0), (64, 1)],
        help="SIZE/WINDOW_MS,... (default 1/0,64/0,64/1; the first is the baseline)",
    )
    parser.add_argument(
        "--receipts", action="store_true", help="POST /sandbox/payments to the account's key instead"
    )
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is needed: apt-get install wrk")
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    results = {setting: Result() for setting in args.settings}
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pixbench-")))
        db_url = stack.enter_context(bench_database(stack.enter_context(postgres_server(args, folder))))
        holder = asyncio.run(open_holder(db_url, folder))
        print(f"machine busy before the runs: {_machine_busy():.0%} of {os.cpu_count()} CPUs", flush=True)
        funded = False
        for _ in range(args.rounds):
            for size, window in args.settings:
                env = {"PIX_TRANSFER_BATCH_SIZE": str(size), "PIX_TRANSFER_BATCH_WINDOW_MS": str(window)}
                with api_server(db_url, folder, env) as (base_url, process):
                    token = asyncio.run(_prepare(base_url, holder, fund=not funded))
                    funded = True
                    script = folder / "transfer.lua"
                    path, body = (
                        ("/sandbox/payments", RECEIPT_BODY) if args.receipts else ("/dict/pix", TRANSFER_BODY)
                    )
                    lua = LUA.replace("PATH", path).replace("BODY", body.replace("HOLDER_KEY", holder.key))
                    script.write_text(lua.replace("TOKEN", token), encoding="utf-8")
                    _run(base_url, process.pid, script, args, results[size, window])
        ledger = asyncio.run(_ledger(db_url))
    print(f"ledger check after the runs: {'ok' if ledger else 'FAILED'}")
    _report(results, args)


async def _ledger(url: str) -> bool:
    conn = await asyncpg.connect(url)
    try:
        return bool((await check_ledger(conn))["ok"])
    finally:
        await conn.close()


def _report(results: dict[tuple[int, int], Result], args: argparse.Namespace) -> None:
    baseline = statistics.median(next(iter(results.values())).rates)
    print(
        f"\n{'receipts into' if args.receipts else 'transfers out of'} one hot account,"
        f" {args.connections} connections, {args.rounds} rounds of {args.duration:g} s each"
    )
    print(
        f"{'size/window':>12} {'tx/s':>8} {'x off':>6} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'CPU ms/tx':>9} {'non-2xx':>7}"
    )
    figures = []
    for (size, window), r in results.items():
        rate = statistics.median(r.rates)
        print(
            f"{size:>7}/{window:<4} {rate:>8,.0f} {rate / baseline:>6.2f} {statistics.median(r.p50):>7.1f}"
            f" {statistics.median(r.p99):>7.1f} {statistics.median(r.cpu_ms):>9.2f} {r.errors:>7}"
        )
        figures.append(
            Figure("transfer_batch", f"size {size}, window {window} ms", rate, "tx/s", baseline=baseline)
        )
    write_summary(args.summary, figures)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the server was stopped and the bench database dropped")
