"""CPU a transfer, build against build: the API's hot path A/B on a shared machine.

Throughput on a machine shared with other work says little; the CPU each party spends a transfer
survives the noise. This runs ``pixweb serve`` (1 process) from each source tree given, alternated
``--rounds`` times, on one bench database, and drives ``POST /dict/pix`` of 0.01 out of one hot
account with wrk (a warm-up, then ``--duration`` seconds measured) at each connection count. It
prints the server's and PostgreSQL's CPU milliseconds a transfer, each round and the mean.

    .venv/bin/python bench/transfers_ab.py --build before=OTHER/src --build after=src [--rounds 3]

A build is ``NAME=DIR``: the ``src`` folder of a checkout (an export of an earlier commit, say),
put first on ``PYTHONPATH`` of the API process (the installed dependencies are this one's).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _baselines import open_accounts  # bench/ is on sys.path
from _cpu import CpuMeter
from _servers import add_database_options, api_server, bench_database, postgres_server
from _wrk import ensure_wrk, run_wrk

from pixinfra.postgres.database import database_name

PY_SPY = str(Path(sys.executable).parent / "py-spy")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--build", action="append", required=True, help="NAME=SRC_DIR (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--warmup", type=float, default=1.5)
    parser.add_argument("--connections", default="16,64")
    parser.add_argument("--profile", help="also py-spy record the last build's measured run to this SVG")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the API (repeatable)")
    add_database_options(parser)
    args = parser.parse_args()
    builds = [tuple(b.split("=", 1)) for b in args.build]
    connections = [int(n) for n in args.connections.split(",")]
    extra = dict(pair.split("=", 1) for pair in args.env)
    ensure_wrk()
    figures: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with postgres_server(args, folder) as server_url, bench_database(server_url) as db_url:
            accounts = asyncio.run(open_accounts(db_url, folder))
            title = database_name(db_url)
            settings = {"PIX_PROCESSES": "1"} | extra
            with api_server(db_url, folder, settings) as (base_url, _):
                asyncio.run(accounts.fund(base_url))
            for round_ in range(1, args.rounds + 1):
                for name, src in builds:
                    env = settings | {"PYTHONPATH": str(Path(src).resolve())}
                    with api_server(db_url, folder, env) as (base_url, process):
                        auth = asyncio.run(accounts.api_headers(base_url))
                        meter = CpuMeter(process.pid, title)
                        for n in connections:
                            load = {
                                "connections": n,
                                "body": accounts.transfer_body,
                                "headers": auth["sender"],
                                "unique_keys": True,
                            }
                            run_wrk(base_url + "/dict/pix", seconds=args.warmup, **load)
                            spy = None
                            if args.profile and (name, round_) == (builds[-1][0], args.rounds):
                                spy = subprocess.Popen(  # noqa: S603 - our own command
                                    [
                                        PY_SPY,
                                        "record",
                                        "--rate",
                                        "200",
                                        "--pid",
                                        str(process.pid),
                                        "--duration",
                                        str(int(args.duration)),
                                        "--format",
                                        "raw",
                                        "-o",
                                        f"{args.profile}.{n}.txt",
                                    ],
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL,
                                )
                            before = meter.sample()
                            result = run_wrk(base_url + "/dict/pix", seconds=args.duration, **load)
                            if spy is not None:
                                spy.wait()
                            spent = meter.spent(before, meter.sample(), load=result.cpu)
                            ok = max(result.ok, 1)
                            row = (spent["server"] * 1000 / ok, spent["postgres"] * 1000 / ok, result.rate)
                            figures.setdefault((name, n), []).append(row)
                            print(
                                f"round {round_} {name:>8} {n:>3} conn.: server {row[0]:.3f} ms, "
                                f"PostgreSQL {row[1]:.3f} ms a transfer, {row[2]:,.0f}/s, "
                                f"{result.failed} failed",
                                flush=True,
                            )
    print("\nbuild    conn.  server CPU ms a transfer (rounds)      mean   PostgreSQL (mean)  per s (mean)")
    for (name, n), rows in figures.items():
        each = ", ".join(f"{r[0]:.3f}" for r in rows)
        print(
            f"{name:>8} {n:>5}  {each:<36} {statistics.mean(r[0] for r in rows):.3f}"
            f"   {statistics.mean(r[1] for r in rows):.3f}"
            f"             {statistics.mean(r[2] for r in rows):,.0f}"
        )


if __name__ == "__main__":
    main()
