"""The hot account's transfers and receipts through the API of this checkout against another
revision's, measured in the same run: to show a change of the schema or of the write path costs
nothing, or what it costs.

The other revision (``--against``, any git revision) is checked out in a temporary worktree and
its environment made (its ``make sync``). Then, for ``--rounds`` rounds, each side in turn (the
other first, then this one, so neither always runs on a warmer machine): ``bench/transfers.py
--api-only`` of this checkout run by that side's interpreter, so the same harness and load
generator (wrk) drive that side's ``pixweb serve`` on a fresh database migrated by that side's own
migrations. Printed: each round's figures, and per case the median of each side and their ratio
(this checkout against the other: 1.00 is unchanged, above is faster). Rounds differ by the
machine's noise; the spread of each side's rounds is printed too.

    .venv/bin/python bench/revisions.py --against <rev> [--rounds 3] [--duration 5] [--connections 16,64]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(command: list[str], cwd: Path) -> None:
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)  # noqa: S603 - our own commands


def worktree(revision: str, folder: Path) -> Path:
    """``revision`` checked out under ``folder`` with its own environment made."""
    tree = folder / "other"
    _run(["git", "worktree", "add", "--detach", str(tree), revision], ROOT)
    try:
        _run(["make", "--silent", "sync"], tree)  # the revision's own way to make its environment
    except BaseException:
        _run(["git", "worktree", "remove", "--force", str(tree)], ROOT)
        raise
    return tree


def one_run(python: Path, args: argparse.Namespace, summary: Path) -> dict[str, float]:
    """One ``bench/transfers.py --api-only`` by ``python``: the API's throughput per case."""
    command = [
        str(python),
        str(ROOT / "bench" / "transfers.py"),
        "--api-only",
        "--duration",
        str(args.duration),
        "--connections",
        args.connections,
        "--summary",
        str(summary),
        "--database-url",
        args.database_url,
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)  # noqa: S603 - our own command
    return {
        f"{figure['case']} ({figure['unit']})": figure["value"]
        for figure in json.loads(summary.read_text(encoding="utf-8"))
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--against", required=True, help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per wrk run (default 5)")
    parser.add_argument("--connections", default="16,64", help="wrk's connections (default 16,64)")
    parser.add_argument(
        "--database-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="the PostgreSQL server both sides use (default the local one)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pixrevisions-") as temporary:
        folder = Path(temporary)
        tree = worktree(args.against, folder)
        try:
            sides = {"other": tree / ".venv" / "bin" / "python", "this": ROOT / ".venv" / "bin" / "python"}
            runs: dict[str, list[dict[str, float]]] = {"other": [], "this": []}
            for round_ in range(1, args.rounds + 1):
                for side, python in sides.items():
                    figures = one_run(python, args, folder / f"{side}.json")
                    runs[side].append(figures)
                    shown = ", ".join(f"{case} {value:,.2f}" for case, value in figures.items())
                    print(f"round {round_}, {side}: {shown}", flush=True)
        finally:
            _run(["git", "worktree", "remove", "--force", str(tree)], ROOT)
    each = f"medians of {args.rounds} rounds, {args.duration:g} s each"
    print(f"\nthis checkout against {args.against}: {each}")
    print("(ratio: above 1.00 is this checkout better: more a second, fewer milliseconds)")
    print("| case | other (min-max) | this (min-max) | ratio |")
    print("|---|---:|---:|---:|")
    for case in runs["this"][0]:
        other = [run[case] for run in runs["other"] if case in run]
        this = [run[case] for run in runs["this"]]
        if not other:
            continue
        ratio = statistics.median(this) / statistics.median(other)
        if case.endswith("(ms)"):  # a cost: less is better
            ratio = 1 / ratio if ratio else float("inf")
        print(f"| {case} | {_spread(other)} | {_spread(this)} | {ratio:.2f} |")


def _spread(values: list[float]) -> str:
    """The median and the range, with two decimals for small figures (milliseconds)."""
    digits = 2 if max(values) < 100 else 0
    return f"{statistics.median(values):,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted")
