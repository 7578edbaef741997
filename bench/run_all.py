"""Run every benchmark under bench/ and print one table of figures, baselines and ratios.

Each benchmark runs as its own process (as you would run it by hand), writes its
figures with ``--summary``, and its full output goes to a log beside them. The
table says, for each figure, the baseline measured in the same run, the ratio
(oriented so that more is better and 1.0 is as good as the baseline), the
target where the issue sets one, and whether it was met.

    .venv/bin/python bench/run_all.py                 # the benchmarks as documented
    .venv/bin/python bench/run_all.py --quick         # shorter runs, smaller loads
    .venv/bin/python bench/run_all.py --only brcode startup --markdown table.md

The database benchmarks use the PostgreSQL at 127.0.0.1:5432 unless given
``--embedded`` (a throw-away embedded server each) or ``--database-url``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _figures import Figure  # bench/ is on sys.path

HERE = Path(__file__).parent
DATABASE = frozenset({"transfers", "queries", "webhooks", "token_flood", "console", "scale"})

FULL: dict[str, list[str]] = {
    "brcode": [],
    "startup": [],
    "transfers": [],
    "queries": [],
    "webhooks": [],
    "token_flood": [],
    "console": [],
    "scale": [],
}
QUICK: dict[str, list[str]] = {
    "brcode": ["--seconds", "0.1", "--repeat", "3"],
    "startup": ["--runs", "1"],
    "transfers": ["--duration", "3", "--warmup", "1", "--connections", "16,64"],
    "queries": ["--rows", "100000", "--requests", "100", "--warmup", "10"],
    "webhooks": ["--events", "2000", "--latency-seconds", "5"],
    "token_flood": ["--rounds", "2", "--idle", "200"],
    "console": ["--requests", "50", "--warmup", "5"],
    "scale": ["--transactions", "200000", "--seconds", "2"],
}


def run(name: str, extra: list[str], folder: Path) -> tuple[list[Figure], float, int]:
    summary, log = folder / f"{name}.json", folder / f"{name}.log"
    command = [sys.executable, str(HERE / f"{name}.py"), *extra, "--summary", str(summary)]
    started = time.monotonic()
    with log.open("wb") as out:
        code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False).returncode  # noqa: S603
    elapsed = time.monotonic() - started
    if code != 0 or not summary.exists():
        return [], elapsed, code or 1
    rows = json.loads(summary.read_text(encoding="utf-8"))
    return [Figure(**row) for row in rows], elapsed, 0


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"
    return f"{text} {unit}".strip()


def table(figures: list[Figure]) -> str:
    lines = [
        "| benchmark | case | figure | baseline | ratio | target | met |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for f in figures:
        ratio = "" if f.ratio is None else f"{f.ratio:.2f}"
        met = "" if f.met is None else ("yes" if f.met else "**MISSED**")
        lines.append(
            f"| {f.benchmark} | {f.case} | {_number(f.value, f.unit)} | {_number(f.baseline, f.unit)} |"
            f" {ratio} | {f.target} | {met} |"
        )
    return "\n".join(lines)


def machine() -> str:
    return (
        f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs,"
        f" Python {platform.python_version()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="shorter runs and smaller loads")
    parser.add_argument("--only", nargs="+", choices=sorted(FULL), help="run only these")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--embedded", action="store_true", help="an embedded PostgreSQL for each database bench"
    )
    where.add_argument("--database-url", help="the PostgreSQL server of the database benches")
    parser.add_argument("--markdown", type=Path, help="also write the table (with machine and command) here")
    parser.add_argument("--keep", type=Path, help="keep each benchmark's log and JSON in this folder")
    args = parser.parse_args()

    plan = QUICK if args.quick else FULL
    names = [name for name in FULL if not args.only or name in args.only]
    figures: list[Figure] = []
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pixbench-all-") as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        for index, name in enumerate(names, 1):
            extra = list(plan[name])
            if name in DATABASE and args.embedded:
                extra.append("--embedded")
            elif name in DATABASE and args.database_url:
                extra += ["--database-url", args.database_url]
            print(f"[{index}/{len(names)}] {name} {' '.join(extra)}", flush=True)
            found, elapsed, code = run(name, extra, folder)
            status = f"{len(found)} figures" if code == 0 else f"FAILED (exit {code}; see {name}.log)"
            print(f"    {elapsed:.0f} s, {status}", flush=True)
            if code:
                failed.append(name)
                if args.keep is None:
                    print((folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")[-3000:])
            figures += found

    command = "python bench/run_all.py " + " ".join(sys.argv[1:])
    text = f"{machine()}\n\n`{command.strip()}`\n\n{table(figures)}\n"
    print("\n" + text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    missed = [f"{f.benchmark}: {f.case}" for f in figures if f.met is False]
    if missed:
        print("targets missed: " + "; ".join(missed))
    if failed:
        sys.exit("benchmarks that failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
