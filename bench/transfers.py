"""Money movement on one hot account, driven by wrk (a C load generator), against SQL baselines.

Two operations, each on one hot account (every request takes its one balance row lock):

* transfers: ``POST /dict/pix`` of 0.01 out of one funded account to one outside key, each with a
  unique ``x-idempotency-key`` (wrk's Lua script, ``bench/_wrk.py``);
* receipts: ``POST /sandbox/payments`` of 0.01 into one account (an outside payer pays its key).

Cases, for each connection count (``--connections``, default 16 and 64):

(a) naive SQL: this process, a pool of N asyncpg connections, N tasks, each transfer (receipt) one
    transaction of the statements the service writes (transfers: INSERT transactions,
    idempotency_keys, transfers, the guarded UPDATE balances, the two ledger entries; receipts:
    INSERT transactions, the two ledger entries, UPDATE balances, the outbox event);
(b) grouped SQL: the same rows written 16 and 256 at a time in one transaction with multi-row
    statements (one UPDATE of the balance per group), on 2 connections: the ceiling group commit
    can approach (measured once, not per N);
(c) the bare framework floor: ``bench/_echo_app.py``, a Litestar POST echoing a msgspec struct,
    no database and no authentication, on uvicorn and on granian, with 1 and 2 processes;
(d) the API: ``pixweb serve`` with 1 and 2 processes (``PIX_PROCESSES``), settlement off; with
    ``--granian-api`` also the same app under granian with 2 processes.

For each run: throughput (2xx answers a second), p50/p99 latency (wrk's, or this process's for the
SQL baselines), failures, and CPU milliseconds per request split by process: the server (the
process and its workers), the load generator (wrk, or this process for the baselines), the
PostgreSQL backends of the bench database, and the rest of the machine. The machine's load before
the runs is printed: on a shared machine, read the ratios (measured minutes apart) rather than
the absolute figures.

With ``--summary FILE`` (``bench/run_all.py``) it writes, for the API with 1 and with 2 processes:
throughput and p99 against naive SQL (the issue's targets), throughput against the bare floor on as
many processes, and the CPU a transfer costs (API + PostgreSQL against the naive client + PostgreSQL).

``--env KEY=VALUE`` (repeatable) passes settings to the API processes (e.g. the group-commit
settings ``PIX_TRANSFER_BATCH_*``, where the service has them).

Every run uses a fresh database ``pixbench_<random>`` on ``--database-url`` (or, with
``--embedded``, a throw-away embedded server), checked by the ledger check and dropped at the end.

    .venv/bin/python bench/transfers.py [--duration 10] [--connections 16,64] [--embedded]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import asyncpg
import httpx
from _baselines import Accounts, Row, grouped_sql, naive_sql, open_accounts, show  # bench/ is on sys.path
from _cpu import CpuMeter
from _figures import Figure, add_summary_option, write_summary
from _servers import add_database_options, api_server, bench_database, child, free_port, postgres_server
from _wrk import ensure_wrk, run_wrk

from pixinfra.persistence.ledger_check import check_ledger
from pixinfra.postgres.database import database_name

HERE = Path(__file__).parent
GROUPS = (16, 256)
TARGETS = {16: 1.5, 64: 2.0}  # API (2 processes) against naive SQL, by connections
FLOOR_TARGET = 0.35  # API against the bare framework floor on the same server and processes


def wrk_row(
    case: str,
    operation: str,
    *,
    url: str,
    request: tuple[bytes, dict[str, str]],
    connections: int,
    meter: CpuMeter,
    args: argparse.Namespace,
    unique_keys: bool,
) -> Row:
    """A warm-up run (not counted), then the measured one with its CPU."""
    body, headers = request
    load = {"connections": connections, "body": body, "headers": headers, "unique_keys": unique_keys}
    if args.warmup > 0:
        run_wrk(url, seconds=args.warmup, **load)
    before = meter.sample()
    result = run_wrk(url, seconds=args.duration, **load)
    spent = meter.spent(before, meter.sample(), load=result.cpu)
    cpu = {party: seconds * 1000 / max(result.ok, 1) for party, seconds in spent.items()}
    return show(
        Row(case, operation, connections, result.rate, result.p50_ms, result.p99_ms, result.failed, cpu)
    )


# ------------------------------------------------------------------------------------ servers


@contextlib.contextmanager
def floor_server(server: str, processes: int, folder: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    command = [sys.executable, str(HERE / "_echo_app.py"), server, "_echo_app:app", str(port), str(processes)]
    env = os.environ | {"PYTHONPATH": str(HERE)}
    with child(command, env, folder / f"floor-{server}-{processes}.log", ready_url=None) as process:
        wait_for_processes(f"http://127.0.0.1:{port}/pid", processes, lambda text: text or None)
        yield f"http://127.0.0.1:{port}", process.pid


@contextlib.contextmanager
def granian_api(db_url: str, folder: Path, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """The composed API (``pixservice.cli:worker_app``) under granian, 2 processes."""
    port = free_port()
    command = [
        sys.executable,
        str(HERE / "_echo_app.py"),
        "granian",
        "pixservice.cli:worker_app",
        str(port),
        "2",
        "--factory",
    ]
    settings = {
        "PIX_DATABASE_URL": db_url,
        "PIX_PORT": str(port),
        "PIX_DATA_DIR": str(folder),
        "PIX_WORKERS": "off",
        "PIX_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(HERE),
    }
    full = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")} | settings | env
    with child(
        command, full, folder / "granian-api.log", ready_url=f"http://127.0.0.1:{port}/.well-known/jwks.json"
    ) as process:
        wait_for_processes(f"http://127.0.0.1:{port}/metrics", 2, _metric_pid)
        yield f"http://127.0.0.1:{port}", process.pid


PROCESS_METRIC = re.compile(r'^pix_process_info\{pid="([0-9]+)"\}', re.MULTILINE)


def wait_for_processes(url: str, processes: int, pid_in: Callable[[str], str | None]) -> None:
    """Until ``processes`` distinct processes have answered ``url`` (60 s at most), each asked on
    fresh connections: a run must not start while a worker is still importing, or wrk's
    connections all land on the first."""
    seen: set[str] = set()
    deadline = time.monotonic() + 60
    while len(seen) < processes:
        if time.monotonic() > deadline:
            raise SystemExit(f"{processes} processes did not all answer {url} in 60 s (saw {len(seen)})")
        try:
            with httpx.Client(timeout=2) as http:
                found = pid_in(http.get(url).text)
        except httpx.HTTPError:
            found = None
        if found is None:
            time.sleep(0.1)
        else:
            seen.add(found)


def _metric_pid(text: str) -> str | None:
    match = PROCESS_METRIC.search(text)
    return match.group(1) if match else None


# ------------------------------------------------------------------------------------ the cases


def api_rows(
    case: str,
    *,
    base_url: str,
    pid: int,
    accounts: Accounts,
    meter_for: Callable[[int | None], CpuMeter],
    args: argparse.Namespace,
) -> list[Row]:
    meter: CpuMeter = meter_for(pid)
    auth = asyncio.run(accounts.api_headers(base_url))
    rows = []
    for connections in args.connections:
        for operation, path, body, who, unique in (
            ("transfers", "/dict/pix", accounts.transfer_body, "sender", True),
            ("receipts", "/sandbox/payments", accounts.receipt_body, "receiver", False),
        ):
            rows.append(
                wrk_row(
                    case,
                    operation,
                    url=base_url + path,
                    request=(body, auth[who]),
                    connections=connections,
                    meter=meter,
                    args=args,
                    unique_keys=unique,
                )
            )
    return rows


def measure(args: argparse.Namespace, folder: Path, server_url: str) -> list[Row]:
    rows: list[Row] = []
    extra = dict(pair.split("=", 1) for pair in args.env)
    with bench_database(server_url) as db_url:
        accounts = asyncio.run(open_accounts(db_url, folder))
        title = database_name(db_url)

        def meter_for(pid: int | None) -> CpuMeter:
            return CpuMeter(pid, title)

        idle = meter_for(None)
        before = idle.sample()
        time.sleep(1)
        busy = sum(idle.spent(before, idle.sample()).values()) / (os.cpu_count() or 1)
        print(
            f"machine busy before the runs: {busy:.0%}"
            + ("  (other work is running: read the ratios, not the absolute figures)" if busy > 0.15 else ""),
            flush=True,
        )

        with api_server(db_url, folder, {"PIX_PROCESSES": "1"} | extra) as (base_url, process):
            asyncio.run(accounts.fund(base_url))
        sql = {"url": db_url, "accounts": accounts, "meter": meter_for(None), "args": args}
        operations = ("transfers", "receipts")
        if not args.api_only:
            rows += [naive_sql(op, connections=n, **sql) for n in args.connections for op in operations]
            rows += [grouped_sql(op, group=g, **sql) for g in GROUPS for op in operations]
        servers = [] if args.api_only else ["uvicorn"] + (["granian"] if _granian() else [])
        for server in servers:
            for processes in (1, 2):
                with floor_server(server, processes, folder) as (url, pid):
                    for connections in args.connections:
                        echo = (accounts.transfer_body, {"content-type": "application/json"})
                        rows.append(
                            wrk_row(
                                f"floor, {server}, {processes} proc",
                                "echo",
                                url=f"{url}/dict/pix",
                                request=echo,
                                connections=connections,
                                meter=meter_for(pid),
                                args=args,
                                unique_keys=False,
                            )
                        )
        for processes in (1, 2):
            with api_server(db_url, folder, {"PIX_PROCESSES": str(processes)} | extra) as (base_url, process):
                wait_for_processes(f"{base_url}/metrics", processes, _metric_pid)
                case = f"API, uvicorn, {processes} proc"
                rows += api_rows(
                    case,
                    base_url=base_url,
                    pid=process.pid,
                    accounts=accounts,
                    meter_for=meter_for,
                    args=args,
                )
        if args.granian_api and _granian():
            with granian_api(db_url, folder, extra) as (base_url, pid):
                case = "API, granian, 2 proc"
                rows += api_rows(
                    case, base_url=base_url, pid=pid, accounts=accounts, meter_for=meter_for, args=args
                )

        async def ledger() -> dict[str, object]:
            conn = await asyncpg.connect(db_url)
            try:
                return await check_ledger(conn)
            finally:
                await conn.close()

        report = asyncio.run(ledger())
        print(f"ledger check after the runs: {'ok' if report['ok'] else 'FAILED: ' + str(report)}")
    return rows


def _granian() -> bool:
    try:
        import granian  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------------------------ report


def _find(rows: list[Row], case: str, operation: str, connections: int) -> Row | None:
    return next(
        (r for r in rows if (r.case, r.operation, r.connections) == (case, operation, connections)), None
    )


def report(rows: list[Row], args: argparse.Namespace) -> None:
    print(
        f"\n{args.duration:g} s per run after {args.warmup:g} s of warm-up (wrk, 1 thread);"
        " 0.01 per request, one hot account"
    )
    print(
        "\n| case | operation | connections | per s | p50 / p99 ms | failed |"
        " CPU ms/request: server | load generator | PostgreSQL | other |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        cpu = " | ".join(f"{r.cpu.get(k, 0.0):.2f}" for k in ("server", "load", "postgres", "other"))
        print(
            f"| {r.case} | {r.operation} | {r.connections} | {r.rate:,.0f} | {r.p50:.1f} / {r.p99:.1f} |"
            f" {r.failed} | {cpu} |"
        )
    figures: list[Figure] = []
    for processes in (1, 2):
        figures += _figures(rows, args, processes)
    write_summary(args.summary, figures)
    print()
    for f in figures:
        ratio = "n/a" if f.ratio is None else f"{f.ratio:.2f}"
        verdict = "" if f.met is None else (" met" if f.met else " MISSED")
        print(
            f"{f.case}: {f.value:,.1f} against {f.baseline or 0:,.1f} {f.unit}, ratio {ratio}"
            f"{' (target ' + f.target + ')' if f.target else ''}{verdict}"
        )


def _figures(rows: list[Row], args: argparse.Namespace, processes: int) -> list[Figure]:
    """The summary's figures for the API with ``processes`` processes: throughput and p99 against
    naive SQL, throughput against the bare floor on as many processes, and the CPU a transfer costs
    (the API process plus PostgreSQL, against the naive SQL client plus PostgreSQL): on a shared
    machine the CPU per request is the figure that survives the other tenants' load."""
    figures: list[Figure] = []
    api = f"API, uvicorn, {processes} proc"
    for operation in ("transfers", "receipts"):
        for connections in args.connections:
            ours, naive = (
                _find(rows, api, operation, connections),
                _find(rows, "naive SQL", operation, connections),
            )
            floor = _find(rows, f"floor, uvicorn, {processes} proc", "echo", connections)
            if ours is not None and naive is None and args.api_only:  # the API alone (bench/revisions.py)
                case = f"{operation}, API {processes} proc, {connections} conn"
                figures.append(Figure("transfers", case, ours.rate, "/s"))
                # The database's CPU a request: steadier than throughput on a shared machine.
                postgres = ours.cpu.get("postgres", 0.0)
                figures.append(Figure("transfers", f"{case}, PostgreSQL CPU", postgres, "ms"))
            if ours is None or naive is None:
                continue
            target = TARGETS.get(connections) if operation == "transfers" else None
            figures.append(
                Figure(
                    "transfers",
                    f"{operation}, API {processes} proc / naive SQL, {connections} conn",
                    ours.rate,
                    "/s",
                    baseline=naive.rate,
                    target=f"ratio >= {target}" if target else "",
                    met=(ours.rate >= target * naive.rate) if target else None,
                )
            )
            figures.append(
                Figure(
                    "transfers",
                    f"{operation}, API {processes} proc p99 / naive SQL p99, {connections} conn",
                    ours.p99,
                    "ms",
                    baseline=naive.p99,
                    higher_is_better=False,
                    target="no worse" if operation == "transfers" else "",
                    met=(ours.p99 <= naive.p99) if operation == "transfers" else None,
                )
            )
            if operation == "transfers":
                spent = ours.cpu.get("server", 0.0) + ours.cpu.get("postgres", 0.0)
                naive_spent = naive.cpu.get("load", 0.0) + naive.cpu.get("postgres", 0.0)
                figures.append(
                    Figure(
                        "transfers",
                        f"CPU ms a transfer, API {processes} proc + PostgreSQL"
                        f" / naive SQL client + PostgreSQL, {connections} conn",
                        spent,
                        "ms",
                        baseline=naive_spent,
                        higher_is_better=False,
                    )
                )
            if floor is not None and operation == "transfers":
                figures.append(
                    Figure(
                        "transfers",
                        f"API {processes} proc / bare floor (uvicorn {processes} proc), {connections} conn",
                        ours.rate,
                        "/s",
                        baseline=floor.rate,
                        target=f"ratio >= {FLOOR_TARGET}",
                        met=ours.rate >= FLOOR_TARGET * floor.rate,
                    )
                )
    return figures


def counts(text: str) -> list[int]:
    values = [int(part) for part in text.split(",") if part.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of positive integers")
    return values


def setting(text: str) -> str:
    if "=" not in text or not text.split("=", 1)[0]:
        raise argparse.ArgumentTypeError("KEY=VALUE")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured per run (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before each run, not counted")
    parser.add_argument("--connections", "--clients", type=counts, default=[16, 64], help="default 16,64")
    parser.add_argument(
        "--env",
        type=setting,
        action="append",
        default=[],
        help="KEY=VALUE for the API processes (repeatable)",
    )
    parser.add_argument("--granian-api", action="store_true", help="also the API under granian, 2 processes")
    parser.add_argument(
        "--api-only",
        action="store_true",
        help="only the API's runs (no SQL baselines, no floor): bench/revisions.py",
    )
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    ensure_wrk()
    # A SIGTERM unwinds like Ctrl-C: the servers stop, the database goes.
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pixbench-")))
        server_url = stack.enter_context(postgres_server(args, folder))
        rows = measure(args, folder, server_url)
    report(rows, args)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the servers were stopped and the bench database dropped")
